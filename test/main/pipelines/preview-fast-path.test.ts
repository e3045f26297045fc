// The compaction and pruning previews read only what their rule needs (the path on the structural
// columns, the compaction window, the tool results' names and prunedAt through SQLite): they must
// say exactly what the full computation over every parsed entry says, on the fixtures and on
// generated sessions with branches, several compactions (the agent's and Canopy's) and pruned outputs.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  planPruning,
  planPruningOf,
  type ToolOutput,
  toolOutputsNewestFirst,
} from "../../../core/compaction/pruning.ts";
import type { MessageEntry, ToolResultMessage } from "../../../core/session/entries.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { getViewLeaf, loadSessionEntries, requireSession, setViewLeaf } from "../../../main/library/load.ts";
import { refreshSessionStats } from "../../../main/library/stats.ts";
import { loadCompactionTail } from "../../../main/pipelines/compaction-tail.ts";
import { planCompaction, previewCompaction } from "../../../main/pipelines/compaction.ts";
import { planPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { loadSessionState } from "../../../main/pipelines/session-state.ts";
import { loadToolOutputs } from "../../../main/pipelines/tool-outputs.ts";
import { generateSession } from "../../../bench/generate-session.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir, SessionFile, sized } from "./harness.ts";

let h: Harness;
let ctx: AppContext;
beforeEach(() => {
  h = createHarness();
  ctx = h.api.ctx;
});
afterEach(() => {
  vi.restoreAllMocks();
  h.close();
  removeDir(h.dir);
});

/** A value, or the error's code and message: previews must fail the same way too. */
function outcome<T>(run: () => T): { value: T } | { error: string } {
  try {
    return { value: run() };
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return { error: `${code ?? ""}: ${message}` };
  }
}

/** A small rule, so that the fixtures' modest tool outputs become candidates too. */
const SMALL_RULE = { protectTokens: 200, minimumSavings: 0, protectedTools: ["skill", "read"] };

function expectSamePlans(
  sessionId: string,
  leafId: string | null | undefined,
  keeps: (number | undefined)[],
): void {
  const where = `${sessionId} at ${leafId}`;
  for (const keepRecentTokens of keeps) {
    const input = { sessionId, leafId: leafId ?? undefined, keepRecentTokens };
    if (leafId === null) continue;
    expect(
      outcome(() => previewCompaction(ctx, input)),
      `${where} keep ${keepRecentTokens}`,
    ).toEqual(outcome(() => planCompaction(ctx, input).plan));
  }
  const state = outcome(() => loadSessionState(ctx.db, sessionId, leafId));
  const read = outcome(() => loadToolOutputs(ctx.db, sessionId, leafId));
  if ("error" in state) {
    expect(read, where).toEqual(state);
    return;
  }
  if (!("value" in read) || read.value === null) throw new Error(`${where}: no fast path`);
  const { path: full, index } = state.value;
  // A pruned output's tool name is not read (the rule skips it whatever its tool).
  const asTheRuleSees = (outputs: Iterable<ToolOutput>) =>
    [...outputs].map((o) => ({ ...o, toolName: o.pruned ? null : o.toolName }));
  expect(asTheRuleSees(read.value.outputs), where).toEqual(asTheRuleSees(toolOutputsNewestFirst(full)));
  expect(planPruningOf(read.value.outputs, SMALL_RULE), where).toEqual(planPruning(full, SMALL_RULE));
  const plan = planPruning(full);
  const toolName = (id: string) =>
    ((index.byId.get(id) as MessageEntry).message as ToolResultMessage).toolName ?? "?";
  const { reason, ...dto } = planPrune(ctx, sessionId, leafId, { listCandidates: true });
  expect(reason === null, where).toBe(plan.willPrune);
  const tools = new Map<string, number>();
  for (const c of plan.candidates) tools.set(toolName(c.entryId), (tools.get(toolName(c.entryId)) ?? 0) + 1);
  expect(dto, where).toEqual({
    sessionId,
    leafId: state.value.leafId,
    candidateCount: plan.candidates.length,
    tools: [...tools].map(([name, count]) => ({ toolName: name, count })).sort((a, b) => b.count - a.count),
    candidates: plan.candidates.map((c) => ({
      entryId: c.entryId,
      toolName: toolName(c.entryId),
      tokens: c.tokens,
    })),
    tokensSaved: plan.candidateSavings,
    willPrune: plan.willPrune,
    alreadyPruned: plan.alreadyPruned,
  });
}

/** Every `step`-th entry as a leaf, plus every tip (entries nothing points to). */
function sampleLeaves(sessionId: string, count: number): string[] {
  const entries = loadSessionEntries(ctx.db, sessionId);
  const parents = new Set(entries.map((e) => e.parentId));
  const step = Math.max(1, Math.floor(entries.length / count));
  const leaves = entries.filter((e, i) => i % step === 0 || !parents.has(e.id)).map((e) => e.id);
  return [...new Set(leaves)];
}

async function importText(name: string, text: string): Promise<string> {
  const file = path.join(h.dir, name);
  fs.writeFileSync(file, text);
  const report = await h.call("library:import", { path: file });
  return report.files[0]?.sessionId ?? "";
}

/** A generated session viewed at its main tip's last message (the generator may end on a compaction). */
async function importGenerated(name: string, text: string): Promise<string> {
  const sessionId = await importText(name, text);
  const entries = loadSessionEntries(ctx.db, sessionId);
  const tip = entries.at(-1);
  if (tip?.type === "compaction") setViewLeaf(ctx.db, sessionId, tip.parentId);
  return sessionId;
}

describe("compaction and pruning previews from the path's tail", () => {
  const fixtures = [
    "tree-00.jsonl",
    "tree-01.jsonl",
    "tree-01.omp.jsonl",
    "tree-02.jsonl",
    "tree-03.jsonl",
    "real-before-compaction.v1.jsonl",
    "real-large-session.v1.jsonl",
  ];
  for (const name of fixtures) {
    it(`${name}: the same plans as from every entry, at ~40 leaves and every tip`, async () => {
      const sessionId = await importText(name, fs.readFileSync(fixturePath(name), "utf8"));
      expect(loadCompactionTail(ctx.db, sessionId)).not.toBeNull();
      for (const leaf of sampleLeaves(sessionId, 40))
        expectSamePlans(sessionId, leaf, [undefined, 300, 3000]);
      expectSamePlans(sessionId, undefined, [undefined]);
      expectSamePlans(sessionId, "no-such-entry", [undefined]);
      setViewLeaf(ctx.db, sessionId, null);
      expectSamePlans(sessionId, undefined, [undefined]);
      // Seconds of planning (~3 s on a quiet 2-core machine): 30 s was passed on a loaded one.
    }, 120_000);
  }

  it("generated sessions with branches, many compactions, pruning and Canopy's own compactions", async () => {
    const generated = generateSession(2500, { seed: 7, compactAtTokens: 30_000, keepRecentTokens: 6_000 });
    expect(generated.compactions).toBeGreaterThan(5);
    const sessionId = await importGenerated("generated.jsonl", generated.text);
    const check = () => {
      for (const leaf of sampleLeaves(sessionId, 12)) expectSamePlans(sessionId, leaf, [undefined, 1500]);
    };
    check();
    // Prune the main path (the originals stay in the library), compact it with the offline
    // summarizer (a compaction Canopy writes), then the agent goes on after it (the file grows
    // with entries under Canopy's compaction), and the outputs are restored.
    const pruned = await h.call("pruning:apply", { sessionId });
    expect(pruned.prunedCount).toBeGreaterThan(0);
    const compacted = await h.call("compaction:run", { sessionId, keepRecentTokens: 2000 });
    check();
    const later = new SessionFile()
      .user("after-1", sized("go on", 500), compacted.entryId)
      .assistant("after-2", sized("going on", 800), { usage: { input: 9000, output: 300 } })
      .user("after-3", sized("and then", 500));
    const file = path.join(h.dir, "generated.jsonl");
    fs.appendFileSync(file, `${later.entries.map((line) => JSON.stringify(line)).join("\n")}\n`);
    await h.call("library:import", { path: file });
    await h.call("session:set-view-leaf", { sessionId, leafId: "after-3" });
    const preview = await h.call("compaction:preview", { sessionId, keepRecentTokens: 300 });
    expect(preview.previousCompactionId).toBe(compacted.entryId);
    check();
    await h.call("pruning:restore", { sessionId });
    check();
  }, 120_000);

  it("a window without a measured reply has no measured figure: the usage above it is from before the compaction", async () => {
    const file = new SessionFile()
      .user("u1", sized("first", 3000))
      .assistant("a1", sized("reply", 3000), { usage: { input: 30_000, output: 500 } })
      .compaction("c1", { summary: "Earlier work.", firstKeptEntryId: "gone" })
      .user("u2", sized("second", 4000))
      .user("u3", sized("third", 4000))
      .user("u4", sized("fourth", 4000));
    const sessionId = await h.importSession(file);
    const tail = loadCompactionTail(ctx.db, sessionId);
    expect(tail?.path.map((e) => e.id)).toEqual(["c1", "u2", "u3", "u4"]);
    const plan = previewCompaction(ctx, { sessionId, keepRecentTokens: 9000 });
    // a1 measured the context c1 replaced (stale, as the LLM view says): the estimate counts.
    expect(plan.tokensBeforeMeasured).toBeNull();
    expect(plan.tokensBefore).toBe(plan.tokensBeforeEstimated);
    expect(plan.keepRecentTokens).toBe(9000);
    expectSamePlans(sessionId, undefined, [undefined, 9000]);
  });

  it("a session with tree problems is planned on whole, with the same answers", async () => {
    const file = new SessionFile()
      .user("u1", "hello")
      .assistant("a1", "hi")
      .user("u2", "orphan's child", "missing-parent")
      .assistant("a2", "still here");
    const sessionId = await h.importSession(file);
    expect(loadCompactionTail(ctx.db, sessionId)).toBeNull();
    expect(loadToolOutputs(ctx.db, sessionId)).toBeNull();
    expect(previewCompaction(ctx, { sessionId })).toEqual(planCompaction(ctx, { sessionId }).plan);
  });

  it("on a long session the previews parse the window, not the session", async () => {
    const generated = generateSession(6000, { seed: 11, compactAtTokens: 40_000, keepRecentTokens: 8_000 });
    const sessionId = await importGenerated("long.jsonl", generated.text);
    const tail = loadCompactionTail(ctx.db, sessionId);
    const spy = vi.spyOn(JSON, "parse");
    const entriesParsed = () => spy.mock.calls.filter(([text]) => String(text).startsWith('{"type"')).length;
    previewCompaction(ctx, { sessionId });
    const forCompaction = entriesParsed();
    spy.mockClear();
    planPrune(ctx, sessionId);
    const forPruning = entriesParsed();
    spy.mockRestore();
    // The window of the last compaction (plus its compaction entry), never the 6000 entries.
    expect(tail?.path.length).toBeLessThan(400);
    expect(forCompaction).toBeLessThanOrEqual((tail?.parsed ?? 0) + 2);
    expect(forPruning).toBe(0);
  });

  it("restoring pruned outputs parses their originals, not the session, and names the same view leaf", async () => {
    const generated = generateSession(6000, { seed: 11, compactAtTokens: 40_000, keepRecentTokens: 8_000 });
    const sessionId = await importGenerated("long.jsonl", generated.text);
    const applied = await h.call("pruning:apply", { sessionId });
    expect(applied.prunedCount).toBeGreaterThan(0);
    const changed: unknown[] = [];
    ctx.events.subscribe((name, payload) => {
      if (name === "session:changed") changed.push(payload);
    });
    const spy = vi.spyOn(JSON, "parse");
    const entriesParsed = () => spy.mock.calls.filter(([text]) => String(text).startsWith('{"type"')).length;
    const restored = restorePruned(ctx, sessionId);
    const forRestore = entriesParsed();
    // What refreshing the session's figures reads (its roots' JSON), as the restore does too.
    spy.mockClear();
    refreshSessionStats(ctx.db, { sid: requireSession(ctx.db, sessionId).sid, id: sessionId });
    const forStats = entriesParsed();
    spy.mockRestore();
    expect(restored).toEqual({
      sessionId,
      prunedCount: applied.prunedCount,
      tokensSaved: 0,
    });
    // The view leaf the whole session's state gives, read from the session's row.
    expect(changed).toEqual([{ sessionId, viewLeafId: loadSessionState(ctx.db, sessionId).viewLeafId }]);
    expect(getViewLeaf(ctx.db, sessionId)).not.toBeNull();
    // Each restored output's original (for its token estimate) and the figures' reads, never the 6000 entries.
    expect(forRestore).toBeLessThanOrEqual(applied.prunedCount + forStats);
  });
});
