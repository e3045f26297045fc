/**
 * Handlers of the `pruning:` channels: plan, apply and restore (D9).
 */
import { applyPrune, planPrune, restorePruned } from "../../pipelines/pruning.ts";
import type { AreaHandlers } from "../types.ts";

export const pruningHandlers: AreaHandlers<"pruning"> = {
  "pruning:preview": (input, ctx) =>
    planPrune(ctx, input.sessionId, input.leafId, { listCandidates: input.listCandidates === true }),
  "pruning:apply": (input, ctx) => applyPrune(ctx, input.sessionId, input.leafId),
  "pruning:restore": (input, ctx) => restorePruned(ctx, input.sessionId),
};
