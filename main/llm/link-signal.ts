/**
 * A real AbortSignal for fetch and the openai SDK that follows a core-style one (and, when asked,
 * aborts itself after a timeout): the one link every LLM request in main/llm/ makes.
 */
import type { AbortSignalLike } from "../../core/compaction/types.ts";

export interface SignalLink {
  signal: AbortSignal;
  /** Whether `timeoutMs` ran out (never, without one). */
  timedOut(): boolean;
  /** Detaches the listener and clears the timer. */
  dispose(): void;
}

/** Follows `signal`; with `timeoutMs`, also aborts once that long has passed. */
export function linkSignal(signal: AbortSignalLike | undefined, timeoutMs?: number): SignalLink {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort);
  if (signal?.aborted) controller.abort();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      signal?.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
