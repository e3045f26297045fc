// Pruning and restoring write the library set-based (one statement per batch of rows, not one or
// five per row): the library must end up exactly as the per-row writes left it — every column of
// entries, entry_json (texts compared as bytes), tool_facts, usage_unread, entry_usage and the
// session's figures, and what session:usage reads — after a prune with and without a check
// before, a restore, a second prune and restore, on a generated session and on texts that
// JSON.stringify would not write or SQLite cannot read. The per-row routes as they were (main at
// 4236486, bench/per-row-prune.ts) stand in for one library of each pair.
import fs from "node:fs";
import path from "node:path";
import type { Database, Statement } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import { perRowReplaceEntryJsonByPk, perRowRestore } from "../../../bench/per-row-prune.ts";
import { DEFAULT_PRUNING, type PruningConfig } from "../../../core/compaction/pruning.ts";
import { requireSession } from "../../../main/library/load.ts";
import { applyPrune, planPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { type JsonReplacement, replaceEntryJson } from "../../../main/store/repos/entry-json.ts";
import { writeTransaction } from "../../../main/store/transactions.ts";
import { createHarness, type Harness, removeDir } from "./harness.ts";

/** Whether the prune's writes go the per-row way (the reference library of a pair). */
const route = vi.hoisted(() => ({ perRow: false }));

vi.mock("../../../main/store/repos/entry-json.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../../main/store/repos/entry-json.ts")>();
  return {
    ...actual,
    replaceEntryJsonByPk: (db: Database, rows: readonly JsonReplacement[]) =>
      route.perRow ? perRowReplaceEntryJsonByPk(db, rows) : actual.replaceEntryJsonByPk(db, rows),
  };
});

/** Two libraries with the same session: `app` written the current way, `reference` per row. */
let app: Harness;
let reference: Harness;
beforeEach(() => {
  app = createHarness();
  reference = createHarness();
  vi.spyOn(Date, "now").mockReturnValue(Date.parse("2026-03-01T12:00:00.000Z"));
});
afterEach(() => {
  vi.restoreAllMocks();
  route.perRow = false;
  for (const h of [app, reference]) {
    h.close();
    removeDir(h.dir);
  }
});

/** Everything pruning and restoring may change, texts as bytes (hex). */
async function libraryState(h: Harness, sessionId: string) {
  const { db } = h.api.ctx;
  const rows = (sql: string) => db.prepare(sql).raw(true).all();
  return {
    entries: rows(
      "SELECT pk, sid, seq, id, parent_id, type, role, tokens, json_block, json_at, json_len FROM entries ORDER BY pk",
    ),
    entryJson: rows(
      "SELECT pk, hex(json), original_json IS NULL, hex(original_json), original_in_block FROM entry_json ORDER BY pk",
    ),
    toolFacts: rows("SELECT pk, pruned, tool_name IS NULL, hex(tool_name) FROM tool_facts ORDER BY pk"),
    usageUnread: rows("SELECT pk, sid FROM usage_unread ORDER BY pk"),
    entryUsage: rows("SELECT * FROM entry_usage ORDER BY pk"),
    sessions: rows(
      `SELECT sid, id, entry_count, message_count, compaction_count, branch_summary_count, malformed_count,
              problem_count, problems_json, first_message, display_name, compaction_title, file_leaf_id,
              last_leaf_id, view_leaf_id FROM sessions ORDER BY sid`,
    ),
    usage: await h.call("session:usage", { sessionId }),
  };
}

/** Imports the same bytes into both libraries; the session's id. */
async function importBoth(name: string, bytes: Buffer): Promise<string> {
  const ids: string[] = [];
  for (const h of [app, reference]) {
    const file = path.join(h.dir, `${name}.jsonl`);
    fs.writeFileSync(file, bytes);
    ids.push((await h.call("library:import", { path: file })).files[0]?.sessionId as string);
  }
  expect(ids[1]).toBe(ids[0]);
  return ids[0] as string;
}

/** Prunes both libraries (the reference's writes per row) and compares them; the count pruned. */
async function pruneBoth(sessionId: string, config: PruningConfig, step: string): Promise<number> {
  const pruned = applyPrune(app.api.ctx, sessionId, undefined, config);
  route.perRow = true;
  try {
    expect(applyPrune(reference.api.ctx, sessionId, undefined, config), step).toEqual(pruned);
  } finally {
    route.perRow = false;
  }
  expect(await libraryState(app, sessionId), step).toEqual(await libraryState(reference, sessionId));
  return pruned.prunedCount;
}

/** Restores both libraries (the reference per row) and compares them; the count restored. */
async function restoreBoth(sessionId: string, step: string): Promise<number> {
  const restored = restorePruned(app.api.ctx, sessionId);
  expect(restored.prunedCount, step).toBe(perRowRestore(reference.api.ctx.db, sessionId).length);
  expect(await libraryState(app, sessionId), step).toEqual(await libraryState(reference, sessionId));
  return restored.prunedCount;
}

const SMALL_RULE: PruningConfig = {
  protectTokens: 3000,
  minimumSavings: 0,
  protectedTools: ["skill", "read"],
};

describe("set-based prune and restore writes leave the library as the per-row ones did", () => {
  it("a generated session: prune without a check before, restore, check, prune by a smaller rule, restore", async () => {
    const sessionId = await importBoth("generated", Buffer.from(generateSession(3000, { seed: 11 }).text));
    const pruned = await pruneBoth(sessionId, DEFAULT_PRUNING, "first prune, no tool facts yet");
    expect(pruned).toBeGreaterThan(500);
    // Some pruned rows without tool facts (as if no check had read them): none is made for them.
    for (const h of [app, reference]) h.api.ctx.db.prepare("DELETE FROM tool_facts WHERE pk % 3 = 0").run();
    expect(await restoreBoth(sessionId, "first restore")).toBe(pruned);
    // A check fills the tool facts: the writes' triggers then update them.
    expect(planPrune(app.api.ctx, sessionId)).toEqual(planPrune(reference.api.ctx, sessionId));
    const again = await pruneBoth(sessionId, SMALL_RULE, "second prune, after a check");
    expect(again).toBeGreaterThan(pruned);
    expect(await restoreBoth(sessionId, "second restore")).toBe(again);
  }, 60_000);

  it("texts JSON.stringify would not write, SQLite cannot read, and a hand-written prunedAt", async () => {
    const at = (i: number) => `"timestamp":"2026-02-01T10:00:${String(i).padStart(2, "0")}.000Z"`;
    const deep = `${"[".repeat(1200)}1${"]".repeat(1200)}`;
    const result = (i: number, rest: string) =>
      `{"type":"message","id":"t${i}","parentId":"${i === 1 ? "u1" : `t${i - 1}`}",${at(i + 1)},"message":{"role":"toolResult","toolCallId":"c${i}",${rest}}}`;
    const output = (i: number) => `"content":[{"type":"text","text":"${`out ${i} `.repeat(500)}"}]`;
    const lines = [
      `{"type":"session","version":3,"id":"0195f0c2-3333-7000-8000-000000000003","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/w"}`,
      `{ "type": "message", "id": "u1", "parentId": null, ${at(1)}, "message": { "role": "user", "content": "go", "timestamp": 1 } }`,
      // Spaces, \\u and \\/ escapes, 1.0 and 1e2, a tool name that is not a string.
      result(
        1,
        `"toolName":7,${output(1)},"isError":false,"timestamp":1.0,"n":1e2,"s":"one \\/ two \\u0031"`,
      ),
      // Duplicate keys (the last wins in JS), prunedAt null (not pruned), content before role.
      `{"type":"message","id":"t2","parentId":"t1",${at(3)},"message":{"content":[{"type":"text","text":"old"}],"role":"toolResult","toolCallId":"c2","toolName":"bash",${output(2)},"isError":false,"prunedAt":null,"timestamp":2},"extra":{"a":1,"a":2}}`,
      // Nested deeper than SQLite's JSON functions read.
      result(3, `"toolName":"bash",${output(3)},"details":${deep},"isError":false,"timestamp":3`),
      // NUL, a lone surrogate, U+2028, an emoji and quotes, escaped, in what pruning keeps.
      result(
        4,
        `"toolName":"gr\\"ep\\u0000",${output(4)},"details":{"d":"\\u0000 \\ud800 \\u2028 \\ud83d\\ude00 \\"q\\" \\\\"},"isError":false,"timestamp":4`,
      ),
      // Characters written as they are: accents, an emoji, a tab escaped.
      result(5, `"toolName":"ba\u0002sh",${output(5)},"details":"é ✓ 😀 \\t","isError":false,"timestamp":5`),
      result(6, `"toolName":"bash",${output(6)},"isError":false,"timestamp":6`),
    ];
    const text = `${lines.join("\n")}\n`;
    // Bytes that are no UTF-8 in what pruning keeps of t5, its details and tool name (stored as U+FFFD).
    const bytes = Buffer.from(text.replace('"details":"é', '"details":"\u0001é'));
    bytes[bytes.indexOf(0x01)] = 0xff;
    bytes[bytes.indexOf(0x02)] = 0xfe;
    const sessionId = await importBoth("odd", bytes);
    const rule: PruningConfig = { protectTokens: 500, minimumSavings: 0, protectedTools: [] };
    expect(await pruneBoth(sessionId, rule, "first prune")).toBe(5);
    expect(await restoreBoth(sessionId, "first restore")).toBe(5);
    // The deep one was restored into entry_json (SQLite cannot read it): pruned again, its
    // original is that row's text (original_json), not its block.
    expect(await pruneBoth(sessionId, rule, "second prune")).toBe(5);
    // An entry given a prunedAt by hand (not a tool result): listed too, the figures recounted.
    // Two originals copied out of their blocks, as schema 8 kept them: written back, not dropped.
    for (const h of [app, reference]) {
      const { sid } = requireSession(h.api.ctx.db, sessionId);
      const copied = h.api.ctx.db
        .prepare(
          `UPDATE entry_json SET original_in_block = 0,
                  original_json = (SELECT CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)
                                     FROM entries AS e JOIN entry_blocks AS b ON b.block = e.json_block
                                    WHERE e.pk = entry_json.pk)
            WHERE original_in_block = 1 AND pk IN (SELECT pk FROM entries WHERE id IN ('t1', 't2'))`,
        )
        .run();
      expect(copied.changes).toBe(2);
      const json = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-02-01T10:00:01.000Z","message":{"role":"user","content":"go","timestamp":1,"prunedAt":1}}`;
      writeTransaction(h.api.ctx.db, () => replaceEntryJson(h.api.ctx.db, sid, "u1", json, 1))();
    }
    expect(await restoreBoth(sessionId, "restore with a hand-written prunedAt")).toBe(6);
  });
});

describe("how a prune and a restore of many outputs write and read", () => {
  /** Prunes the app's library (the generated session) counting the statements run; what was pruned. */
  async function prunedGenerated(runs: { count: number }) {
    const sessionId = await importBoth("generated", Buffer.from(generateSession(3000, { seed: 12 }).text));
    const { db } = app.api.ctx;
    planPrune(app.api.ctx, sessionId);
    const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Statement;
    const { run } = proto;
    vi.spyOn(proto, "run").mockImplementation(function (this: Statement, ...args: unknown[]) {
      runs.count++;
      return run.apply(this, args);
    });
    const pruned = applyPrune(app.api.ctx, sessionId).prunedCount;
    expect(pruned).toBeGreaterThan(500);
    return { sessionId, db, proto, pruned };
  }

  it("a prune writes with a few statements for them all, not two per output", async () => {
    const runs = { count: 0 };
    await prunedGenerated(runs);
    expect(runs.count).toBeLessThan(10);
  }, 60_000);

  it("a restore too, and reads each original without a temporary table", async () => {
    const runs = { count: 0 };
    const { sessionId, db, proto, pruned } = await prunedGenerated(runs);
    runs.count = 0;
    const alls = vi.spyOn(proto, "all");
    expect(restorePruned(app.api.ctx, sessionId).prunedCount).toBe(pruned);
    expect(runs.count).toBeLessThan(10);
    // The statement listing the pruned rows with their originals: each original is read once,
    // as SQLite hands it on, not copied into a temporary table (materialized or sorted) first.
    const list = alls.mock.contexts.find((statement) =>
      (statement as Statement).source.includes("originalJson"),
    );
    const { sid } = requireSession(db, sessionId);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${(list as Statement).source}`).all(sid) as {
      detail: string;
    }[];
    expect(plan.map((step) => step.detail).join("\n")).not.toMatch(/MATERIALIZE|TEMP B-TREE/);
  }, 60_000);
});
