/**
 * Electron transport: binds every contract channel to ipcMain.handle and forwards the event bus
 * to the app's pages. Requests are accepted only from the app's own top-level page; input is
 * validated by the dispatcher like on every other transport. Requests, answers and events cross
 * as JSON text (core/api/wire.ts): IPC's structured clone fails on deeply nested entries.
 */
import { CHANNELS } from "../core/api/contract.ts";
import type { ApiResult } from "../core/api/dto.ts";
import { decodeJson, encodeJson, type JsonText } from "../core/api/wire.ts";
import { isTooLongError } from "../core/text/too-long.ts";
import type { Api } from "./api/dispatch.ts";
import { toApiError } from "./api/errors.ts";
import { exportAnswerPieces, isTextExport } from "./api/export-answer.ts";
import { encodeOrTooLarge, tooLargeError } from "./api/too-large.ts";

/** The parts of an IpcMainInvokeEvent the sender check reads. */
export interface InvokeEvent {
  senderFrame: { url: string; parent: unknown } | null;
}

export interface IpcMainLike {
  /** The listener gets the request's JSON text (anything else is refused) and answers JSON text. */
  handle(channel: string, listener: (event: InvokeEvent, text: unknown) => unknown): void;
  removeHandler(channel: string): void;
}

export interface EventTarget {
  /** `text`: the event's payload as JSON text. */
  send(channel: string, text: string): void;
  getURL(): string;
}

export interface IpcOptions {
  ipcMain: IpcMainLike;
  /** Where events go: the webContents of every open window. */
  targets(): readonly EventTarget[];
  /** True for the app's own page (see security.ts isAppUrl). */
  isTrustedUrl(url: string): boolean;
}

export const UNTRUSTED_SENDER = {
  ok: false,
  error: { code: "invalid_input", message: "request from an untrusted page" },
} as const;

const NOT_JSON_TEXT = {
  ok: false,
  error: { code: "invalid_input", message: "the request's input is not JSON text" },
} as const;

/** The request's input from its JSON text; undefined when it is not JSON text. */
function readInput(text: unknown): { input: unknown } | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return { input: decodeJson(text as JsonText<unknown>) };
  } catch {
    return undefined; // answered with NOT_JSON_TEXT
  }
}

/** One request as the main side answers it: the ApiResult's JSON text. */
export async function answerRequest(
  api: Api,
  channel: string,
  text: unknown,
): Promise<JsonText<ApiResult<unknown>>> {
  const read = readInput(text);
  if (!read) return encodeJson<ApiResult<unknown>>(NOT_JSON_TEXT);
  if (isTextExport(channel, read.input)) return exportAnswerText(api, read.input);
  const result = await api.callUnknown(channel, read.input);
  // An answer too long for one string: the page gets one line saying what instead.
  return encodeOrTooLarge(channel, result, (answer) => encodeJson(answer));
}

/**
 * A text export's answer joined from its pieces (export-answer.ts): the text is escaped a slice
 * per turn, never on this thread at once; the joined pieces are flattened only as they are sent.
 */
async function exportAnswerText(api: Api, input: Record<string, unknown>): Promise<JsonText<ApiResult<unknown>>> {
  let text = "";
  try {
    for await (const piece of exportAnswerPieces(api, input)) text += piece;
  } catch (error) {
    // Past the longest string: say to export to a file; a spool that could not be read: why.
    const failure = isTooLongError(error) ? tooLargeError("session:export") : toApiError(error);
    return encodeJson<ApiResult<unknown>>({ ok: false, error: failure });
  }
  return text as JsonText<ApiResult<unknown>>;
}

/** Only the app's own page, in its top-level frame, may call the API (no remote content is loaded). */
export function isTrustedSender(event: InvokeEvent, isTrustedUrl: (url: string) => boolean): boolean {
  const frame = event.senderFrame;
  return frame !== null && frame.parent === null && isTrustedUrl(frame.url);
}

export function bindIpc(api: Api, options: IpcOptions): () => void {
  for (const channel of CHANNELS) {
    options.ipcMain.handle(channel, (event, text) => {
      if (!isTrustedSender(event, options.isTrustedUrl)) return encodeJson(UNTRUSTED_SENDER);
      return answerRequest(api, channel, text);
    });
  }
  const unsubscribe = api.ctx.events.subscribe((name, payload) => {
    const targets = options.targets().filter((target) => options.isTrustedUrl(target.getURL()));
    if (targets.length === 0) return;
    const text = encodeJson(payload);
    for (const target of targets) target.send(name, text);
  });
  return () => {
    unsubscribe();
    for (const channel of CHANNELS) options.ipcMain.removeHandler(channel);
  };
}
