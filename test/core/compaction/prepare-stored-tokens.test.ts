// prepareCompaction with the library's stored per-entry estimates plans exactly as it does when it
// estimates every message itself (every tip of every tree fixture, several keep budgets).
import { describe, expect, it } from "vitest";
import { entryToCompactionMessage, prepareCompaction } from "../../../core/compaction/prepare.ts";
import { estimateTokens } from "../../../core/compaction/tokens.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../../../core/compaction/types.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { readFixture } from "../../helpers/fixtures.ts";

describe("prepareCompaction with stored estimates", () => {
  for (const file of ["tree-00.jsonl", "tree-01.jsonl", "tree-02.jsonl", "tree-03.jsonl"]) {
    it(`${file}: the same plan at every tip`, () => {
      const entries = parseSessionText(readFixture(file)).entries.map((line) => line.entry);
      const index = buildTreeIndex(entries);
      const stored = new Map<SessionEntry, number>();
      for (const entry of entries) {
        const message = entryToCompactionMessage(entry);
        stored.set(entry, message ? estimateTokens(message) : 0);
      }
      let compared = 0;
      for (const tip of index.tips()) {
        const path = index.pathTo(tip.id);
        for (const keep of [20000, 2000, 300]) {
          const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keep };
          const plain = prepareCompaction(path, settings);
          const withStored = prepareCompaction(path, settings, { tokensOf: (entry) => stored.get(entry) });
          expect(withStored).toEqual(plain);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }
});
