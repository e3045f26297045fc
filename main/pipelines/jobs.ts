/**
 * Running long jobs (chat turns, compactions, branch summaries) per session, so that a second
 * request can abort them (SPEC §9.6) and a session never runs two at once. A job may run inside
 * another (the automatic compaction of a chat turn): aborting the outer one aborts the inner.
 */
import { randomUUID } from "node:crypto";
import type { ChatAutoCompactionDto, ChatJobPrompt, JobHooksDto, JobKind } from "../../core/api/dto-jobs.ts";
import { ApiFailure } from "../api/errors.ts";

export type { JobKind } from "../../core/api/dto-jobs.ts";

export interface Job {
  id: string;
  sessionId: string;
  kind: JobKind;
  controller: AbortController;
  /** The job this one runs inside (its abort reaches this one), if any. */
  parent?: Job | undefined;
  /** Told to every client as it starts and ends, and listed by `announcedJobs()` meanwhile. */
  announced: boolean;
  /** A chat turn: the message it answers (listed with it). */
  chat?: ChatJobPrompt | undefined;
  /**
   * The text it streamed so far (a summary, a reply; "" again when a request is retried), kept
   * by whoever streams it so that a client that opens meanwhile is listed it.
   */
  text: string;
  /** When its current request was (or, a retry, will be) sent: Date.now() ms (listed as its age). */
  requestAt: number;
  /** A chat turn: its automatic compaction, running or how the latest one ended (listed with it). */
  autoCompaction?: ChatAutoCompactionDto | undefined;
  /** A compaction or branch summary: its hooks at work, before (or instead of) the summarizer (job-hooks.ts). */
  hooks?: JobHooksDto | undefined;
}

export class JobRegistry {
  /** The innermost running job of each session; outer ones are reached through `parent`. */
  private readonly running = new Map<string, Job>();

  /**
   * Starts a job for the session; refuses when one is already running there, unless it is
   * started `within` the session's running job (the job's signal then follows that one's).
   */
  start(
    sessionId: string,
    kind: JobKind,
    options: { within?: Job | undefined; announced?: boolean; chat?: ChatJobPrompt } = {},
  ): Job {
    const existing = this.running.get(sessionId);
    const parent = options.within;
    if (existing && existing !== parent) {
      throw new ApiFailure(
        "conflict",
        `A ${existing.kind === "chat" ? "chat turn" : existing.kind} is already running for this session; wait for it or cancel it first`,
      );
    }
    const job: Job = {
      id: randomUUID(),
      sessionId,
      kind,
      controller: new AbortController(),
      parent,
      announced: options.announced === true,
      chat: options.chat,
      text: "",
      requestAt: Date.now(),
    };
    if (parent) {
      const follow = () => job.controller.abort();
      if (parent.controller.signal.aborted) job.controller.abort();
      else parent.controller.signal.addEventListener("abort", follow, { once: true });
    }
    this.running.set(sessionId, job);
    return job;
  }

  /** Ends a job; the job it ran inside (if any) becomes the running one again. */
  finish(job: Job): void {
    if (this.running.get(job.sessionId) !== job) return;
    if (job.parent) this.running.set(job.sessionId, job.parent);
    else this.running.delete(job.sessionId);
  }

  /** Aborts the session's running job of that kind, inner or outer (any kind when omitted). */
  abort(sessionId: string, kind?: JobKind): boolean {
    for (let job = this.running.get(sessionId); job; job = job.parent) {
      if (kind && job.kind !== kind) continue;
      job.controller.abort();
      return true;
    }
    return false;
  }

  get(sessionId: string): Job | undefined {
    return this.running.get(sessionId);
  }

  /** The announced jobs running now (inner or outer), in the order their sessions started one. */
  announcedJobs(): Job[] {
    const jobs: Job[] = [];
    for (const innermost of this.running.values()) {
      for (let job: Job | undefined = innermost; job; job = job.parent) if (job.announced) jobs.push(job);
    }
    return jobs;
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
