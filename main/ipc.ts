/**
 * Electron transport: binds every contract channel to ipcMain.handle and forwards the event bus
 * to all windows. Input is validated by the dispatcher like on every other transport.
 */
import { BrowserWindow, ipcMain } from "electron";
import { CHANNELS } from "../core/api/contract.ts";
import type { Api } from "./api/dispatch.ts";

export function bindIpc(api: Api): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(channel, (event, input: unknown) => {
      // Only our own pages may call the API (no remote content is ever loaded).
      const url = event.senderFrame?.url ?? "";
      if (!url.startsWith("file://") && !url.startsWith("http://127.0.0.1")) {
        return { ok: false, error: { code: "invalid_input", message: "request from an untrusted page" } };
      }
      return api.callUnknown(channel, input);
    });
  }
  const unsubscribe = api.ctx.events.subscribe((name, payload) => {
    for (const window of BrowserWindow.getAllWindows()) window.webContents.send(name, payload);
  });
  return () => {
    unsubscribe();
    for (const channel of CHANNELS) ipcMain.removeHandler(channel);
  };
}
