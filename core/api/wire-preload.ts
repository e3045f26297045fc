/**
 * The Electron preload's `window.canopy`, written against a structural ipcRenderer so that tests
 * run it over a fake channel: one function per contract channel and a listener per contract event,
 * passing JSON text (wire.ts) through ipcRenderer untouched — no generic send, no Node API (DESIGN §3).
 */
import { CHANNELS, EVENT_NAMES, type EventName, type Events } from "./contract.ts";
import type { CanopyWireBridge, JsonText, WireRequestFunctions } from "./wire.ts";

/** The parts of Electron's ipcRenderer the bridge uses. */
export interface IpcRendererLike {
  invoke(channel: string, text: string): Promise<unknown>;
  on(channel: string, listener: (event: unknown, text: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, text: unknown) => void): unknown;
}

export function createWireBridge(
  ipc: IpcRendererLike,
  pathForFile: (file: unknown) => string,
): CanopyWireBridge {
  const request = Object.fromEntries(
    CHANNELS.map((channel) => [
      channel,
      (text: unknown) => {
        // Only text crosses: a page that passes anything else gets no IPC call.
        if (typeof text !== "string")
          return Promise.reject(new TypeError(`${channel}: input must be JSON text`));
        return ipc.invoke(channel, text);
      },
    ]),
  ) as WireRequestFunctions;
  return {
    transport: "electron",
    request,
    on<E extends EventName>(name: E, listener: (payload: JsonText<Events[E]>) => void) {
      if (!(EVENT_NAMES as readonly string[]).includes(name)) throw new Error(`unknown event ${name}`);
      const wrapped = (_event: unknown, text: unknown) => {
        if (typeof text === "string") listener(text as JsonText<Events[E]>);
      };
      ipc.on(name, wrapped);
      return () => {
        ipc.removeListener(name, wrapped);
      };
    },
    pathForFile,
  };
}
