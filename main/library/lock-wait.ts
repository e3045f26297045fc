/**
 * Waiting, asynchronously, for the library's write lock: this process's import runner (the write
 * gate) and any other process on the library file (the CLI, a second app) are not writing. Polls
 * with a BEGIN IMMEDIATE that does not wait (writeIfFree), so the serving thread answers other
 * requests meanwhile, where SQLite's own wait (busy_timeout) would hold it up.
 */
import type { Database } from "better-sqlite3";
import { writeIfFree } from "../store/transactions.ts";
import type { WriteGate } from "./write-gate.ts";

const LOCK_POLL_MS = 50;

/** After waiting this long for another process, the wait is told (onLong), so the page can say so. */
export const LOCK_WAIT_TOLD_MS = 1000;

/** Resolves after `ms`, or at once when `signal` aborts (then or already). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * True once the write lock is free (taking it right after may still meet a write landing in
 * between, which waits busy_timeout as any write does); false when `limitMs` passed first or
 * `signal` aborted. `onLong(true)` once another process has held it LOCK_WAIT_TOLD_MS, then
 * `onLong(false)` when the wait ends, however.
 */
export async function untilWriteLockFree(
  db: Database,
  writes: WriteGate,
  limitMs: number,
  signal?: AbortSignal,
  onLong?: (waiting: boolean) => void,
): Promise<boolean> {
  const started = Date.now();
  let told = false;
  try {
    while (!signal?.aborted) {
      if (!writes.open) {
        // The pause's timer is cleared when the gate opens first: a timer left running (up to the
        // limit, minutes for a job) would keep a CLI process alive after its work is done.
        const gateOpened = new AbortController();
        const stop = (): void => gateOpened.abort();
        signal?.addEventListener("abort", stop, { once: true });
        await Promise.race([writes.passed(), pause(limitMs, gateOpened.signal)]);
        stop();
        signal?.removeEventListener("abort", stop);
        continue;
      }
      if (writeIfFree(db, () => undefined) !== null) return true;
      if (Date.now() - started > limitMs) return false;
      // Another process holds the lock (the runner's gate is open): told once it has been a while.
      if (!told && onLong && Date.now() - started >= LOCK_WAIT_TOLD_MS) {
        told = true;
        onLong(true);
      }
      await pause(LOCK_POLL_MS, signal);
    }
    return false;
  } finally {
    if (told) onLong?.(false);
  }
}
