// Shared helpers for the prepareCompaction tests: settings with a keep budget, a plan that must
// exist, its cut and message roles, and the context a compaction made from the plan would give.
import { prepareCompaction } from "../../../core/compaction/prepare.ts";
import { type CompactionPreparation, DEFAULT_COMPACTION_SETTINGS } from "../../../core/compaction/types.ts";
import { buildSessionContext } from "../../../core/session/context.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";

export const keep = (keepRecentTokens: number) => ({ ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens });

export function prepare(entries: SessionEntry[], keepRecentTokens: number): CompactionPreparation {
  const prep = prepareCompaction(entries, keep(keepRecentTokens));
  if (!prep) throw new Error("expected a preparation");
  return prep;
}

export function roles(prep: CompactionPreparation) {
  return {
    summarize: prep.messagesToSummarize.map((m) => m.role),
    prefix: prep.turnPrefixMessages.map((m) => m.role),
    recent: prep.recentMessages.map((m) => m.role),
  };
}

export function cutOf(prep: CompactionPreparation) {
  return { firstKept: prep.firstKeptEntryIndex, turnStart: prep.turnStartIndex, split: prep.isSplitTurn };
}

/** Appends the compaction a preparation would produce and returns the resulting context's entry ids. */
export function contextAfter(entries: SessionEntry[], prep: CompactionPreparation): (string | null)[] {
  const last = entries.at(-1)?.id ?? null;
  const next: SessionEntry = {
    type: "compaction",
    id: "new",
    parentId: last,
    timestamp: "2026-02-01T00:00:00.000Z",
    summary: prep.previousSummary ?? "new summary",
    firstKeptEntryId: prep.firstKeptEntryId,
    tokensBefore: prep.tokensBefore,
  };
  return buildSessionContext([...entries, next], "new").messageEntryIds;
}
