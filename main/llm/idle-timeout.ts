/**
 * A request's inactivity timeout (`model.timeoutSeconds`; the remote summary endpoint's
 * `compaction.remoteTimeoutSeconds`): ends a request that sends nothing — no reply yet, or no
 * further chunk of a streamed one — for that long, and words why.
 * The SDK's own timeout does not reach a stream's chunks: a server that sent the headers and
 * then nothing was waited on until Cancel.
 */

/** The SDK's default request timeout (10 minutes), kept as the default: what works today still does. */
export const DEFAULT_MODEL_TIMEOUT_MS = 600_000;

/** How a timed-out request is said: who was silent, or whose answer stalled, and the setting. */
export interface IdleWords {
  silent: string;
  stalled: string;
  setting: string;
}

const MODEL_WORDS: IdleWords = {
  silent: "the model sent nothing",
  stalled: "the model's reply stalled, nothing more came",
  setting: "model.timeoutSeconds",
};

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

export function watchIdle(
  signal: AbortSignal,
  timeoutMs: number = DEFAULT_MODEL_TIMEOUT_MS,
  words: IdleWords = MODEL_WORDS,
): IdleWatch {
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
      `Request timed out: ${heard ? words.stalled : words.silent} for ${seconds} s (setting ${words.setting})`,
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener("abort", follow);
    },
  };
}
