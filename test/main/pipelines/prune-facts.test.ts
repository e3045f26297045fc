// The prune check reads each tool result's tool name and prunedAt from tool_facts (migration 009),
// filled by the first check of a session and never by an import. It must see exactly what the
// check saw when it read every result's JSON (prune-check-oracle.ts), on every fixture, a session
// spelled oddly and a generated one, on each leaf, at the first check and the later ones, and after
// every write since: prune, restore, prune again, appended lines, Canopy's own entries, an agent's
// id migration. A later check reads no JSON, and a prune leaves the originals in their blocks
// (entry_json.original_in_block), which are read, restored and follow an id migration as copies did.
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import { DEFAULT_PRUNING, type PruningConfig } from "../../../core/compaction/pruning.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { requireSession } from "../../../main/library/load.ts";
import { appendSessionEntries } from "../../../main/library/write.ts";
import { applyPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { loadToolOutputs } from "../../../main/pipelines/tool-outputs.ts";
import { MIGRATIONS, runMigrations } from "../../../main/store/migrations/index.ts";
import { listEntryRows } from "../../../main/store/repos/entries.ts";
import { replaceEntryJsonByPk } from "../../../main/store/repos/entry-json.ts";
import { writeTransaction } from "../../../main/store/transactions.ts";
import { previousToolOutputs } from "../../helpers/prune-check-oracle.ts";
import { fixturesDir } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "./harness.ts";

const deep = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;
const at = (i: number) =>
  `"timestamp":"2026-02-01T10:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z"`;

/** Tool results whose JSON is spelled oddly, each 4,000 characters of output. */
function oddSession(suffix = ""): string[] {
  const out = `"content":[{"type":"text","text":"${"x".repeat(4000)}"}]`;
  const results = [
    `"toolName":"read","toolName":"bash",${out}`, // duplicate key
    `"tool\\u004eame":"b\\u0061sh",${out}`, // escapes in the key and the value
    `"toolName":7,${out}`,
    `"toolName":true,"prunedAt":null,${out}`,
    `"toolName":{"a":[1,2]},${out}`,
    `"toolName":"bash","prunedAt":1.50,${out}`, // already pruned by the agent, an odd number form
    `"toolName":"bash","prunedAt":false,${out}`,
    `"toolName" : "grep" ,  "content" : [ { "type" : "text" , "text" : "${"y".repeat(4000)}" } ]`,
    `${out}`, // no tool name
    `"toolName":null,${out}`,
    `"toolName":"bash","details":${deep(1200)},${out}`, // deeper than SQLite's JSON functions read
    `"toolName":"read","details":${deep(1200)},"prunedAt":3,${out}`,
    `"toolName":"skill",${out}`,
    `"toolName":"bash",${out}`,
    `"toolName":"bash",${out}`,
  ];
  const lines: string[] = [];
  let parent = suffix === "" ? "u1" : "a99";
  results.forEach((fields, i) => {
    const n = i + 2;
    const id = `t${n}${suffix}`;
    lines.push(
      `{"type":"message","id":"${id}","parentId":"${parent}",${at(n)},"message":{"role":"toolResult","toolCallId":"c${n}",${fields},"isError":false,"timestamp":${n}}}`,
    );
    parent = id;
  });
  if (suffix === "")
    lines.push(
      `{"type":"message","id":"a99","parentId":"${parent}",${at(99)},"message":{"role":"assistant","toolName":"bash","content":[],"timestamp":99}}`,
    );
  return lines;
}

function oddFile(): string {
  return `${[
    `{"type":"session","version":3,"id":"0195f0c2-2222-7000-8000-0000000000aa","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/w"}`,
    `{"type":"message","id":"u1","parentId":null,${at(1)},"message":{"role":"user","content":"go","timestamp":1}}`,
    ...oddSession(),
  ].join("\n")}\n`;
}

/** A folder holding the fixtures, the odd session and a generated one. */
function writeSessions(dir: string): string {
  const folder = path.join(dir, "sessions");
  fs.mkdirSync(folder);
  for (const name of fs.readdirSync(fixturesDir()).filter((n) => n.endsWith(".jsonl")))
    fs.copyFileSync(path.join(fixturesDir(), name), path.join(folder, name));
  fs.writeFileSync(path.join(folder, "odd.jsonl"), oddFile());
  fs.writeFileSync(path.join(folder, "generated.jsonl"), generateSession(2000, { seed: 11 }).text);
  return folder;
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

const SMALL_RULE: PruningConfig = { protectTokens: 3000, minimumSavings: 0, protectedTools: ["skill", "read"] };

/** What the rule reads of each output; a pruned one's tool name is not read (the rule skips it). */
function asTheRuleSees(outputs: ReturnType<typeof previousToolOutputs>) {
  return outputs?.map((o) => ({ ...o, toolName: o.pruned ? "(not read)" : o.toolName })) ?? null;
}

/** Up to `max` leaves of the session (entries no other entry names as parent) and its view leaf. */
function someLeaves(db: BetterSqlite3.Database, sessionId: string, max = 4): (string | undefined)[] {
  const leaves = db
    .prepare(
      `SELECT e.id FROM entries AS e JOIN sessions AS s ON s.sid = e.sid
        WHERE s.id = ? AND e.id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM entries AS c WHERE c.sid = e.sid AND c.parent_id = e.id)
        ORDER BY e.seq LIMIT ?`,
    )
    .pluck()
    .all(sessionId, max) as string[];
  return [undefined, ...leaves];
}

/** Compares both routes on every session and some leaves of each; the number of results compared. */
function expectBothRoutesAgree(db: BetterSqlite3.Database, label: string): number {
  let compared = 0;
  for (const sessionId of db.prepare("SELECT id FROM sessions").pluck().all() as string[]) {
    for (const leaf of someLeaves(db, sessionId)) {
      // The current route first: it fills what it lacks, which the previous one must not need.
      const current = loadToolOutputs(db, sessionId, leaf)?.outputs ?? null;
      const previous = previousToolOutputs(db, sessionId, leaf);
      expect(asTheRuleSees(current), `${label}: ${sessionId} @ ${leaf}`).toEqual(asTheRuleSees(previous));
      compared += previous?.length ?? 0;
    }
  }
  return compared;
}

const factRows = (db: BetterSqlite3.Database) => db.prepare("SELECT count(*) FROM tool_facts").pluck().get() as number;

let h: Harness;
beforeEach(() => {
  h = createHarness();
  vi.spyOn(Date, "now").mockReturnValue(Date.parse("2026-03-01T12:00:00.000Z"));
});
afterEach(() => {
  vi.restoreAllMocks();
  h.close();
  removeDir(h.dir);
});

describe("the prune check reads what it read from the JSON (oracle: the route before tool_facts)", () => {
  it("on the fixtures, an oddly spelled session and a generated one, at the first check and later ones", async () => {
    const { db } = h.api.ctx;
    await h.call("library:import", { path: writeSessions(h.dir) });
    // The import leaves the table empty: filling it is the check's job, never the import's.
    expect(factRows(db)).toBe(0);
    const first = expectBothRoutesAgree(db, "first check");
    expect(first).toBeGreaterThan(1000);
    expect(factRows(db)).toBeGreaterThan(500);
    const filled = factRows(db);
    expect(expectBothRoutesAgree(db, "later check")).toBe(first);
    expect(factRows(db)).toBe(filled);
    // The unreadable ones are kept as such (parsed by the reader), the odd names as JSON.
    expect(db.prepare("SELECT count(*) FROM tool_facts WHERE pruned IS NULL").pluck().get()).toBe(2);
  }, 60_000);

  it("after prune, restore, prune again, appended lines, Canopy's entries and an agent's id migration", async () => {
    const { db } = h.api.ctx;
    const folder = writeSessions(h.dir);
    await h.call("library:import", { path: folder });
    expectBothRoutesAgree(db, "first check");
    const sessionIds = () => db.prepare("SELECT id FROM sessions WHERE problem_count = 0").pluck().all() as string[];

    let pruned = 0;
    for (const sessionId of sessionIds()) pruned += applyPrune(h.api.ctx, sessionId, undefined, SMALL_RULE).prunedCount;
    expect(pruned).toBeGreaterThan(100);
    expectBothRoutesAgree(db, "prune");
    for (const sessionId of sessionIds()) restorePruned(h.api.ctx, sessionId);
    expectBothRoutesAgree(db, "restore");
    for (const sessionId of sessionIds()) applyPrune(h.api.ctx, sessionId, undefined, SMALL_RULE);
    expectBothRoutesAgree(db, "prune after restore");

    // Lines the agent appended to a known file: no facts until a check reads them.
    const odd = path.join(folder, "odd.jsonl");
    fs.appendFileSync(odd, `${oddSession("b").join("\n")}\n`);
    const before = factRows(db);
    expect((await h.call("library:import", { path: odd })).files[0]?.entriesAdded).toBe(15);
    expect(factRows(db)).toBe(before);
    expectBothRoutesAgree(db, "appended lines");
    expect(factRows(db)).toBeGreaterThan(before);

    // Entries Canopy adds itself (a tool result after the generated session's view leaf).
    const generated = db.prepare("SELECT id FROM sessions WHERE source_path LIKE '%generated.jsonl'").pluck().get() as string;
    const leaf = loadToolOutputs(db, generated)?.leafId as string;
    const output = {
      type: "message",
      id: "cafe0001",
      parentId: leaf,
      timestamp: "2026-03-01T12:00:00.000Z",
      message: { role: "toolResult", toolCallId: "k1", toolName: "bash", content: [{ type: "text", text: "z".repeat(40_000) }], isError: false, timestamp: 1 },
    };
    appendSessionEntries(db, generated, [output as SessionEntry]);
    await h.call("session:set-view-leaf", { sessionId: generated, leafId: "cafe0001" });
    expectBothRoutesAgree(db, "Canopy's entries");
    applyPrune(h.api.ctx, generated, "cafe0001", DEFAULT_PRUNING);
    expectBothRoutesAgree(db, "prune by the default rule");

    // The agent rewrites a v1 file as v3 with new ids (SPEC §1.8): stored entries are replaced by
    // the file's (new rows: no facts yet) and the pruned ones rewritten on their new ids.
    const v1 = path.join(folder, "real-large-session.v1.jsonl");
    migrateAsTheAgent(v1);
    expect((await h.call("library:import", { path: v1 })).files[0]).toMatchObject({ status: "updated", entriesAdded: 0 });
    expect(db.prepare("SELECT count(*) FROM entries WHERE id LIKE 'm%'").pluck().get()).toBeGreaterThan(100);
    expectBothRoutesAgree(db, "agent id migration");
    // Rows of deleted entries go with them.
    expect(db.prepare("SELECT count(*) FROM tool_facts WHERE pk NOT IN (SELECT pk FROM entries)").pluck().get()).toBe(0);
  }, 60_000);
});

describe("a later prune check and a prune", () => {
  it("a check after the first reads no entry's JSON: its statements touch neither entry_blocks nor entry_json", async () => {
    const { db } = h.api.ctx;
    const sessionId = (await h.call("library:import", { path: path.join(writeSessions(h.dir), "generated.jsonl") })).files[0]
      ?.sessionId as string;
    expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBeGreaterThan(100);
    const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as BetterSqlite3.Statement;
    const sources: string[] = [];
    for (const method of ["all", "get", "iterate", "run"] as const) {
      const original = proto[method] as (...args: unknown[]) => unknown;
      vi.spyOn(proto, method).mockImplementation(function (this: BetterSqlite3.Statement, ...args: unknown[]) {
        sources.push(this.source);
        return original.apply(this, args);
      } as never);
    }
    const preview = await h.call("pruning:preview", { sessionId });
    expect(preview.candidateCount).toBe(0);
    expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBe(0);
    vi.mocked(proto.all).mockRestore();
    expect(sources.length).toBeGreaterThan(2);
    expect(sources.filter((sql) => /entry_blocks|entry_json/.test(sql))).toEqual([]);
  }, 60_000);

  it("leaves each pruned original in its block (no copy into original_json), read and restored as before", async () => {
    const { db } = h.api.ctx;
    const sessionId = (await h.call("library:import", { path: path.join(writeSessions(h.dir), "generated.jsonl") })).files[0]
      ?.sessionId as string;
    const texts = () =>
      db
        .prepare(
          `SELECT e.pk, coalesce(j.json, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)) FROM entries AS e
             LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block ORDER BY e.pk`,
        )
        .raw(true)
        .all() as [number, string][];
    const imported = texts();
    const pruned = (await h.call("pruning:apply", { sessionId })).prunedCount;
    expect(pruned).toBeGreaterThan(100);
    expect(db.prepare("SELECT count(*) FROM entry_json WHERE original_in_block = 1 AND original_json IS NULL").pluck().get()).toBe(
      pruned,
    );
    expect(db.prepare("SELECT count(*) FROM entry_json WHERE original_json IS NOT NULL").pluck().get()).toBe(0);
    expect((await h.call("pruning:restore", { sessionId })).prunedCount).toBe(pruned);
    expect(texts()).toEqual(imported);
  }, 60_000);
});

describe("migration 9 on a library schema 8 wrote", () => {
  it("keeps the originals schema 8 copied: checked, restored and pruned again as before", async () => {
    const { db } = h.api.ctx;
    await h.call("library:import", { path: writeSessions(h.dir) });
    db.exec(`
      DROP TRIGGER entry_json_tool_facts_insert;
      DROP TRIGGER entry_json_tool_facts_update;
      DROP TRIGGER entry_json_tool_facts_delete;
      DROP TABLE tool_facts;
      ALTER TABLE entry_json DROP COLUMN original_in_block;
    `);
    db.pragma("user_version = 8");
    // Pruned as schema 8 did: each original copied out of its block into original_json.
    const results = db
      .prepare("SELECT pk FROM entries WHERE role = 'toolResult' AND id IS NOT NULL AND json_block IS NOT NULL ORDER BY pk LIMIT 300")
      .pluck()
      .all() as number[];
    const copy = db.prepare(
      `INSERT INTO entry_json (pk, json, original_json)
       SELECT e.pk, json_set(t, '$.message.content', json('[]'), '$.message.prunedAt', 5), t
         FROM (SELECT e.pk AS pk, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT) AS t
                 FROM entries AS e JOIN entry_blocks AS b ON b.block = e.json_block WHERE e.pk = ?) AS x
         JOIN entries AS e ON e.pk = x.pk`,
    );
    for (const pk of results) copy.run(pk);
    const copied = db.prepare("SELECT pk, original_json FROM entry_json ORDER BY pk").raw(true).all();

    expect(runMigrations(db, MIGRATIONS, 9)).toEqual({
      from: 8,
      to: 9,
      applied: [expect.stringMatching(/^pruning: tool result facts/)],
    });
    expectBothRoutesAgree(db, "after the migration");
    expect(listPrunedOriginals(db)).toEqual(copied);
    const sessionIds = db.prepare("SELECT id FROM sessions WHERE problem_count = 0").pluck().all() as string[];
    let restored = 0;
    for (const sessionId of sessionIds) restored += restorePruned(h.api.ctx, sessionId).prunedCount;
    expect(restored).toBe(results.length);
    expectBothRoutesAgree(db, "restored");
    for (const sessionId of sessionIds) applyPrune(h.api.ctx, sessionId, undefined, SMALL_RULE);
    expectBothRoutesAgree(db, "pruned again");
  }, 60_000);
});

/** pk and original of every row that holds one as schema 8 kept it (copied). */
function listPrunedOriginals(db: BetterSqlite3.Database) {
  return db.prepare("SELECT pk, original_json FROM entry_json WHERE original_in_block = 0 ORDER BY pk").raw(true).all();
}

describe("an original left in its block (schema 8)", () => {
  it("follows an agent's id migration on an entry Canopy added and pruned", async () => {
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
      message: { role: "toolResult", toolCallId: "k1", toolName: "bash", content: [{ type: "text", text: "out" }], isError: false, timestamp: 1 },
    };
    appendSessionEntries(db, sessionId, [output as SessionEntry]);
    const added = () => listEntryRows(db, sid).find((row) => row.id === "cafe0001");
    const original = added()?.json as string;
    const pruned = JSON.stringify({ ...output, message: { ...output.message, content: [], prunedAt: 5 } });
    writeTransaction(db, () => replaceEntryJsonByPk(db, [{ pk: added()?.pk as number, json: pruned, tokens: 1 }]))();
    expect(added()).toMatchObject({ json: pruned, original_json: original });
    expect(db.prepare("SELECT original_in_block FROM entry_json WHERE pk = ?").pluck().get(added()?.pk)).toBe(1);

    migrateAsTheAgent(file);
    expect((await h.call("library:import", { path: file })).files[0]).toMatchObject({ status: "updated" });
    const after = added();
    const parentOf = (json: string | null | undefined) => (JSON.parse(json as string) as { parentId: string }).parentId;
    expect(parentOf(after?.json)).toMatch(/^m/);
    // The original is rewritten on the new ids too, not read back from the block.
    expect(after?.original_json).toBe(original.replace(`"parentId":"${last}"`, `"parentId":"${parentOf(after?.json)}"`));
  }, 60_000);
});

describe("a first check while another connection holds the write lock (an import on its thread)", () => {
  it("answers at once from the JSON, storing nothing; the next check stores the facts", async () => {
    const { db } = h.api.ctx;
    const sessionId = (await h.call("library:import", { path: path.join(writeSessions(h.dir), "generated.jsonl") })).files[0]
      ?.sessionId as string;
    const other = new BetterSqlite3(h.dbPath);
    try {
      other.exec("BEGIN IMMEDIATE");
      const started = performance.now();
      const preview = await h.call("pruning:preview", { sessionId });
      // busy_timeout is 5 s: the fill did not wait for it.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(preview.candidateCount).toBeGreaterThan(100);
      expect(factRows(db)).toBe(0);
      expect(expectBothRoutesAgree(db, "read without storing")).toBeGreaterThan(500);
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      other.exec("ROLLBACK");
      expect(await h.call("pruning:preview", { sessionId })).toEqual(preview);
      expect(factRows(db)).toBeGreaterThan(500);
    } finally {
      other.close();
    }
  }, 60_000);
});
