// Entry JSON in blocks (schema v4): what is written comes back byte for byte, adjacent lines of
// one buffer are stored as a view (no copy), big entries get a block of their own, an edit keeps
// the block's text as the original, and a library from before v4 (entry_json rows) still reads.
import path from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS, runMigrations } from "../../../main/store/migrations/index.ts";
import { openDatabase } from "../../../main/store/open.ts";
import {
  entryJson,
  entryJsonByPk,
  getEntryRowById,
  insertEntries,
  listEntryRows,
  type NewEntryRow,
  storedIdlessJson,
} from "../../../main/store/repos/entries.ts";
import { BLOCK_BYTES, EntryJsonReader, writeJsonBlocks } from "../../../main/store/repos/entry-blocks.ts";
import {
  listPrunedEntryRows,
  replaceEntryJson,
  restoreEntryJson,
} from "../../../main/store/repos/entry-json.ts";
import { pendingTextRows } from "../../../main/store/repos/search.ts";
import { deleteSession } from "../../../main/store/repos/sessions.ts";
import { addTestSession, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
let db: Database;
beforeEach(() => {
  lib = makeLibrary();
  db = lib.db;
});
afterEach(() => lib.cleanup());

function row(seq: number, id: string | null, json: string | Uint8Array): NewEntryRow {
  return {
    seq,
    id,
    parentId: null,
    type: "message",
    role: "user",
    model: null,
    timestamp: null,
    tokens: 1,
    usage: null,
    json,
    origin: "file",
  };
}

function message(id: string, text: string): string {
  return JSON.stringify({ type: "message", id, parentId: null, message: { role: "user", content: text } });
}

const blockCount = (): number => db.prepare("SELECT count(*) FROM entry_blocks").pluck().get() as number;

describe("entry JSON in blocks", () => {
  it("gives back every entry's text exactly, multi-byte characters and \\r\\n line ends included", () => {
    const sid = addTestSession(db, "s1");
    const texts = [
      message("a", "naïve café ☕ 𝄞"),
      message("b", '\u00a0tab\tquote"back\\slash'),
      message("c", ""),
    ];
    // The lines as a file holds them: CRLF after the first, LF after the second.
    const file = Buffer.from(`${texts[0]}\r\n${texts[1]}\n${texts[2]}\n`);
    const views = texts.map((t) => {
      const at = file.indexOf(Buffer.from(t));
      return file.subarray(at, at + Buffer.byteLength(t));
    });
    const pks = insertEntries(
      db,
      sid,
      views.map((v, i) => row(i + 2, ["a", "b", "c"][i] as string, v)),
    );
    expect(blockCount()).toBe(1);
    // Lines next to each other in one buffer are stored as one span of it, separators included.
    expect(db.prepare("SELECT length(data) FROM entry_blocks").pluck().get()).toBe(file.length - 1);
    expect(entryJsonByPk(db, pks)).toEqual(texts);
    expect(listEntryRows(db, sid).map((r) => r.json)).toEqual(texts);
    expect(entryJson(db, pks[1] as number)).toBe(texts[1]);
    expect(getEntryRowById(db, sid, "c")?.json).toBe(texts[2]);
  });

  it("packs texts from different places (strings, other buffers) into one block by copying them", () => {
    const sid = addTestSession(db, "s1");
    const texts = [message("a", "one"), message("b", "two"), message("c", "three")];
    const rows = [
      row(2, "a", texts[0] as string),
      row(3, "b", Buffer.from(texts[1] as string)),
      row(4, "c", texts[2] as string),
    ];
    const pks = insertEntries(db, sid, rows);
    expect(blockCount()).toBe(1);
    expect(db.prepare("SELECT length(data) FROM entry_blocks").pluck().get()).toBe(
      Buffer.byteLength(texts.join("")),
    );
    expect(entryJsonByPk(db, [...pks].reverse())).toEqual([...texts].reverse());
  });

  it("fills blocks up to BLOCK_BYTES and gives an entry larger than that a block of its own", () => {
    const sid = addTestSession(db, "s1");
    const big = message("big", "x".repeat(BLOCK_BYTES * 2));
    const small = Array.from({ length: 200 }, (_, i) => message(`m${i}`, "y".repeat(2000)));
    const texts = [...small.slice(0, 100), big, ...small.slice(100)];
    const places = writeJsonBlocks(db, sid, texts);
    const sizes = db
      .prepare("SELECT length(data) FROM entry_blocks ORDER BY block")
      .pluck()
      .all() as number[];
    for (const size of sizes) expect(size).toBeLessThan(BLOCK_BYTES + 3000 + big.length);
    expect(sizes.length).toBeGreaterThan(3);
    const bigPlace = places[100];
    expect(places.filter((p) => p.block === bigPlace?.block)).toHaveLength(1);
    const reader = new EntryJsonReader(db);
    const back = places.map((p) =>
      reader.text({ json: null, json_block: p.block, json_at: p.at, json_len: p.len }),
    );
    expect(back).toEqual(texts);
  });

  it("an edit keeps the block's text as the original, and restoring brings it back", () => {
    const sid = addTestSession(db, "s1");
    const original = JSON.stringify({
      type: "message",
      id: "t",
      parentId: null,
      message: { role: "toolResult", content: [{ type: "text", text: "long output" }] },
    });
    insertEntries(db, sid, [row(2, "t", original)]);
    const pruned = JSON.stringify({
      type: "message",
      id: "t",
      parentId: null,
      message: { role: "toolResult", content: [], prunedAt: "2026-01-02T00:00:00.000Z" },
    });
    expect(replaceEntryJson(db, sid, "t", pruned, 1)).toBe(true);
    const edited = listEntryRows(db, sid)[0];
    expect(edited?.json).toBe(pruned);
    expect(edited?.original_json).toBe(original);
    // A second edit keeps the first original.
    expect(replaceEntryJson(db, sid, "t", pruned.replace("2026-01-02", "2026-01-03"), 1)).toBe(true);
    expect(listEntryRows(db, sid)[0]?.original_json).toBe(original);
    expect(listPrunedEntryRows(db, sid).map((r) => r.originalJson)).toEqual([original]);
    restoreEntryJson(db, edited?.pk as number, 5);
    expect(listEntryRows(db, sid)[0]?.json).toBe(original);
    expect(pendingTextRows(db, 0, 10)).toEqual([[edited?.pk, original]]);
  });

  it("matches id-less entries by their text, wherever it is stored", () => {
    const sid = addTestSession(db, "s1");
    const idless = JSON.stringify({ type: "note", text: "no id" });
    insertEntries(db, sid, [row(2, null, idless), row(3, "a", message("a", "x"))]);
    expect(storedIdlessJson(db, sid)).toEqual(new Set([idless]));
  });

  it("deleting a session deletes its blocks, and only its own", () => {
    const s1 = addTestSession(db, "s1");
    const s2 = addTestSession(db, "s2");
    insertEntries(db, s1, [row(2, "a", message("a", "1"))]);
    insertEntries(db, s2, [row(2, "b", message("b", "2"))]);
    expect(deleteSession(db, "s1")).toBe(true);
    expect(db.prepare("SELECT sid FROM entry_blocks").pluck().all()).toEqual([s2]);
    expect(listEntryRows(db, s2).map((r) => r.json)).toEqual([message("b", "2")]);
  });

  it("a library from version 3 keeps reading its entry_json rows, and new entries go to blocks", () => {
    db.close();
    const file = path.join(lib.dir, "v3.db");
    const old = new BetterSqlite3(file);
    runMigrations(old, MIGRATIONS, 3);
    const sid = addTestSession(old, "s1");
    const before = message("a", "stored by version 3");
    old
      .prepare("INSERT INTO entries (pk, sid, seq, id, type, role) VALUES (1, ?, 2, 'a', 'message', 'user')")
      .run(sid);
    old.prepare("INSERT INTO entry_json (pk, json) VALUES (1, ?)").run(before);
    old.close();

    // The upgraded library replaces the test's own (closed and removed with it).
    lib.db = openDatabase(file);
    db = lib.db;
    const after = message("b", "stored by version 4");
    insertEntries(db, sid, [row(3, "b", after)]);
    expect(listEntryRows(db, sid).map((r) => r.json)).toEqual([before, after]);
    expect(db.prepare("SELECT count(*) FROM entry_json").pluck().get()).toBe(1);
    expect(blockCount()).toBe(1);
  });

  it("reports a damaged library (an entry without JSON) in words", () => {
    const sid = addTestSession(db, "s1");
    const [pk] = insertEntries(db, sid, [row(2, "a", message("a", "x"))]);
    db.prepare("DELETE FROM entry_blocks").run();
    expect(() => entryJson(db, pk as number)).toThrow(/missing; the database is damaged/);
  });
});
