// Pruning and restoring rewrite tool results only: on a long session they parse the outputs they
// change, not every compaction and root again to recount the session's cached figures (which
// cannot change), and those figures stay exactly what a full recount gives. The first prune hands
// JS no tool output (SQLite cuts each one out; the original stays in its block) and writes each
// pruned output once; a second one, with nothing left to prune, reads no entry into JS and writes
// nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { computeSessionStats } from "../../../main/library/stats.ts";
import { requireSession } from "../../../main/library/load.ts";
import { createHarness, type Harness, readsDuring, removeDir, SessionFile, sized } from "./harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  vi.restoreAllMocks();
  h.close();
  removeDir(h.dir);
});

const TURNS = 120;

/** Turns of user → tool call → 2,000-token output → reply, a compaction (no shortSummary) every other turn. */
function longSession(): SessionFile {
  const file = new SessionFile();
  for (let i = 0; i < TURNS; i++) {
    file
      .user(`u${i}`, `question ${i}`)
      .assistant(`c${i}`, "", { calls: [{ name: "bash", args: { command: `ls ${i}` }, id: `call${i}` }] })
      .toolResult(`t${i}`, sized(`output ${i}`, 2000), "bash", `call${i}`)
      .assistant(`a${i}`, `answer ${i}`);
    if (i % 2 === 1) file.compaction(`k${i}`, { summary: `summary ${i}`, firstKeptEntryId: `u${i}` });
  }
  return file;
}

function parses<T>(run: () => Promise<T>): Promise<{ value: T; parsed: number }> {
  const spy = vi.spyOn(JSON, "parse");
  return run().then(
    (value) => {
      const parsed = spy.mock.calls.length;
      spy.mockRestore();
      return { value, parsed };
    },
    (error: unknown) => {
      spy.mockRestore();
      throw error;
    },
  );
}

describe("pruning on a long session", () => {
  it("parses the outputs it changes, and the cached figures stay those of a full recount", async () => {
    const sessionId = await h.importSession(longSession());
    const before = (await h.call("session:get", { sessionId })).summary;
    const recount = () => computeSessionStats(h.api.ctx.db, requireSession(h.api.ctx.db, sessionId).sid).patch;

    const pruned = await parses(() => h.call("pruning:apply", { sessionId }));
    expect(pruned.value.prunedCount).toBeGreaterThan(80);
    // Its own reads: the tool name of each of the 120 outputs, each candidate, settings (a recount
    // of the cached figures parsed the 60 compactions on top).
    expect(pruned.parsed).toBeLessThan(TURNS + pruned.value.prunedCount + 15);
    expect((await h.call("session:get", { sessionId })).summary).toEqual(before);
    expect(requireSession(h.api.ctx.db, sessionId)).toMatchObject(recount());

    const restored = await parses(() => h.call("pruning:restore", { sessionId }));
    expect(restored.value.prunedCount).toBe(pruned.value.prunedCount);
    expect(restored.parsed).toBeLessThan(restored.value.prunedCount + 15);
    expect((await h.call("session:get", { sessionId })).summary).toEqual(before);
    expect(requireSession(h.api.ctx.db, sessionId)).toMatchObject(recount());
  });

  it("the first prune reads no output into JS and writes each pruned one once; the second writes nothing", async () => {
    const sessionId = await h.importSession(longSession());
    const { db } = h.api.ctx;
    const entries = TURNS * 4 + TURNS / 2;
    let prunedCount = 0;
    const first = await readsDuring(db, async () => {
      prunedCount = (await h.call("pruning:apply", { sessionId })).prunedCount;
    });
    expect(prunedCount).toBeGreaterThan(80);
    // The path's links (a row per entry), two rows per tool result (its token estimate and facts:
    // none yet, then as this first check of the session stored them in tool_facts) and one per
    // pruned output (its entry without the output): the full JSON of each pruned output was read,
    // then read again to keep it, with a lookup by id per row.
    expect(first.rows).toBeLessThan(entries + 2 * TURNS + prunedCount + 20);
    expect(first.parsed).toBeLessThan(TURNS + prunedCount + 10);
    // Each parse is a tool name with prunedAt, or an entry without its 8,000-character output.
    expect(first.parsedChars).toBeLessThan(TURNS * 40 + prunedCount * 1000);
    // A tool_facts row per tool result (the session's first check), one entry_json row and one
    // token estimate per pruned output.
    expect(first.written).toBe(TURNS + 2 * prunedCount);

    const second = await readsDuring(db, async () => {
      expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBe(0);
    });
    expect(second.rows).toBeLessThan(entries + TURNS + 20);
    expect(second.parsedChars).toBeLessThan(TURNS * 40 + 1000);
    expect(second.written).toBe(0);
  });
});
