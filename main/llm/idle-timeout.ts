/**
 * The model request's inactivity timeout (`model.timeoutSeconds`): ends a request that sends
 * nothing — no reply yet, or no further chunk of a streamed one — for that long, and words why.
 * The SDK's own timeout does not reach a stream's chunks: a server that sent the headers and
 * then nothing was waited on until Cancel.
 */

/** The SDK's default request timeout (10 minutes), kept as the default: what works today still does. */
export const DEFAULT_MODEL_TIMEOUT_MS = 600_000;

export interface IdleWatch {
  /** Follows the caller's signal, and is aborted when the request stays silent too long. */
  signal: AbortSignal;
  /** Something came from the model (`token`: some of the reply, not a role chunk): the silence starts again. */
  touch(token: boolean): void;
  timedOut(): boolean;
  /** The error a timed-out request ends with. */
  message(): string;
  dispose(): void;
}

export function watchIdle(signal: AbortSignal, timeoutMs: number = DEFAULT_MODEL_TIMEOUT_MS): IdleWatch {
  const controller = new AbortController();
  const follow = () => controller.abort();
  if (signal.aborted) controller.abort();
  else signal.addEventListener("abort", follow, { once: true });
  let timedOut = false;
  let heard = false;
  const expire = () => {
    timedOut = true;
    controller.abort();
  };
  let timer = setTimeout(expire, timeoutMs);
  const seconds = Math.round(timeoutMs / 100) / 10;
  return {
    signal: controller.signal,
    touch(token) {
      if (token) heard = true;
      if (timedOut) return;
      clearTimeout(timer);
      timer = setTimeout(expire, timeoutMs);
    },
    timedOut: () => timedOut && !signal.aborted,
    message: () =>
      heard
        ? `Request timed out: the model's reply stalled, nothing more came for ${seconds} s (setting model.timeoutSeconds)`
        : `Request timed out: the model sent nothing for ${seconds} s (setting model.timeoutSeconds)`,
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener("abort", follow);
    },
  };
}
