/**
 * The object-valued bridge the renderer's api.ts talks to: built over the Electron preload's
 * `window.canopy` (JSON text, see wire.ts bridgeFromWire) or by the browser-mode client over
 * HTTP/WebSocket.
 */
import type { Channel, EventName, Events, RequestInput, RequestOutput } from "./contract.ts";
import type { ApiResult } from "./dto.ts";

export type RequestFunctions = {
  [C in Channel]: (input: RequestInput<C>) => Promise<ApiResult<RequestOutput<C>>>;
};

export interface CanopyBridge {
  readonly transport: "electron" | "browser";
  readonly request: RequestFunctions;
  on<E extends EventName>(name: E, listener: (payload: Events[E]) => void): () => void;
  /**
   * Browser mode only: calls `listener` whenever the event socket opens (at once when it is
   * open): the first time, and again after a drop, when events sent meanwhile were missed.
   */
  onConnected?(listener: () => void): () => void;
  /**
   * Electron only: the file-system path of a File dropped on (or picked in) the page, for
   * `library:import`; "" for a File that is not backed by a file on disk. Browser mode has none.
   */
  pathForFile?(file: unknown): string;
}
