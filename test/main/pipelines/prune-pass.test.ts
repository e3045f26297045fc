// Applying pruning (SPEC §7.1 with D9) cuts each candidate's output out in SQLite and writes the
// pruned entries by row, leaving the originals in their blocks: the library must end up exactly as
// the full route leaves it (every entry parsed, each pruned one stringified and replaced by id),
// row for row — JSON, original and token estimate — on the fixtures, generated sessions and texts
// that JSON.stringify would not write (spaces, escapes, duplicate keys, deep nesting).
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  applyPruningToMessage,
  DEFAULT_PRUNING,
  type PruningConfig,
  planPruning,
} from "../../../core/compaction/pruning.ts";
import type { MessageEntry } from "../../../core/session/entries.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { entryTokens } from "../../../main/library/entry-rows.ts";
import { requireSession } from "../../../main/library/load.ts";
import { applyPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { loadSessionState } from "../../../main/pipelines/session-state.ts";
import { listEntryRows } from "../../../main/store/repos/entries.ts";
import { replaceEntryJson } from "../../../main/store/repos/entry-json.ts";
import { writeTransaction } from "../../../main/store/transactions.ts";
import { generateSession } from "../../../bench/generate-session.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, importText, removeDir, sized } from "./harness.ts";
import { deepDetailsSessionText } from "./sessions.ts";

/** Two libraries with the same session: one pruned by the app, one by the reference route. */
let app: Harness;
let reference: Harness;
beforeEach(() => {
  app = createHarness();
  reference = createHarness();
  vi.spyOn(Date, "now").mockReturnValue(Date.parse("2026-03-01T12:00:00.000Z"));
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const h of [app, reference]) {
    h.close();
    removeDir(h.dir);
  }
});

/** The full route: every entry parsed, the plan over the whole path, each pruned entry replaced by id. */
function referencePrune(ctx: AppContext, sessionId: string, config: PruningConfig): number {
  const state = loadSessionState(ctx.db, sessionId);
  const plan = planPruning(state.path, config);
  if (!plan.willPrune) return 0;
  const { sid } = requireSession(ctx.db, sessionId);
  const prunedAt = Date.now();
  writeTransaction(ctx.db, () => {
    for (const candidate of plan.candidates) {
      const entry = state.index.byId.get(candidate.entryId) as MessageEntry;
      const pruned: MessageEntry = {
        ...entry,
        message: applyPruningToMessage(entry.message as never, candidate.tokens, prunedAt),
      };
      replaceEntryJson(ctx.db, sid, candidate.entryId, JSON.stringify(pruned), entryTokens(pruned));
    }
  })();
  return plan.candidates.length;
}

/** Every row of the session as stored: its line, JSON, kept original and token estimate. */
function storedRows(h: Harness, sessionId: string) {
  const { sid } = requireSession(h.api.ctx.db, sessionId);
  return listEntryRows(h.api.ctx.db, sid).map((row) => ({
    seq: row.seq,
    id: row.id,
    tokens: row.tokens,
    json: row.json,
    original: row.original_json,
  }));
}

/** Imports `text` into both libraries, prunes each its way, and compares every row; the count pruned. */
async function expectSameStoredResult(name: string, text: string, config: PruningConfig): Promise<number> {
  const sessionId = await importText(app, text, name);
  expect(await importText(reference, text, name)).toBe(sessionId);
  const pruned = applyPrune(app.api.ctx, sessionId, undefined, config).prunedCount;
  expect(referencePrune(reference.api.ctx, sessionId, config), name).toBe(pruned);
  expect(storedRows(app, sessionId), name).toEqual(storedRows(reference, sessionId));
  return pruned;
}

/** A small rule, so that the fixtures' modest tool outputs become candidates too. */
const SMALL_RULE: PruningConfig = {
  protectTokens: 200,
  minimumSavings: 0,
  protectedTools: ["skill", "read"],
};

describe("pruning stores what the full route stores, row for row", () => {
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
    it(`${name}`, async () => {
      const pruned = await expectSameStoredResult(
        name,
        fs.readFileSync(fixturePath(name), "utf8"),
        SMALL_RULE,
      );
      expect(pruned).toBeGreaterThan(0);
    });
  }

  it("a generated session, by the default rule and by a small one after a restore", async () => {
    const generated = generateSession(3000, { seed: 5 });
    const pruned = await expectSameStoredResult("generated", generated.text, DEFAULT_PRUNING);
    expect(pruned).toBeGreaterThan(500);
    // Restored outputs keep an entry_json row (its original now null): pruning them again keeps
    // that text as the original, in both routes.
    const sessionId = requireSessionId(app);
    restorePruned(app.api.ctx, sessionId);
    restorePruned(reference.api.ctx, sessionId);
    expect(applyPrune(app.api.ctx, sessionId, undefined, SMALL_RULE).prunedCount).toBe(
      referencePrune(reference.api.ctx, sessionId, SMALL_RULE),
    );
    expect(storedRows(app, sessionId)).toEqual(storedRows(reference, sessionId));
  }, 60_000);

  it("texts JSON.stringify would not write: spaces, escapes, number forms, duplicate keys, deep nesting", async () => {
    const at = (i: number) => `"timestamp": "2026-02-01T10:00:${String(i).padStart(2, "0")}.000Z"`;
    const deep = `${"[".repeat(1200)}1${"]".repeat(1200)}`;
    const lines = [
      `{"type":"session","version":3,"id":"0195f0c2-2222-7000-8000-000000000002","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/w"}`,
      `{ "type": "message", "id": "u1", "parentId": null, ${at(1)}, "message": { "role": "user", "content": "go", "timestamp": 1 } }`,
      // Spaces, a \\u escape, 1.0 and 1e2, a \\/ escape, a tool name that is not a string.
      `{"type":"message","id":"t1","parentId":"u1",${at(2)},"message":{"role":"toolResult","toolCallId":"c\\u0031","toolName":7,"content":[{"type":"text","text":"one \\/ two"}],"isError":false,"timestamp":1.0,"n":1e2}}`,
      // Duplicate keys (the last one wins in JS), prunedAt null (not pruned), content before role.
      `{"type":"message","id":"t2","parentId":"t1",${at(3)},"message":{"content":[{"type":"text","text":"old"}],"role":"toolResult","toolCallId":"c2","toolName":"bash","content":[{"type":"text","text":"new"}],"isError":false,"prunedAt":null,"timestamp":2},"extra":{"a":1,"a":2}}`,
      // Nested deeper than SQLite's JSON functions read: parsed whole.
      `{"type":"message","id":"t3","parentId":"t2",${at(4)},"message":{"role":"toolResult","toolCallId":"c3","toolName":"bash","content":[{"type":"text","text":"deep"}],"details":${deep},"isError":false,"timestamp":3}}`,
      // No content at all, and a unicode text.
      `{"type":"message","id":"t4","parentId":"t3",${at(5)},"message":{"role":"toolResult","toolCallId":"c4","toolName":"grep","isError":false,"timestamp":4,"note":"é \\ud83d\\ude00 ✓"}}`,
      `{"type":"message","id":"t5","parentId":"t4",${at(6)},"message":{"role":"toolResult","toolCallId":"c5","toolName":"bash","content":[{"type":"text","text":"${"x".repeat(4000)}"}],"isError":false,"timestamp":5}}`,
    ];
    const pruned = await expectSameStoredResult("odd", `${lines.join("\n")}\n`, {
      protectTokens: 500,
      minimumSavings: 0,
      protectedTools: [],
    });
    expect(pruned).toBe(4);
  });
});

describe("a tool result nested deeper than SQLite's JSON functions read (SPEC §7.1 over the whole path)", () => {
  it("is previewed, pruned and restored like any other, where the previews and prune failed with 'malformed JSON'", async () => {
    const deep = `${"[".repeat(1100)}0${"]".repeat(1100)}`;
    const text = deepDetailsSessionText(deep);
    const sessionId = await importText(app, text, "deep");
    const preview = await app.call("pruning:preview", { sessionId, listCandidates: true });
    expect(preview.candidates?.map((c) => c.entryId)).toEqual(["t1", "t2"]);
    const pruned = await app.call("pruning:apply", { sessionId });
    expect(pruned).toMatchObject({ prunedCount: 2, tokensSaved: 2 * (15_000 - 9) });
    const stored = storedRows(app, sessionId).find((row) => row.id === "t1");
    expect(stored?.json).toContain("[Output truncated - 15000 tokens]");
    expect(stored?.json).toContain(deep);
    expect((await app.call("pruning:apply", { sessionId })).prunedCount).toBe(0);
    expect((await app.call("pruning:restore", { sessionId })).prunedCount).toBe(2);
    const restored = storedRows(app, sessionId).find((row) => row.id === "t1");
    expect(restored?.json).toContain(sized("log 1", 15_000));
    expect(restored?.json).not.toContain("Output truncated");
  });
});

function requireSessionId(h: Harness): string {
  const row = h.api.ctx.db.prepare("SELECT id FROM sessions").pluck().get() as string;
  return row;
}
