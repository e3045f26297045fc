/**
 * Electron's two copies between main and the page, without Electron: IPC (ipcRenderer.invoke ↔
 * ipcMain.handle, webContents.send → ipcRenderer.on) copies every value with structuredClone, and
 * contextBridge copies values between the preload's world and the page's, recursing into arrays and
 * plain objects and refusing nesting deeper than 1,000 (electron_api_context_bridge.cc, kMaxRecursion).
 */

import type { IpcRendererLike } from "../../core/api/wire-preload.ts";
import type { InvokeEvent, IpcMainLike } from "../../main/ipc.ts";

type Listener = (event: unknown, text: unknown) => void;
type MainHandler = (event: InvokeEvent, text: unknown) => unknown;

const CONTEXT_BRIDGE_MAX_DEPTH = 1000;

/** A value as the page (or, for arguments, the preload) receives it through contextBridge. */
export function passContextBridge(value: unknown, depth = 0): unknown {
  if (depth >= CONTEXT_BRIDGE_MAX_DEPTH) {
    throw new TypeError(
      "Electron contextBridge recursion depth exceeded. Nested objects deeper than 1000 are not supported.",
    );
  }
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
  if (typeof value === "function") {
    return (...args: unknown[]) =>
      passContextBridge(
        (value as (...a: unknown[]) => unknown)(...args.map((arg) => passContextBridge(arg))),
      );
  }
  if (value instanceof Promise) return value.then((resolved) => passContextBridge(resolved));
  if (Array.isArray(value)) return value.map((item) => passContextBridge(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      key,
      passContextBridge(item, depth + 1),
    ]),
  );
}

export interface FakeIpcChannel {
  ipcMain: IpcMainLike;
  ipcRenderer: IpcRendererLike;
  /** The webContents of the page at `url`, as bindIpc's targets() gives it. */
  webContents: { send(channel: string, text: string): void; getURL(): string };
}

/** One page at `url` and main, joined by an IPC that clones like Electron's. */
export function createFakeIpcChannel(url: string): FakeIpcChannel {
  const handlers = new Map<string, MainHandler>();
  const listeners = new Map<string, Set<Listener>>();
  return {
    ipcMain: {
      handle: (channel, handler) => void handlers.set(channel, handler),
      removeHandler: (channel) => void handlers.delete(channel),
    },
    ipcRenderer: {
      async invoke(channel, text) {
        const handler = handlers.get(channel);
        if (!handler) throw new Error(`No handler registered for '${channel}'`);
        const answer = await handler({ senderFrame: { url, parent: null } }, structuredClone(text));
        return structuredClone(answer);
      },
      on(channel, listener) {
        const set = listeners.get(channel) ?? new Set<Listener>();
        listeners.set(channel, set);
        set.add(listener);
      },
      removeListener(channel, listener) {
        listeners.get(channel)?.delete(listener);
      },
    },
    webContents: {
      send(channel, text) {
        const copy = structuredClone(text);
        for (const listener of listeners.get(channel) ?? []) listener({}, structuredClone(copy));
      },
      getURL: () => url,
    },
  };
}
