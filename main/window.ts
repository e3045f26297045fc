/**
 * The main BrowserWindow and its security options: isolated, sandboxed, no Node in the page,
 * a strict CSP, and guards that keep navigation and new windows inside the app.
 */
import path from "node:path";
import { BrowserWindow, session, shell } from "electron";
import { CONTENT_SECURITY_POLICY } from "./server/static.ts";

export function createMainWindow(appDir: string): BrowserWindow {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, "Content-Security-Policy": [CONTENT_SECURITY_POLICY] },
    });
  });
  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    title: "Canopy",
    show: false,
    webPreferences: {
      preload: path.join(appDir, "dist", "electron", "preload.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  window.webContents.on("will-navigate", (event, url) => {
    if (!url.startsWith("file://")) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith("https://")) void shell.openExternal(url);
    return { action: "deny" };
  });
  window.once("ready-to-show", () => window.show());
  void window.loadFile(path.join(appDir, "dist", "renderer", "index.html"));
  return window;
}
