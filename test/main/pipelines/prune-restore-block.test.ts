// Restoring pruned tool outputs whose originals are their blocks' texts (SPEC §7.1 with D9): the
// entries read their blocks again, as an import left them — no copy of any original is written
// into entry_json (it held every restored output, ~87 MB on the generated 100k session, and the
// next prune copied those again into original_json) — while what is read of them stays as it was:
// every row's JSON and token estimate, the tool facts a check had read, the usage totals, the plan.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import { requireSession } from "../../../main/library/load.ts";
import { applyPrune, planPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { listEntryRows } from "../../../main/store/repos/entries.ts";
import { createHarness, type Harness, importText, removeDir } from "./harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

describe("restoring pruned outputs kept in their blocks", () => {
  it("leaves no entry_json row, and everything read of the session as before the prune", async () => {
    const { text } = generateSession(3000, { seed: 7 });
    const sessionId = await importText(h, text, "restore-block");
    const db = h.api.ctx.db;
    const { sid } = requireSession(db, sessionId);
    const rows = () =>
      listEntryRows(db, sid).map((row) => ({
        id: row.id,
        tokens: row.tokens,
        json: row.json,
        original: row.original_json,
      }));
    const facts = () => db.prepare("SELECT pk, pruned, tool_name FROM tool_facts ORDER BY pk").raw().all();
    const jsonRows = () => db.prepare("SELECT count(*) FROM entry_json").pluck().get();
    const plan = planPrune(h.api.ctx, sessionId); // fills the tool facts
    expect(plan.willPrune).toBe(true);
    const before = { rows: rows(), facts: facts(), usage: await h.call("session:usage", { sessionId }) };
    expect(jsonRows()).toBe(0);

    for (let round = 0; round < 2; round++) {
      const pruned = applyPrune(h.api.ctx, sessionId);
      expect(pruned.prunedCount).toBe(plan.candidateCount);
      // The originals stay in their blocks: the prune wrote only the notices.
      expect(db.prepare("SELECT count(*) FROM entry_json WHERE original_in_block = 1").pluck().get()).toBe(
        pruned.prunedCount,
      );
      expect(restorePruned(h.api.ctx, sessionId).prunedCount).toBe(pruned.prunedCount);
      expect(jsonRows()).toBe(0);
      expect(rows()).toEqual(before.rows);
      expect(facts()).toEqual(before.facts);
      expect(await h.call("session:usage", { sessionId })).toEqual(before.usage);
      expect(planPrune(h.api.ctx, sessionId)).toEqual(plan);
    }
  });
});
