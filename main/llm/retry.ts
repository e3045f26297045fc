/**
 * Canopy's retry policy for model calls (SPEC §9.4 step 4, D17): retry-after hints read from
 * error texts, the retryable-error list, exponential backoff, and the candidate loop that
 * retries one model or moves to the next. The SDK's own retries are off; this is the only one.
 */
import type { AbortSignalLike } from "../../core/compaction/types.ts";
import { parseRetryAfterHint } from "../../core/llm/retry-hint.ts";

export { parseRetryAfterHint };

/** §9.4: the texts of errors worth retrying on the same model. */
const RETRYABLE_PATTERN =
  /overloaded|rate.?limit|usage.?limit|too many requests|429|500|502|503|504|service.?unavailable|server error|internal error|connection.?error|fetch failed|retry delay/i;

/** Longest wait on one candidate before moving to the next one (SPEC §10.2). */
export const MAX_DELAY_BEFORE_SWITCH_MS = 30_000;

/** True when the error text matches the §9.4 list of transient failures. */
export function isRetryableError(text: string): boolean {
  return RETRYABLE_PATTERN.test(text);
}

/** `baseDelayMs × 2^attempt`, raised to the hint when one was given. */
export function retryDelay(attempt: number, baseDelayMs: number, hint?: number): number {
  const backoff = baseDelayMs * 2 ** attempt;
  return hint === undefined ? backoff : Math.max(backoff, hint);
}

export interface RetryPolicy {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayBeforeSwitchMs?: number;
}

export interface Candidate<T> {
  id: string;
  /** Throws on failure (a summarizer's `stopReason: "error"` must be turned into a throw). */
  run(signal: AbortSignalLike): Promise<T>;
}

export interface RetryHooks {
  onRetryStart?(event: { attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }): void;
  onRetryEnd?(event: { success: boolean; attempt: number; finalError?: string }): void;
  /** Waits `ms`; rejects with an AbortError when the signal fires. Defaults to a timer. */
  sleep?(ms: number, signal: AbortSignalLike): Promise<void>;
  /** Clock for absolute retry hints; defaults to Date.now. */
  now?(): number;
}

/** An Error named "AbortError", the shape callers test for cancellation. */
export function createAbortError(message = "The operation was aborted"): Error {
  const error = new Error(message);
  error.name = "AbortError";
  return error;
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/** Abortable timer: resolves after `ms`, rejects with an AbortError as soon as the signal fires. */
export function abortableSleep(ms: number, signal: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(createAbortError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(createAbortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort);
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * SPEC §9.4 step 4: tries each candidate in order. A failure is retried on the same candidate
 * (after `retryDelay`) when retries are enabled, attempts remain and the text is retryable or
 * carries a hint; a delay above 30 s moves on instead when another candidate exists. An abort
 * re-throws an AbortError at once. After the last candidate: the last error, or
 * `Compaction failed: no available model` when there was none.
 */
export async function runWithCandidates<T>(
  candidates: readonly Candidate<T>[],
  policy: RetryPolicy,
  signal: AbortSignalLike,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? abortableSleep;
  const now = hooks.now ?? Date.now;
  const switchAfter = policy.maxDelayBeforeSwitchMs ?? MAX_DELAY_BEFORE_SWITCH_MS;
  let lastError: unknown;

  for (const [index, candidate] of candidates.entries()) {
    const hasNext = index < candidates.length - 1;
    let attempt = 0;
    for (;;) {
      if (signal.aborted) throw createAbortError();
      let failure: unknown;
      try {
        const result = await candidate.run(signal);
        if (attempt > 0) hooks.onRetryEnd?.({ success: true, attempt });
        return result;
      } catch (error) {
        failure = error;
      }
      if (signal.aborted) throw isAbortError(failure) ? failure : createAbortError();

      const message = errorText(failure);
      const hint = parseRetryAfterHint(message, now());
      const retryable = hint !== undefined || isRetryableError(message);
      const delayMs = retryDelay(attempt, policy.baseDelayMs, hint);
      if (
        !policy.enabled ||
        attempt >= policy.maxRetries ||
        !retryable ||
        (delayMs > switchAfter && hasNext)
      ) {
        lastError = failure;
        if (attempt > 0) hooks.onRetryEnd?.({ success: false, attempt, finalError: message });
        break;
      }
      attempt += 1;
      hooks.onRetryStart?.({ attempt, maxAttempts: policy.maxRetries, delayMs, errorMessage: message });
      try {
        await sleep(delayMs, signal);
      } catch (error) {
        hooks.onRetryEnd?.({ success: false, attempt, finalError: "Retry cancelled" });
        throw signal.aborted && !isAbortError(error) ? createAbortError() : error;
      }
    }
  }
  throw lastError ?? new Error("Compaction failed: no available model");
}

/** The identity of a model endpoint for de-duplication: base URL (no trailing slash) and id. */
function modelKey(model: { baseUrl: string; id: string }): string {
  return `${model.baseUrl.replace(/\/+$/, "")}|${model.id}`;
}

/** D17: the current model first, then the configured fallbacks, de-duplicated by `baseUrl|id`. */
export function orderCandidateModels<M extends { baseUrl: string; id: string }>(
  current: M | null | undefined,
  fallbacks: readonly M[],
): M[] {
  const seen = new Set<string>();
  const ordered: M[] = [];
  for (const model of current ? [current, ...fallbacks] : fallbacks) {
    const key = modelKey(model);
    if (seen.has(key)) continue;
    seen.add(key);
    ordered.push(model);
  }
  return ordered;
}
