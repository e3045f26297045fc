/**
 * Electron preload: exposes `window.canopy` (core/api/wire-preload.ts) — the contract's channels and
 * events as JSON text, plus the path of a dropped file (webUtils). No ipcRenderer, no generic
 * send, no Node API reaches the page (DESIGN §3).
 */
import { contextBridge, ipcRenderer, webUtils } from "electron";
import { createWireBridge } from "../core/api/wire-preload.ts";

const bridge = createWireBridge(ipcRenderer, (file) =>
  // webUtils throws for anything that is not a File; the page gets "" instead.
  typeof File !== "undefined" && file instanceof File ? webUtils.getPathForFile(file) : "",
);

contextBridge.exposeInMainWorld("canopy", bridge);
