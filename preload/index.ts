/**
 * Electron preload: builds `window.canopy` from the contract's channel and event lists, plus the
 * path of a dropped file (webUtils) — no ipcRenderer, no generic send, no Node API reaches the
 * page (DESIGN §3).
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer, webUtils } from "electron";
import type { CanopyBridge, RequestFunctions } from "../core/api/bridge.ts";
import { CHANNELS, EVENT_NAMES, type EventName, type Events } from "../core/api/contract.ts";

const request = Object.fromEntries(
  CHANNELS.map((channel) => [channel, (input: unknown) => ipcRenderer.invoke(channel, input)]),
) as RequestFunctions;

const bridge: CanopyBridge = {
  transport: "electron",
  request,
  on<E extends EventName>(name: E, listener: (payload: Events[E]) => void) {
    if (!(EVENT_NAMES as readonly string[]).includes(name)) throw new Error(`unknown event ${name}`);
    const wrapped = (_event: IpcRendererEvent, payload: Events[E]) => listener(payload);
    ipcRenderer.on(name, wrapped);
    return () => ipcRenderer.removeListener(name, wrapped);
  },
  pathForFile(file: unknown) {
    // webUtils throws for anything that is not a File; the page gets "" instead.
    return typeof File !== "undefined" && file instanceof File ? webUtils.getPathForFile(file) : "";
  },
};

contextBridge.exposeInMainWorld("canopy", bridge);
