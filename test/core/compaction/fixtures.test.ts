// Compaction and pruning planning over every tip of the session fixtures: never throws, the
// first kept entry is on the path, the partitions are disjoint and (D5) cover the whole current
// LLM view, and the D10 estimate equals the estimate of buildSessionContext's messages.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collectEntriesForBranchSummary, prepareBranchEntries } from "../../../core/compaction/branch.ts";
import { compactionPlanReason, prepareCompaction } from "../../../core/compaction/prepare.ts";
import { planPruning } from "../../../core/compaction/pruning.ts";
import { estimateTokens } from "../../../core/compaction/tokens.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../../../core/compaction/types.ts";
import { buildSessionContext } from "../../../core/session/context.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { fixturesDir, readFixture } from "../../helpers/fixtures.ts";

const files = readdirSync(fixturesDir())
  .filter((f) => /^tree-0.*\.jsonl$/.test(f) || /^real-.*\.jsonl$/.test(f))
  .sort();

const KEEPS = [DEFAULT_COMPACTION_SETTINGS.keepRecentTokens, 5000, 800, 50, 1];

function appendCompaction(entries: SessionEntry[], leafId: string, firstKeptEntryId: string): SessionEntry[] {
  const next: SessionEntry = {
    type: "compaction",
    id: "__new__",
    parentId: leafId,
    timestamp: "2030-01-01T00:00:00.000Z",
    summary: "new",
    firstKeptEntryId,
    tokensBefore: 0,
  };
  return [...entries, next];
}

describe("planning over every fixture tip", () => {
  it("finds the fixtures", () => {
    expect(files.filter((f) => f.startsWith("tree-0")).length).toBeGreaterThanOrEqual(5);
  });

  for (const file of files) {
    it(`${file}: prepareCompaction and planPruning hold their invariants at every tip`, () => {
      const entries = parseSessionText(readFixture(file)).entries.map((e) => e.entry);
      const index = buildTreeIndex(entries);
      const tips = index.tips();
      expect(tips.length).toBeGreaterThan(0);
      let plans = 0;
      for (const tip of tips) {
        const path = index.pathTo(tip.id);
        const context = buildSessionContext(entries, tip.id, index);
        const viewEstimate = context.messages.reduce((sum, m) => sum + estimateTokens(m), 0);
        const viewIds = context.messageEntryIds.filter((id) => id !== context.compaction?.id);
        for (const keepRecentTokens of KEEPS) {
          const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens };
          const prep = prepareCompaction(path, settings);
          const where = `${file} tip ${tip.id} keep ${keepRecentTokens}`;
          if (prep === undefined) {
            expect(path.at(-1)?.type, where).toBe("compaction");
            expect(compactionPlanReason(path, settings), where).toBe("Already compacted");
            continue;
          }
          plans++;
          expect(path[prep.firstKeptEntryIndex]?.id, where).toBe(prep.firstKeptEntryId);
          const all = [...prep.summarizeEntryIds, ...prep.turnPrefixEntryIds, ...prep.keptEntryIds];
          expect(new Set(all).size, where).toBe(all.length);
          expect(prep.isSplitTurn, where).toBe(prep.turnPrefixEntryIds.length > 0);
          // D5: nothing the model currently sees is silently dropped.
          const inView = new Set(viewIds);
          expect(
            all.filter((id) => inView.has(id)),
            where,
          ).toEqual(viewIds);
          expect(prep.tokensBeforeEstimated, where).toBe(viewEstimate);
          // The compaction this plan describes keeps exactly the kept entries.
          const after = buildSessionContext(
            appendCompaction(entries, tip.id, prep.firstKeptEntryId),
            "__new__",
          );
          const kept = new Set<string | null>(prep.keptEntryIds);
          expect(after.messageEntryIds.slice(1), where).toEqual(viewIds.filter((id) => kept.has(id)));
        }
        const pruning = planPruning(path);
        for (const candidate of pruning.candidates) {
          const entry = index.byId.get(candidate.entryId);
          expect((entry as { message?: { role?: string } } | undefined)?.message?.role).toBe("toolResult");
        }
        const other = tips[0];
        if (other !== undefined) {
          const collected = collectEntriesForBranchSummary(index, tip.id, other.id);
          prepareBranchEntries(collected.entries, 2000);
        }
      }
      expect(plans).toBeGreaterThan(0);
    });
  }
});
