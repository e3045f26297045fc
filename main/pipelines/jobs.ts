/**
 * Running long jobs (compactions, branch summaries) per session, so that a second request can
 * abort them (SPEC §9.6) and a session never runs two summary jobs at once.
 */
import { randomUUID } from "node:crypto";
import { ApiFailure } from "../api/errors.ts";

export type JobKind = "compaction" | "branch-summary";

export interface Job {
  id: string;
  sessionId: string;
  kind: JobKind;
  controller: AbortController;
}

export class JobRegistry {
  private readonly running = new Map<string, Job>();

  /** Starts a job for the session; refuses when one is already running there. */
  start(sessionId: string, kind: JobKind): Job {
    const existing = this.running.get(sessionId);
    if (existing) {
      throw new ApiFailure(
        "conflict",
        `A ${existing.kind} is already running for this session; wait for it or cancel it first`,
      );
    }
    const job: Job = { id: randomUUID(), sessionId, kind, controller: new AbortController() };
    this.running.set(sessionId, job);
    return job;
  }

  finish(job: Job): void {
    if (this.running.get(job.sessionId) === job) this.running.delete(job.sessionId);
  }

  /** Aborts the session's running job of that kind (any kind when omitted). */
  abort(sessionId: string, kind?: JobKind): boolean {
    const job = this.running.get(sessionId);
    if (!job || (kind && job.kind !== kind)) return false;
    job.controller.abort();
    return true;
  }

  get(sessionId: string): Job | undefined {
    return this.running.get(sessionId);
  }
}

/** The error a pipeline throws when its job was cancelled (manual compaction: SPEC §9.5 step 6). */
export function cancelled(message = "Compaction cancelled"): ApiFailure {
  return new ApiFailure("cancelled", message);
}

/**
 * Runs `fn` with a signal that follows `parent` and is aborted as soon as `fn` settles, so that
 * calls running in parallel (history and turn prefix) stop when one of them fails.
 */
export async function withAttemptSignal<T>(parent: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const attempt = new AbortController();
  const follow = () => attempt.abort();
  if (parent.aborted) attempt.abort();
  else parent.addEventListener("abort", follow, { once: true });
  try {
    return await fn(attempt.signal);
  } finally {
    parent.removeEventListener("abort", follow);
    attempt.abort();
  }
}
