/**
 * The renderer's only door to Canopy's main side: `window.canopy` in Electron (preload; values
 * cross it as JSON text, see core/api/wire.ts), else the browser-mode client (HTTP for requests,
 * WebSocket for events, token from the page URL).
 * Unwraps ApiResult so callers get values or an ApiCallError with the main side's message.
 */
import type { CanopyBridge, RequestFunctions } from "../../core/api/bridge.ts";
import {
  CHANNELS,
  type Channel,
  type EventName,
  type Events,
  type RequestInput,
  type RequestOutput,
} from "../../core/api/contract.ts";
import type { ApiErrorCode, ApiResult } from "../../core/api/dto.ts";
import { bridgeFromWire, type CanopyWireBridge } from "../../core/api/wire.ts";
import { browserExportFile, browserRequest } from "./browser-request.ts";

declare global {
  interface Window {
    canopy?: CanopyWireBridge;
  }
}

export class ApiCallError extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

function browserToken(): string {
  const fromUrl = new URLSearchParams(window.location.search).get("token");
  if (fromUrl) {
    sessionStorage.setItem("canopy.token", fromUrl);
    return fromUrl;
  }
  return sessionStorage.getItem("canopy.token") ?? "";
}

function createBrowserBridge(): CanopyBridge {
  const token = browserToken();
  const request = Object.fromEntries(
    CHANNELS.map((channel) => [
      channel,
      (input: unknown): Promise<ApiResult<unknown>> => browserRequest(channel, input, token),
    ]),
  ) as RequestFunctions;

  type AnyListener = (payload: unknown) => void;
  const listeners = new Map<string, Set<AnyListener>>();
  const connectedListeners = new Set<() => void>();
  let socket: WebSocket | null = null;
  let open = false;
  const connect = () => {
    const url = new URL(`/events?token=${encodeURIComponent(token)}`, window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(url);
    socket.onopen = () => {
      open = true;
      for (const listener of connectedListeners) listener();
    };
    socket.onmessage = (message) => {
      const { event, payload } = JSON.parse(String(message.data)) as { event: string; payload: unknown };
      for (const listener of listeners.get(event) ?? []) listener(payload);
    };
    socket.onclose = () => {
      socket = null;
      open = false;
      setTimeout(connect, 2000);
    };
  };
  connect();

  return {
    transport: "browser",
    request,
    on<E extends EventName>(name: E, listener: (payload: Events[E]) => void) {
      const set = listeners.get(name) ?? new Set<AnyListener>();
      listeners.set(name, set);
      const wrapped = listener as AnyListener;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
    onConnected(listener) {
      connectedListeners.add(listener);
      if (open) listener();
      return () => connectedListeners.delete(listener);
    },
  };
}

const bridge: CanopyBridge = window.canopy ? bridgeFromWire(window.canopy) : createBrowserBridge();

export async function call<C extends Channel>(channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> {
  const fn = bridge.request[channel] as (input: RequestInput<C>) => Promise<ApiResult<RequestOutput<C>>>;
  const result = await fn(input);
  if (!result.ok) throw new ApiCallError(result.error.code, result.error.message);
  return result.value;
}

export function onEvent<E extends EventName>(name: E, listener: (payload: Events[E]) => void): () => void {
  return bridge.on(name, listener);
}

/**
 * Calls `listener` once the events flow (and again whenever they flow again after a drop, in
 * browser mode), so that state kept from events can be asked for afresh.
 */
export function onEventsConnected(listener: () => void): () => void {
  if (bridge.onConnected) return bridge.onConnected(listener);
  // Electron's IPC events never drop: once, as the page starts.
  let active = true;
  queueMicrotask(() => {
    if (active) listener();
  });
  return () => {
    active = false;
  };
}

export const transport = bridge.transport;

/**
 * An export to download, in browser mode: the file itself arrives (a Blob, see browserExportFile).
 * The desktop app does not download: it saves where its save dialog says (export-slice.ts).
 */
export async function exportForDownload(
  input: RequestInput<"session:export">,
): Promise<{ file: Blob; result: RequestOutput<"session:export"> }> {
  if (bridge.transport !== "browser") {
    throw new ApiCallError("unsupported", "The desktop app saves an export through its save dialog.");
  }
  const answer = await browserExportFile(input, browserToken());
  if (!answer.ok) throw new ApiCallError(answer.error.code, answer.error.message);
  return answer.value;
}
