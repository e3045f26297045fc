/**
 * The main BrowserWindow: its options (isolated, sandboxed, no Node in the page, no webviews,
 * DevTools only in development, the remembered bounds) as a pure function, and its creation
 * with the BrowserWindow class passed in. Guards are installed for every webContents elsewhere.
 */
import path from "node:path";
import type { BrowserWindowConstructorOptions } from "electron";
import { DEFAULT_SIZE, MIN_SIZE, type WindowState } from "./window-state.ts";

export function rendererIndexPath(appDir: string): string {
  return path.join(appDir, "dist", "renderer", "index.html");
}

export function mainWindowOptions(
  appDir: string,
  state: WindowState,
  isDev: boolean,
): BrowserWindowConstructorOptions {
  return {
    ...(state.bounds ?? DEFAULT_SIZE),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: "Canopy",
    show: false,
    webPreferences: {
      preload: path.join(appDir, "dist", "electron", "preload.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      // A file dropped on the page becomes a navigation, which the guard turns into opening a
      // .jsonl session (and refuses otherwise); a renderer drop handler takes precedence.
      navigateOnDragDrop: true,
      devTools: isDev,
      spellcheck: false,
    },
  };
}

/** The parts of a BrowserWindow this module uses. */
export interface MainWindow {
  once(event: "ready-to-show", listener: () => void): unknown;
  show(): void;
  maximize(): void;
  loadFile(filePath: string): Promise<void>;
}

export function createMainWindow<W extends MainWindow>(
  BrowserWindowClass: new (options: BrowserWindowConstructorOptions) => W,
  appDir: string,
  state: WindowState,
  isDev: boolean,
): W {
  const window = new BrowserWindowClass(mainWindowOptions(appDir, state, isDev));
  window.once("ready-to-show", () => {
    if (state.maximized) window.maximize();
    window.show();
  });
  void window.loadFile(rendererIndexPath(appDir));
  return window;
}
