/**
 * Tool-output pruning as an explicit, reversible action (SPEC §7 with D9): plan over the active
 * path, apply by replacing each pruned tool result with its notice while the original JSON stays
 * in the library, and restore the originals on request. The LLM view shows the notice.
 */
import type { PrunePlanDto, PruneResultDto } from "../../core/api/dto.ts";
import { applyPruningToMessage, planPruning } from "../../core/compaction/pruning.ts";
import type { MessageEntry, SessionEntry, ToolResultMessage } from "../../core/session/entries.ts";
import type { AppContext } from "../api/types.ts";
import { entryTokens } from "../library/entry-rows.ts";
import { requireSession } from "../library/load.ts";
import { refreshSessionStats } from "../library/stats.ts";
import { listPrunedEntryRows, replaceEntryJson, restoreEntryJson } from "../store/repos/entry-json.ts";
import { writeTransaction } from "../store/transactions.ts";
import { loadSessionState } from "./session-state.ts";

export function planPrune(ctx: AppContext, sessionId: string, leafId?: string | null): PrunePlanDto {
  const state = loadSessionState(ctx.db, sessionId, leafId);
  const plan = planPruning(state.path);
  const candidates = plan.candidates.map((candidate) => {
    const entry = state.index.byId.get(candidate.entryId) as MessageEntry | undefined;
    const toolName = (entry?.message as ToolResultMessage | undefined)?.toolName ?? "?";
    return { entryId: candidate.entryId, toolName, tokens: candidate.tokens };
  });
  let reason: string | null = null;
  if (candidates.length === 0) reason = "No tool output is old enough to prune (the newest 40,000 tokens are protected).";
  else if (!plan.willPrune) {
    // tokensSaved is 0 when nothing would be pruned; the reason needs what the candidates save.
    reason = `Pruning would save only ${plan.candidateSavings} tokens (at least 20,000 are needed).`;
  }
  return {
    sessionId,
    leafId: state.leafId,
    candidates,
    tokensSaved: plan.candidateSavings,
    willPrune: plan.willPrune,
    reason,
  };
}

export function applyPrune(ctx: AppContext, sessionId: string, leafId?: string | null): PruneResultDto {
  const state = loadSessionState(ctx.db, sessionId, leafId);
  const plan = planPruning(state.path);
  if (!plan.willPrune) return { sessionId, prunedCount: 0, tokensSaved: 0, prunedEntryIds: [] };
  const prunedAt = Date.now();
  const { sid } = requireSession(ctx.db, sessionId);
  writeTransaction(ctx.db, () => {
    for (const candidate of plan.candidates) {
      const entry = state.index.byId.get(candidate.entryId) as MessageEntry | undefined;
      if (entry?.message.role !== "toolResult") continue;
      const pruned: MessageEntry = { ...entry, message: applyPruningToMessage(entry.message, candidate.tokens, prunedAt) };
      replaceEntryJson(ctx.db, sid, candidate.entryId, JSON.stringify(pruned), entryTokens(pruned));
    }
    refreshSessionStats(ctx.db, { sid, id: sessionId });
  })();
  ctx.events.emit("session:changed", { sessionId, viewLeafId: state.viewLeafId });
  return {
    sessionId,
    prunedCount: plan.candidates.length,
    tokensSaved: plan.tokensSaved,
    prunedEntryIds: plan.candidates.map((candidate) => candidate.entryId),
  };
}

/** Puts every pruned tool output of the session back (D9: pruning never destroys data). */
export function restorePruned(ctx: AppContext, sessionId: string): PruneResultDto {
  const { sid } = requireSession(ctx.db, sessionId);
  const rows = listPrunedEntryRows(ctx.db, sid);
  writeTransaction(ctx.db, () => {
    for (const row of rows) restoreEntryJson(ctx.db, row.pk, entryTokens(JSON.parse(row.originalJson) as SessionEntry));
    refreshSessionStats(ctx.db, { sid, id: sessionId });
  })();
  const ids = rows.map((row) => row.id);
  const viewLeafId = loadSessionState(ctx.db, sessionId).viewLeafId;
  ctx.events.emit("session:changed", { sessionId, viewLeafId });
  return { sessionId, prunedCount: ids.length, tokensSaved: 0, prunedEntryIds: ids };
}
