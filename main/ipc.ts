/**
 * Electron transport: binds every contract channel to ipcMain.handle and forwards the event bus
 * to the app's pages. Requests are accepted only from the app's own top-level page; input is
 * validated by the dispatcher like on every other transport.
 */
import { CHANNELS } from "../core/api/contract.ts";
import type { Api } from "./api/dispatch.ts";

/** The parts of an IpcMainInvokeEvent the sender check reads. */
export interface InvokeEvent {
  senderFrame: { url: string; parent: unknown } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEvent, input: unknown) => unknown): void;
  removeHandler(channel: string): void;
}

export interface EventTarget {
  send(channel: string, payload: unknown): void;
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

/** Only the app's own page, in its top-level frame, may call the API (no remote content is loaded). */
export function isTrustedSender(event: InvokeEvent, isTrustedUrl: (url: string) => boolean): boolean {
  const frame = event.senderFrame;
  return frame !== null && frame.parent === null && isTrustedUrl(frame.url);
}

export function bindIpc(api: Api, options: IpcOptions): () => void {
  for (const channel of CHANNELS) {
    options.ipcMain.handle(channel, (event, input) => {
      if (!isTrustedSender(event, options.isTrustedUrl)) return UNTRUSTED_SENDER;
      return api.callUnknown(channel, input);
    });
  }
  const unsubscribe = api.ctx.events.subscribe((name, payload) => {
    for (const target of options.targets()) {
      if (options.isTrustedUrl(target.getURL())) target.send(name, payload);
    }
  });
  return () => {
    unsubscribe();
    for (const channel of CHANNELS) options.ipcMain.removeHandler(channel);
  };
}
