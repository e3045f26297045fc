/**
 * Tells a compaction's or branch summary's hooks at work (job:hooks, and job:list meanwhile), so
 * that no window or terminal says it waits for a model while a hook runs or after one wrote the
 * summary; once they are done without a summary, the wait for the summarizer counts from then.
 */
import type { JobHooksDto } from "../../core/api/dto-jobs.ts";
import type { AppContext } from "../api/types.ts";
import type { Job } from "./jobs.ts";

function tell(ctx: AppContext, job: Job, hooks: JobHooksDto | null): void {
  job.hooks = hooks ?? undefined;
  // The wait counts from here: the hook's run, or (none gave a summary) the summarizer's request.
  job.requestAt = Date.now();
  ctx.events.emit("job:hooks", { jobId: job.id, sessionId: job.sessionId, hooks });
}

/** The handlers of `event` start (nothing is told when none is registered or the job is not announced). */
export function hooksRunning(ctx: AppContext, job: Job, event: JobHooksDto["event"]): void {
  if (!job.announced || !ctx.hooks.has(event)) return;
  // Told already as the job started (announced-job.ts: hooksFirst).
  if (job.hooks?.event === event && job.hooks.status === "running") return;
  tell(ctx, job, { event, files: ctx.hooks.filesFor(event), status: "running" });
}

/** A handler of `event` wrote the summary: no summarizer is asked. */
export function hookWroteSummary(ctx: AppContext, job: Job, event: JobHooksDto["event"]): void {
  if (!job.announced) return;
  tell(ctx, job, { event, files: ctx.hooks.filesFor(event), status: "wrote" });
}

/** The hooks are done without a summary: the summarizer is asked now (told only after hooks were). */
export function hooksDone(ctx: AppContext, job: Job): void {
  if (job.hooks === undefined) return;
  tell(ctx, job, null);
}
