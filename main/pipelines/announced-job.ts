/**
 * Runs a manual compaction or branch summary as the session's job, told to every client:
 * job:started once it holds the session, job:ended (done, cancelled or failed) once it has let
 * go of it, so that any window shows it running, can cancel it and hears it end.
 */
import type { JobEndedDto, JobOutcome, SummaryJobKind } from "../../core/api/dto-jobs.ts";
import { toApiError } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Job } from "./jobs.ts";

/** How a run that returned ended: done (with the entry it appended, if any) or cancelled. */
export type OutcomeOf<T> = (result: T) => { outcome: Exclude<JobOutcome, "failed">; entryId: string | null };

export interface AnnouncedRun<T> {
  sessionId: string;
  kind: SummaryJobKind;
  /** False: held as the session's job like any other, but not told (a navigation without a summary). */
  announced: boolean;
  run: (job: Job) => Promise<T>;
  outcomeOf: OutcomeOf<T>;
}

export async function runAnnounced<T>(ctx: AppContext, options: AnnouncedRun<T>): Promise<T> {
  const { sessionId, kind, announced } = options;
  const job = ctx.jobs.start(sessionId, kind, { announced });
  const running = { jobId: job.id, sessionId, kind };
  if (announced) ctx.events.emit("job:started", running);
  let ended: JobEndedDto = { ...running, outcome: "failed", entryId: null };
  try {
    const result = await options.run(job);
    ended = { ...running, ...options.outcomeOf(result) };
    return result;
  } catch (error) {
    const failure = toApiError(error);
    ended =
      failure.code === "cancelled"
        ? { ...running, outcome: "cancelled", entryId: null }
        : { ...running, outcome: "failed", entryId: null, errorMessage: failure.message };
    throw error;
  } finally {
    // Let go first: a window that starts another job when it hears this one end is not refused.
    ctx.jobs.finish(job);
    if (announced) ctx.events.emit("job:ended", ended);
  }
}
