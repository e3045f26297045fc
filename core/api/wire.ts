/**
 * The Electron edge carries JSON text, never live values: IPC copies values with the structured-clone
 * algorithm and contextBridge copies them again, and both recurse (structured clone fails past
 * ~1,600 nested objects, contextBridge past 1,000), while session entries may nest 100,000 deep.
 * A string crosses both untouched; toJson writes any depth and JSON.parse reads it back.
 */
import { jsonPieces } from "../text/json-pieces.ts";
import type { CanopyBridge, RequestFunctions } from "./bridge.ts";
import {
  CHANNELS,
  type Channel,
  type EventName,
  type Events,
  type RequestInput,
  type RequestOutput,
} from "./contract.ts";
import type { ApiResult } from "./dto.ts";

declare const jsonOf: unique symbol;
/** JSON text of a `T` (a string at run time; the brand keeps the contract's type through the edge). */
export type JsonText<T> = string & { readonly [jsonOf]?: T };

/**
 * The text of a contract value; `undefined` (a channel called without input) travels as `{}`.
 * Made a list item at a time and joined (json-pieces.ts): one JSON.stringify of a 200 MB answer
 * (session:get of 100k entries) takes several times longer than its items' texts and one join.
 */
export function encodeJson<T>(value: T): JsonText<T> {
  return (value === undefined ? "{}" : jsonPieces(value, 3).join("")) as JsonText<T>;
}

/** The value of text made by encodeJson on the other side of the edge (JSON.parse has no depth limit). */
export function decodeJson<T>(text: JsonText<T>): T {
  return JSON.parse(text) as T;
}

export type WireRequestFunctions = {
  [C in Channel]: (input: JsonText<RequestInput<C>>) => Promise<JsonText<ApiResult<RequestOutput<C>>>>;
};

/** What the Electron preload exposes as `window.canopy`: the contract's channels and events, as text. */
export interface CanopyWireBridge {
  readonly transport: "electron";
  readonly request: WireRequestFunctions;
  on<E extends EventName>(name: E, listener: (payload: JsonText<Events[E]>) => void): () => void;
  /** The file-system path of a File dropped on the page ("" when it has none), for `library:import`. */
  pathForFile(file: unknown): string;
}

const BAD_ANSWER = "the desktop app's main process sent an answer that is not JSON text";

function decodeAnswer<T>(answer: unknown): ApiResult<T> {
  if (typeof answer === "string") {
    try {
      return decodeJson(answer as JsonText<ApiResult<T>>);
    } catch {
      // Falls through to the one-line error below: the text was not JSON.
    }
  }
  return { ok: false, error: { code: "internal", message: BAD_ANSWER } };
}

/** The renderer's side of the edge: the object-valued bridge api.ts uses, over the text bridge. */
export function bridgeFromWire(wire: CanopyWireBridge): CanopyBridge {
  const request = Object.fromEntries(
    CHANNELS.map((channel) => [
      channel,
      async (input: unknown): Promise<ApiResult<unknown>> => {
        const send = wire.request[channel] as (text: JsonText<unknown>) => Promise<unknown>;
        return decodeAnswer(await send(encodeJson(input)));
      },
    ]),
  ) as RequestFunctions;
  return {
    transport: "electron",
    request,
    on: (name, listener) => wire.on(name, (text) => listener(decodeJson(text))),
    pathForFile: (file) => wire.pathForFile(file),
  };
}
