/**
 * Runs a chat turn, manual compaction or branch summary as the session's job, told to every
 * client: job:started once it holds the session, job:ended (done, cancelled or failed) once it
 * has let go of it, and listed meanwhile with the text it streamed so far (and a chat turn's
 * automatic compaction), so that any window shows it running, can cancel it and hears it end.
 */
import type {
  ChatJobPrompt,
  JobEndedDto,
  JobHooksDto,
  JobKind,
  JobOutcome,
  ListedJobDto,
  RunningJobDto,
} from "../../core/api/dto-jobs.ts";
import { toApiError } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Job } from "./jobs.ts";

/** How a run that returned ended: done (with the entry it appended, if any) or cancelled. */
export type OutcomeOf<T> = (
  result: T,
) => { outcome: Exclude<JobOutcome, "failed">; entryId: string | null } & Pick<JobEndedDto, "turn" | "cutOff">;

export interface AnnouncedRun<T> {
  sessionId: string;
  kind: JobKind;
  /** False: held as the session's job like any other, but not told (a navigation without a summary). */
  announced: boolean;
  /** A chat turn: the message it answers. */
  chat?: ChatJobPrompt;
  /**
   * A compaction or branch summary: the hook event it runs first; when handlers are registered
   * for it, job:started says so (job-hooks.ts tells what follows), so no window shows a wait for
   * a model meanwhile.
   */
  hooksFirst?: JobHooksDto["event"];
  run: (job: Job) => Promise<T>;
  outcomeOf: OutcomeOf<T>;
  /** A branch summary: the move asked for, told with a failure (any window's Retry asks it again). */
  asked?: JobEndedDto["asked"];
}

/** The job as job:ended names it (job:started and job:list add its hooks at work, if any). */
function runningOf(job: Job): RunningJobDto {
  return { jobId: job.id, sessionId: job.sessionId, kind: job.kind, ...(job.chat ? { chat: job.chat } : {}) };
}

function hooksOf(job: Job): Pick<RunningJobDto, "hooks"> {
  return job.hooks ? { hooks: { ...job.hooks, files: [...job.hooks.files] } } : {};
}

/**
 * The announced jobs running now, each with the text it streamed so far and, for a chat turn,
 * its automatic compaction (job:list).
 */
export function listAnnounced(ctx: AppContext): ListedJobDto[] {
  return ctx.jobs.announcedJobs().map((job) => ({
    ...runningOf(job),
    text: job.text,
    requestAgeMs: Date.now() - job.requestAt,
    ...(job.autoCompaction ? { autoCompaction: { ...job.autoCompaction } } : {}),
    ...hooksOf(job),
  }));
}

export async function runAnnounced<T>(ctx: AppContext, options: AnnouncedRun<T>): Promise<T> {
  const { sessionId, kind, announced } = options;
  const job = ctx.jobs.start(sessionId, kind, { announced, ...(options.chat ? { chat: options.chat } : {}) });
  const running = runningOf(job);
  const first = options.hooksFirst;
  if (announced && first !== undefined && ctx.hooks.has(first))
    job.hooks = { event: first, files: ctx.hooks.filesFor(first), status: "running" };
  if (announced) ctx.events.emit("job:started", { ...running, ...hooksOf(job) });
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
        : {
            ...running,
            outcome: "failed",
            entryId: null,
            errorMessage: failure.message,
            errorCode: failure.code,
            ...(options.asked ? { asked: options.asked } : {}),
          };
    throw error;
  } finally {
    // Let go first: a window that starts another job when it hears this one end is not refused.
    ctx.jobs.finish(job);
    if (announced) ctx.events.emit("job:ended", ended);
  }
}
