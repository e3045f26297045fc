// Migration 7 keeps what the prune check reads of each tool result (`[toolName, prunedAt]`) in
// `entries.tool_facts`: it must hold exactly what the check read from the JSON before (the oracle
// in tool-facts-oracle.ts), for a library written by schema 6 and after every write since
// (import, appended lines, pruning, restore, an agent's id migration), on the fixtures, generated
// sessions and texts JSON.stringify would not write (duplicate keys, escapes, nesting past SQLite's
// depth limit); a prune check must then read no entry's JSON; and an original left in its block
// (`entry_json.original_in_block`) must follow an agent's id migration like a copied one.
import fs from "node:fs";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import type { PruningConfig } from "../../../core/compaction/pruning.ts";
import { importPath } from "../../../main/library/import.ts";
import { applyPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { runMigrations } from "../../../main/store/migrations/index.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { listEntryRows } from "../../../main/store/repos/entries.ts";
import {
  listPrunedEntryRows,
  replaceEntryJsonByPk,
  restoreEntryJson,
} from "../../../main/store/repos/entry-json.ts";
import { writeTransaction } from "../../../main/store/transactions.ts";
import { requireSession } from "../../../main/library/load.ts";
import { appendSessionEntries } from "../../../main/library/write.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { fixturesDir } from "../../helpers/fixtures.ts";
import {
  copyingReplaceEntryJson,
  copyingRestoreEntryJson,
  downgradeToSchema6,
  factsOutsideToolResults,
  toolFactsColumn,
  toolFactsFromJson,
} from "../../helpers/tool-facts-oracle.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";
import { makeTempDir } from "./helpers.ts";

const deep = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
const at = (i: number) =>
  `"timestamp":"2026-02-01T10:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z"`;

/** Tool results whose JSON is spelled oddly, each 4,000 characters of output (candidates under a small rule). */
function oddSession(id = "0195f0c2-2222-7000-8000-0000000000aa"): string {
  const out = `"content":[{"type":"text","text":"${"x".repeat(4000)}"}]`;
  const results = [
    `"toolName":"read","toolName":"bash",${out}`, // duplicate key: SQLite reads the first
    `"tool\\u004eame":"b\\u0061sh",${out}`, // escapes in the key and the value
    `"toolName":7,${out}`,
    `"toolName":true,"prunedAt":null,${out}`,
    `"toolName":{"a":[1,2]},${out}`,
    `"toolName":"bash","prunedAt":1.50,${out}`, // already pruned by the agent, an odd number form
    `"toolName":"bash","prunedAt":"2026-01-01",${out}`,
    `"toolName" : "grep" ,  "content" : [ { "type" : "text" , "text" : "${"y".repeat(4000)}" } ]`,
    `${out}`, // no tool name
    `"toolName":"bash","details":${deep(1200)},${out}`, // deeper than SQLite's JSON functions read
    `"toolName":"skill",${out}`,
    `"toolName":"bash",${out}`,
    `"toolName":"bash",${out}`,
  ];
  const lines = [
    `{"type":"session","version":3,"id":"${id}","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/w"}`,
    `{"type":"message","id":"u1","parentId":null,${at(1)},"message":{"role":"user","content":"go","timestamp":1}}`,
  ];
  let parent = "u1";
  results.forEach((fields, i) => {
    const n = i + 2;
    lines.push(
      `{"type":"message","id":"t${n}","parentId":"${parent}",${at(n)},"message":{"role":"toolResult","toolCallId":"c${n}",${fields},"isError":false,"timestamp":${n}}}`,
    );
    parent = `t${n}`;
  });
  // Not a tool result, though its message has a tool name: never has facts.
  lines.push(
    `{"type":"message","id":"a99","parentId":"${parent}",${at(99)},"message":{"role":"assistant","toolName":"bash","content":[],"timestamp":99}}`,
  );
  return `${lines.join("\n")}\n`;
}

/** A folder holding the fixtures, the odd session and a generated one. */
function writeSessions(dir: string): string {
  const folder = path.join(dir, "sessions");
  fs.mkdirSync(folder);
  for (const name of fs.readdirSync(fixturesDir()).filter((n) => n.endsWith(".jsonl"))) {
    fs.copyFileSync(path.join(fixturesDir(), name), path.join(folder, name));
  }
  fs.writeFileSync(path.join(folder, "odd.jsonl"), oddSession());
  fs.writeFileSync(path.join(folder, "generated.jsonl"), generateSession(2000, { seed: 11 }).text);
  return folder;
}

function expectColumnAsTheJsonReads(db: BetterSqlite3.Database, label: string): void {
  const expected = toolFactsFromJson(db);
  expect(expected.size, label).toBeGreaterThan(500);
  expect(toolFactsColumn(db), label).toEqual(expected);
  expect(factsOutsideToolResults(db), label).toBe(0);
}

/** What the agent does to a v1 file it opens (SPEC §1.8): v3, new ids (`m…`), written over it. */
function migrateAsTheAgent(file: string): void {
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  let previous: string | null = null;
  lines.slice(1).forEach((line, i) => {
    line.id = `m${i.toString(16).padStart(7, "0")}`;
    line.parentId = previous;
    previous = line.id as string;
    if (line.type === "compaction") delete line.firstKeptEntryIndex;
  });
  (lines[0] as Record<string, unknown>).version = 3;
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
}

const SMALL_RULE: PruningConfig = {
  protectTokens: 3000,
  minimumSavings: 0,
  protectedTools: ["skill", "read"],
};

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => {
  vi.restoreAllMocks();
  tmp.cleanup();
});

describe("migration 7 (tool result facts) on a library written by schema 6", () => {
  it("fills the column of every tool result, stored in blocks or rewritten, as the JSON reads", () => {
    const db = openDatabase(path.join(tmp.dir, "v6.db"));
    const report = importPath(db, writeSessions(tmp.dir));
    expect(report.files.filter((f) => f.sessionId === undefined)).toEqual([]);
    downgradeToSchema6(db);
    expect(
      db.prepare("SELECT count(*) FROM pragma_table_info('entries') WHERE name = 'tool_facts'").pluck().get(),
    ).toBe(0);
    // Rewritten texts as schema 6 stored them: pruned (entry_json with an original), pruned then
    // restored (entry_json, no original), and an odd text put in place of another.
    const sids = db.prepare("SELECT sid FROM sessions ORDER BY sid").pluck().all() as number[];
    let changed = 0;
    for (const sid of sids) {
      const results = db
        .prepare(
          `SELECT e.pk AS pk, e.id AS id, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT) AS json
             FROM entries AS e JOIN entry_blocks AS b ON b.block = e.json_block
            WHERE e.sid = ? AND e.role = 'toolResult' AND e.id IS NOT NULL ORDER BY e.seq`,
        )
        .all(sid) as { pk: number; id: string; json: string }[];
      results.slice(0, 6).forEach((row, i) => {
        const entry = JSON.parse(row.json) as { message: Record<string, unknown> };
        const json =
          i === 5
            ? `{"type":"message","id":${JSON.stringify(row.id)},"message":{"role":"toolResult","toolName":"skill","toolName":"x","prunedAt":5}}`
            : JSON.stringify({
                ...entry,
                message: { ...entry.message, content: [], prunedAt: 1_700_000_000_000 + i },
              });
        copyingReplaceEntryJson(db, sid, row.id, json, 3);
        if (i === 2) copyingRestoreEntryJson(db, row.pk, 7);
        changed++;
      });
    }
    expect(changed).toBeGreaterThan(20);
    const before = toolFactsFromJson(db);

    expect(runMigrations(db)).toEqual({
      from: 6,
      to: 8,
      applied: ["pruning: tool result facts, originals left in their blocks", "label entries index"],
    });
    expectColumnAsTheJsonReads(db, "after the migration");
    expect(toolFactsColumn(db)).toEqual(before);
    // The deep one is left for the reader to parse, as the JSON route did.
    expect([...toolFactsColumn(db).values()].filter((facts) => facts === null)).toHaveLength(1);
    // The originals schema 6 copied are read and restored as they were.
    let restored = 0;
    for (const sid of sids) {
      const pruned = listPrunedEntryRows(db, sid);
      restored += pruned.length;
      for (const row of pruned) {
        restoreEntryJson(db, row.pk, 1);
        expect(listEntryRows(db, sid).find((entry) => entry.pk === row.pk)).toMatchObject({
          json: row.originalJson,
          original_json: null,
        });
      }
    }
    expect(restored).toBeGreaterThan(changed / 2);
    expectColumnAsTheJsonReads(db, "after restoring what schema 6 pruned");
    db.close();
  }, 60_000);
});

describe("every write keeps the column as the JSON reads", () => {
  let h: Harness;
  beforeEach(() => {
    h = createHarness();
  });
  afterEach(() => {
    h.close();
    removeDir(h.dir);
  });

  it("import, appended lines, prune, restore, prune again and an agent's id migration", async () => {
    const { db } = h.api.ctx;
    const folder = writeSessions(h.dir);
    await h.call("library:import", { path: folder });
    expectColumnAsTheJsonReads(db, "import");

    // Appended lines (the tail of a known file), among them more odd ones.
    const odd = path.join(folder, "odd.jsonl");
    const more = oddSession()
      .split("\n")
      .slice(2, -1)
      .map((line) =>
        line
          .replace(/"id":"([a-z]\d+)"/, '"id":"$1b"')
          .replace(/"parentId":"([a-z]\d+)"/, '"parentId":"$1b"'),
      )
      .join("\n")
      .replace('"parentId":"u1b"', '"parentId":"a99"');
    fs.appendFileSync(odd, `${more}\n`);
    const appended = await h.call("library:import", { path: odd });
    expect(appended.files[0]?.entriesAdded).toBe(14);
    expectColumnAsTheJsonReads(db, "appended lines");

    const sessionIds = db
      .prepare("SELECT id FROM sessions WHERE problem_count = 0")
      .pluck()
      .all() as string[];
    let pruned = 0;
    for (const sessionId of sessionIds)
      pruned += applyPrune(h.api.ctx, sessionId, undefined, SMALL_RULE).prunedCount;
    expect(pruned).toBeGreaterThan(100);
    expectColumnAsTheJsonReads(db, "prune");
    for (const sessionId of sessionIds) restorePruned(h.api.ctx, sessionId);
    expectColumnAsTheJsonReads(db, "restore");
    for (const sessionId of sessionIds) applyPrune(h.api.ctx, sessionId, undefined, SMALL_RULE);
    expectColumnAsTheJsonReads(db, "prune after restore");

    // The agent rewrites a v1 file as v3 with new ids (SPEC §1.8): the stored entries are
    // replaced by the file's and the pruned ones rewritten on their new ids.
    const v1 = path.join(folder, "real-large-session.v1.jsonl");
    migrateAsTheAgent(v1);
    const migrated = await h.call("library:import", { path: v1 });
    expect(migrated.files[0]).toMatchObject({ status: "updated", entriesAdded: 0 });
    expect(db.prepare("SELECT count(*) FROM entries WHERE id LIKE 'm%'").pluck().get()).toBeGreaterThan(100);
    expectColumnAsTheJsonReads(db, "agent id migration");
  }, 60_000);
});

describe("an original left in its block (schema 7)", () => {
  it("follows an agent's id migration on an entry Canopy added and pruned", async () => {
    const h = createHarness();
    try {
      const { db } = h.api.ctx;
      const file = path.join(h.dir, "v1.jsonl");
      fs.copyFileSync(path.join(fixturesDir(), "real-large-session.v1.jsonl"), file);
      await h.call("library:import", { path: file });
      const sessionId = db.prepare("SELECT id FROM sessions").pluck().get() as string;
      const { sid } = requireSession(db, sessionId);
      const last = listEntryRows(db, sid).at(-1)?.id as string;
      const output = {
        type: "message",
        id: "cafe0001",
        parentId: last,
        timestamp: "2026-03-01T12:00:00.000Z",
        message: {
          role: "toolResult",
          toolCallId: "k1",
          toolName: "bash",
          content: [{ type: "text", text: "out" }],
          isError: false,
          timestamp: 1,
        },
      };
      appendSessionEntries(db, sessionId, [output as SessionEntry]);
      const added = () => listEntryRows(db, sid).find((row) => row.id === "cafe0001");
      const original = added()?.json as string;
      const pruned = JSON.stringify({ ...output, message: { ...output.message, content: [], prunedAt: 5 } });
      writeTransaction(db, () =>
        replaceEntryJsonByPk(db, [{ pk: added()?.pk as number, json: pruned, tokens: 1 }]),
      )();
      expect(added()).toMatchObject({ json: pruned, original_json: original });

      migrateAsTheAgent(file);
      expect((await h.call("library:import", { path: file })).files[0]).toMatchObject({ status: "updated" });
      const after = added();
      const parentOf = (json: string | null | undefined) =>
        (JSON.parse(json as string) as { parentId: string }).parentId;
      expect(parentOf(after?.json)).toMatch(/^m/);
      // The original is rewritten on the new ids too, not read back from the block.
      expect(parentOf(after?.original_json)).toBe(parentOf(after?.json));
      expect(after?.original_json).toBe(
        original.replace(`"parentId":"${last}"`, `"parentId":"${parentOf(after?.json)}"`),
      );
    } finally {
      h.close();
      removeDir(h.dir);
    }
  }, 60_000);
});

describe("a prune check", () => {
  it("reads no entry's JSON: its statements touch neither entry_blocks nor entry_json", async () => {
    const h = createHarness();
    try {
      const folder = writeSessions(h.dir);
      await h.call("library:import", { path: path.join(folder, "generated.jsonl") });
      const sessionId = h.api.ctx.db.prepare("SELECT id FROM sessions").pluck().get() as string;
      expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBeGreaterThan(100);
      const proto = Object.getPrototypeOf(h.api.ctx.db.prepare("SELECT 1")) as BetterSqlite3.Statement;
      const sources: string[] = [];
      for (const method of ["all", "get", "iterate", "run"] as const) {
        const original = proto[method] as (...args: unknown[]) => unknown;
        vi.spyOn(proto, method).mockImplementation(function (
          this: BetterSqlite3.Statement,
          ...args: unknown[]
        ) {
          sources.push(this.source);
          return original.apply(this, args);
        } as never);
      }
      const preview = await h.call("pruning:preview", { sessionId });
      expect(preview.candidates).toEqual([]);
      expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBe(0);
      vi.restoreAllMocks();
      expect(sources.length).toBeGreaterThan(2);
      expect(sources.filter((sql) => /entry_blocks|entry_json/.test(sql))).toEqual([]);
    } finally {
      h.close();
      removeDir(h.dir);
    }
  }, 60_000);
});
