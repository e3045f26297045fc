/**
 * Electron entry: application lifecycle only. Opens the library, binds the contract to IPC,
 * and shows the main window; everything else lives in the modules it wires together.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { app, BrowserWindow, dialog } from "electron";
import { createAppContext } from "./app-context.ts";
import { createApi } from "./api/dispatch.ts";
import { bindIpc } from "./ipc.ts";
import { createMainWindow } from "./window.ts";

// dist/electron/main.js → the app folder is two levels up.
const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

app.enableSandbox();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on("second-instance", () => {
    const [window] = BrowserWindow.getAllWindows();
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });

  void app.whenReady().then(() => {
    try {
      const ctx = createAppContext({ dbPath: process.env.CANOPY_DB, appDir });
      const api = createApi(ctx);
      bindIpc(api);
      createMainWindow(appDir);
      app.on("activate", () => {
        if (BrowserWindow.getAllWindows().length === 0) createMainWindow(appDir);
      });
      app.on("will-quit", () => ctx.db.close());
    } catch (error) {
      // For example a library written by a newer Canopy: say so instead of a blank window.
      dialog.showErrorBox("Canopy could not start", error instanceof Error ? error.message : String(error));
      app.exit(1);
    }
  });

  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") app.quit();
  });
}
