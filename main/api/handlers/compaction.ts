/**
 * Handlers of the `compaction:` and `navigation:` channels: plans without model calls, runs as
 * abortable jobs (one per session), and their cancellation.
 */
import { planCompaction, runCompaction } from "../../pipelines/compaction.ts";
import type { JobKind } from "../../pipelines/jobs.ts";
import { navigate, navigationPreview } from "../../pipelines/navigation.ts";
import type { AppContext, AreaHandlers } from "../types.ts";

async function asJob<T>(ctx: AppContext, sessionId: string, kind: JobKind, run: (job: ReturnType<AppContext["jobs"]["start"]>) => Promise<T>): Promise<T> {
  const job = ctx.jobs.start(sessionId, kind);
  try {
    return await run(job);
  } finally {
    ctx.jobs.finish(job);
  }
}

export const compactionHandlers: AreaHandlers<"compaction"> = {
  "compaction:preview": (input, ctx) => planCompaction(ctx, input).plan,
  "compaction:run": (input, ctx) => asJob(ctx, input.sessionId, "compaction", (job) => runCompaction(ctx, input, job)),
  "compaction:abort": (input, ctx) => ({ aborted: ctx.jobs.abort(input.sessionId, "compaction") }),
};

export const navigationHandlers: AreaHandlers<"navigation"> = {
  "navigation:preview": (input, ctx) => navigationPreview(ctx, input.sessionId, input.targetId),
  "navigation:navigate": (input, ctx) =>
    asJob(ctx, input.sessionId, "branch-summary", (job) => navigate(ctx, input, job)),
  "navigation:abort": (input, ctx) => ({ aborted: ctx.jobs.abort(input.sessionId, "branch-summary") }),
};
