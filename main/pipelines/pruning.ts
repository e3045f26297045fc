/**
 * Tool-output pruning as an explicit, reversible action (SPEC §7 with D9): plan over the active
 * path, apply by replacing each pruned tool result with its notice while the original JSON stays
 * in the library, and restore the originals on request. The LLM view shows the notice.
 */
import type { PrunePlanDto, PruneResultDto } from "../../core/api/dto.ts";
import {
  applyPruningToMessage,
  DEFAULT_PRUNING,
  type PruningConfig,
  type PruningPlan,
  planPruning,
  planPruningOf,
} from "../../core/compaction/pruning.ts";
import type { MessageEntry, SessionEntry, ToolResultMessage } from "../../core/session/entries.ts";
import { counted } from "../../core/session/describe.ts";
import type { AppContext } from "../api/types.ts";
import { entryTokens } from "../library/entry-rows.ts";
import { getViewLeaf, requireSession } from "../library/load.ts";
import { refreshSessionStats } from "../library/stats.ts";
import { entryJsonByPk } from "../store/repos/entries.ts";
import {
  type EntryRestore,
  entryJsonWithoutByPk,
  type JsonReplacement,
  listPrunedEntryRows,
  replaceEntryJson,
  replaceEntryJsonByPk,
  restoreEntryJsonByPk,
} from "../store/repos/entry-json.ts";
import { writeTransaction } from "../store/transactions.ts";
import { loadSessionState } from "./session-state.ts";
import { loadToolOutputs } from "./tool-outputs.ts";
import { toJson } from "../../core/text/json-deep.ts";

/**
 * UNCHANGED_STATS: pruning and restoring rewrite only the message of tool-result entries (same
 * id, parent, type, role and line). The session's cached figures (stats.ts) come from those
 * structural columns and from the JSON of the first user message, session_info and compaction
 * entries and of roots, none of which is a tool result: so they are not recomputed here (that
 * scanned every row and parsed every compaction on each prune and restore of a long session).
 */
interface PlannedPrune {
  viewLeafId: string | null;
  leafId: string | null;
  plan: PruningPlan;
  toolNameOf(entryId: string): unknown;
  /**
   * The candidates' entries as stored now, by id; a tool result's `content` may be a placeholder
   * (pruning replaces it, so the fast route never reads it).
   */
  candidateEntries(): Map<string, SessionEntry>;
  /** Stores the pruned entries (inside the caller's transaction), keeping the originals (D9). */
  write(sid: number, pruned: readonly { entryId: string; json: string; tokens: number }[]): void;
}

/** Where pruning cuts a tool result: everything else of the entry is kept as it is. */
const OUTPUT_PATH = "$.message.content";

/**
 * The candidates' entries without their outputs: SQLite cuts `message.content` out of each text
 * (entryJsonWithoutByPk), so JS parses a few hundred bytes per output instead of the output; a
 * text SQLite cannot read is parsed whole.
 */
function entriesWithoutOutput(ctx: AppContext, pks: readonly number[]): SessionEntry[] {
  const cut = entryJsonWithoutByPk(ctx.db, pks, OUTPUT_PATH);
  const whole = cut.flatMap((json, i) => (json === null ? [pks[i] as number] : []));
  const wholeJson = whole.length === 0 ? [] : entryJsonByPk(ctx.db, whole);
  let next = 0;
  return cut.map((json) => JSON.parse(json ?? (wholeJson[next++] as string)) as SessionEntry);
}

/**
 * The plan for a leaf: from the path's tool results alone (tool-outputs.ts), or, for a session
 * with tree problems, from the whole session.
 */
function planFor(
  ctx: AppContext,
  sessionId: string,
  leafId: string | null | undefined,
  config: PruningConfig,
): PlannedPrune {
  const read = loadToolOutputs(ctx.db, sessionId, leafId);
  if (read !== null) {
    const plan = planPruningOf(read.outputs, config);
    // Built when first asked (the preview's candidates), not for every check.
    let toolNames: Map<string | undefined, unknown> | undefined;
    return {
      viewLeafId: read.viewLeafId,
      leafId: read.leafId,
      plan,
      toolNameOf: (entryId) => {
        toolNames ??= new Map(read.outputs.map((output) => [output.entryId, output.toolName]));
        return toolNames.get(entryId);
      },
      candidateEntries: () => {
        const ids = plan.candidates.map((candidate) => candidate.entryId);
        const entries = entriesWithoutOutput(
          ctx,
          ids.map((id) => read.pkOf(id) as number),
        );
        return new Map(entries.map((entry, i) => [ids[i] as string, entry]));
      },
      // The path's own rows (the session has no duplicate ids: loadToolOutputs said so).
      write: (_sid, pruned) =>
        replaceEntryJsonByPk(
          ctx.db,
          pruned.map((row): JsonReplacement => ({ pk: read.pkOf(row.entryId) as number, json: row.json, tokens: row.tokens })),
        ),
    };
  }
  const state = loadSessionState(ctx.db, sessionId, leafId);
  const message = (entryId: string) =>
    (state.index.byId.get(entryId) as MessageEntry | undefined)?.message as ToolResultMessage | undefined;
  const plan = planPruning(state.path, config);
  return {
    viewLeafId: state.viewLeafId,
    leafId: state.leafId,
    plan,
    toolNameOf: (entryId) => message(entryId)?.toolName,
    candidateEntries: () =>
      new Map(plan.candidates.map((candidate) => [candidate.entryId, state.index.byId.get(candidate.entryId) as SessionEntry])),
    write: (sid, pruned) => {
      for (const row of pruned) replaceEntryJson(ctx.db, sid, row.entryId, row.json, row.tokens);
    },
  };
}

/** What a plan shows besides its counts: each candidate (`listCandidates`; default: only counts by tool). */
export interface PlanPruneOptions {
  listCandidates?: boolean;
}

export function planPrune(
  ctx: AppContext,
  sessionId: string,
  leafId?: string | null,
  options: PlanPruneOptions = {},
): PrunePlanDto {
  const { plan, toolNameOf, leafId: leaf } = planFor(ctx, sessionId, leafId, DEFAULT_PRUNING);
  const toolNames = plan.candidates.map(
    (candidate) => (toolNameOf(candidate.entryId) as string | undefined) ?? "?",
  );
  // In path order of each tool's first candidate; the stable sort keeps that order for ties.
  const byTool = new Map<string, number>();
  for (const toolName of toolNames) byTool.set(toolName, (byTool.get(toolName) ?? 0) + 1);
  const tools = [...byTool]
    .map(([toolName, count]) => ({ toolName, count }))
    .sort((a, b) => b.count - a.count);
  const candidates = plan.candidates;
  let reason: string | null = null;
  if (candidates.length === 0 && plan.alreadyPruned > 0) {
    reason = `Nothing more to prune: ${counted(plan.alreadyPruned, "tool output")} on this path ${plan.alreadyPruned === 1 ? "is" : "are"} pruned already, and the newest 40,000 tokens are protected.`;
  } else if (candidates.length === 0) reason = "No tool output is old enough to prune (the newest 40,000 tokens are protected).";
  else if (!plan.willPrune) {
    // tokensSaved is 0 when nothing would be pruned; the reason needs what the candidates save.
    reason = `Pruning would save only ${plan.candidateSavings} tokens (at least 20,000 are needed).`;
  }
  return {
    sessionId,
    leafId: leaf,
    candidateCount: candidates.length,
    tools,
    ...(options.listCandidates
      ? {
          candidates: candidates.map((candidate, i) => ({
            entryId: candidate.entryId,
            toolName: toolNames[i] as string,
            tokens: candidate.tokens,
          })),
        }
      : {}),
    tokensSaved: plan.candidateSavings,
    willPrune: plan.willPrune,
    alreadyPruned: plan.alreadyPruned,
    reason,
  };
}

/** Prunes the leaf's path (default: the view leaf's) by `config` (tests use a smaller rule). */
export function applyPrune(
  ctx: AppContext,
  sessionId: string,
  leafId?: string | null,
  config: PruningConfig = DEFAULT_PRUNING,
): PruneResultDto {
  // Planned under the write lock: rows read before it could be changed meanwhile by another
  // connection (the import runner's thread storing an agent's new lines, a CLI's prune or
  // restore), and the prune would act on what they were.
  const done = writeTransaction(ctx.db, () => {
    const planned = planFor(ctx, sessionId, leafId, config);
    const { plan } = planned;
    if (!plan.willPrune) return null;
    const entries = planned.candidateEntries();
    const prunedAt = Date.now();
    const { sid } = requireSession(ctx.db, sessionId);
    const rows: { entryId: string; json: string; tokens: number }[] = [];
    for (const candidate of plan.candidates) {
      const entry = entries.get(candidate.entryId) as MessageEntry | undefined;
      if (entry?.message.role !== "toolResult") continue;
      const pruned: MessageEntry = { ...entry, message: applyPruningToMessage(entry.message, candidate.tokens, prunedAt) };
      rows.push({ entryId: candidate.entryId, json: toJson(pruned), tokens: entryTokens(pruned) });
    }
    // No cached figure of the session (stats.ts) can change: see UNCHANGED_STATS.
    planned.write(sid, rows);
    return planned;
  })();
  if (done === null) return { sessionId, prunedCount: 0, tokensSaved: 0 };
  const { plan } = done;
  ctx.events.emit("session:changed", { sessionId, viewLeafId: done.viewLeafId });
  return {
    sessionId,
    prunedCount: plan.candidates.length,
    tokensSaved: plan.tokensSaved,
  };
}

/** Puts every pruned tool output of the session back (D9: pruning never destroys data). */
export function restorePruned(ctx: AppContext, sessionId: string): PruneResultDto {
  // The pruned rows are read under the write lock: one pruned by another connection just before
  // it (a CLI's prune) is restored too, one it restored is not counted again.
  const count = writeTransaction(ctx.db, () => {
    const { sid } = requireSession(ctx.db, sessionId);
    const rows = listPrunedEntryRows(ctx.db, sid);
    let toolResultsOnly = true;
    const restores = rows.map((row): EntryRestore => {
      const original = JSON.parse(row.originalJson) as SessionEntry;
      if (original.type !== "message" || (original as MessageEntry).message?.role !== "toolResult") toolResultsOnly = false;
      return { pk: row.pk, tokens: entryTokens(original), readable: row.readable };
    });
    restoreEntryJsonByPk(ctx.db, restores);
    // UNCHANGED_STATS holds for tool results; anything else (a hand-written prunedAt) is recounted.
    if (!toolResultsOnly) refreshSessionStats(ctx.db, { sid, id: sessionId });
    return rows.length;
  })();
  // From the session's row: parsing every entry for it took seconds on a long session.
  const viewLeafId = getViewLeaf(ctx.db, sessionId);
  ctx.events.emit("session:changed", { sessionId, viewLeafId });
  return { sessionId, prunedCount: count, tokensSaved: 0 };
}
