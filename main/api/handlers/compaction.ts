/**
 * Handlers of the `compaction:`, `navigation:` and `job:` channels: plans without model calls,
 * runs as abortable jobs (one per session) that every window hears start and end, their
 * cancellation, and the list of the jobs running (chat turns too).
 */
import type { RequestInput } from "../../../core/api/contract.ts";
import { listAnnounced, runAnnounced } from "../../pipelines/announced-job.ts";
import { checkShownPlan, previewCompaction, runCompaction } from "../../pipelines/compaction.ts";
import { navigate, navigationPreview } from "../../pipelines/navigation.ts";
import { invalidInput } from "../errors.ts";
import type { AreaHandlers } from "../types.ts";

export const compactionHandlers: AreaHandlers<"compaction"> = {
  "compaction:preview": (input, ctx) => previewCompaction(ctx, input),
  "compaction:run": (input, ctx) => {
    // A plan the window showed and the session or settings no longer give: refused before the
    // job is announced (other windows need not hear of it); the run checks again as it plans.
    if (input.shown) checkShownPlan(previewCompaction(ctx, input), input.shown);
    return runAnnounced(ctx, {
      sessionId: input.sessionId,
      kind: "compaction",
      announced: true,
      hooksFirst: "session_before_compact",
      run: (job) => runCompaction(ctx, input, job),
      outcomeOf: (result) => ({
        outcome: "done",
        entryId: result.entryId,
        ...(result.cutOff ? { cutOff: result.cutOff } : {}),
      }),
    });
  },
  "compaction:abort": (input, ctx) => ({ aborted: ctx.jobs.abort(input.sessionId, "compaction") }),
};

/**
 * Instructions only shape a branch summary: without one asked for they were ignored and the move
 * made all the same. Refused for every transport, as the CLI refuses them (before anything moves).
 */
function refuseUnusedInstructions(input: RequestInput<"navigation:navigate">): void {
  if (input.summarize !== true && input.customInstructions !== undefined)
    throw invalidInput(
      "Custom instructions are for the branch summary: ask for one (summarize: true) or leave them out; nothing moved",
    );
  if (input.replacePrompt === true && (input.summarize !== true || input.customInstructions === undefined))
    throw invalidInput(
      "replacePrompt uses the custom instructions instead of the branch-summary prompt: it needs summarize: true and customInstructions; nothing moved",
    );
}

export const navigationHandlers: AreaHandlers<"navigation"> = {
  "navigation:preview": (input, ctx) => navigationPreview(ctx, input.sessionId, input.targetId),
  "navigation:navigate": (input, ctx) => {
    refuseUnusedInstructions(input);
    return runAnnounced(ctx, {
      sessionId: input.sessionId,
      kind: "branch-summary",
      // Only a summary is worth showing in every window; a plain move is over at once.
      announced: input.summarize === true,
      ...(input.summarize === true ? { hooksFirst: "session_before_tree" as const } : {}),
      asked: {
        targetId: input.targetId,
        ...(input.customInstructions === undefined ? {} : { customInstructions: input.customInstructions }),
        ...(input.replacePrompt === true ? { replacePrompt: true } : {}),
      },
      run: (job) => navigate(ctx, input, job),
      outcomeOf: (result) =>
        result.cancelled
          ? { outcome: "cancelled", entryId: null }
          : {
              outcome: "done",
              entryId: result.summaryEntryId,
              ...(result.cutOff ? { cutOff: result.cutOff } : {}),
            },
    });
  },
  "navigation:abort": (input, ctx) => ({ aborted: ctx.jobs.abort(input.sessionId, "branch-summary") }),
};

export const jobHandlers: AreaHandlers<"job"> = {
  "job:list": (_input, ctx) => listAnnounced(ctx),
};
