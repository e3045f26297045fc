// Repos: settings round trip, entry/malformed rows, search query sanitising, and query plans of
// the hot queries (they must use an index, never scan a table or sort in a temp b-tree).
import type { Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  entryJsonByPk,
  getEntryRowById,
  insertEntries,
  insertMalformed,
  LABEL_PKS_SQL,
  lastEntryId,
  listEntryRows,
  listEntryShapes,
  maxSeq,
  type NewEntryRow,
} from "../../../main/store/repos/entries.ts";
import {
  insertEntryText,
  pendingTextRows,
  searchEntryText,
  searchWatermark,
  setSearchWatermark,
  toFtsQuery,
} from "../../../main/store/repos/search.ts";
import { deleteSession, getSessionRow, updateSession } from "../../../main/store/repos/sessions.ts";
import { deleteSetting, getSetting, listSettings, setSetting } from "../../../main/store/repos/settings.ts";
import { addTestSession, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
let db: Database;
beforeEach(() => {
  lib = makeLibrary();
  db = lib.db;
});
afterEach(() => lib.cleanup());

function addSession(id: string): number {
  return addTestSession(db, id);
}

function entry(seq: number, id: string, parentId: string | null, text: string): NewEntryRow {
  const json = JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "t",
    message: { role: "user", content: text },
  });
  return {
    seq,
    id,
    parentId,
    type: "message",
    role: "user",
    model: null,
    timestamp: "t",
    tokens: 3,
    usage: null,
    json,
    origin: "file",
  };
}

describe("settings", () => {
  it("round-trips JSON values and deletes", () => {
    const value = { folders: ["/a", "/b"], nested: { n: 1.5, ok: true, none: null } };
    setSetting(db, "library.folders", value);
    setSetting(db, "ui.theme", "dark");
    expect(getSetting(db, "library.folders")).toEqual(value);
    setSetting(db, "ui.theme", "light");
    expect(listSettings(db)).toEqual({ "library.folders": value, "ui.theme": "light" });
    expect(deleteSetting(db, "ui.theme")).toBe(true);
    expect(getSetting(db, "ui.theme")).toBeUndefined();
    setSetting(db, "library.folders", undefined);
    expect(getSetting(db, "library.folders")).toBeUndefined();
  });

  it("survives a re-open", () => {
    setSetting(db, "k", [1, "two"]);
    db = lib.reopen();
    expect(getSetting(db, "k")).toEqual([1, "two"]);
  });
});

describe("sessions and entries", () => {
  it("stores duplicate ids, resolves lookups to the last one, cascades deletes to JSON and search text", () => {
    const sid = addSession("s1");
    let pks: number[] = [];
    db.transaction(() => {
      pks = insertEntries(db, sid, [
        entry(2, "a", null, "alpha"),
        entry(3, "b", "a", "bravo"),
        entry(5, "a", "b", "again"),
      ]);
      insertMalformed(db, sid, [{ seq: 4, raw: "{broken", error: "Unexpected end" }]);
      pks.forEach((pk, i) => {
        insertEntryText(db, pk, ["alpha", "bravo", "again"][i] ?? "");
      });
    })();
    expect(listEntryRows(db, sid).map((r) => r.seq)).toEqual([2, 3, 5]);
    expect(getEntryRowById(db, sid, "a")?.seq).toBe(5);
    expect(lastEntryId(db, sid)).toBe("a");
    expect(maxSeq(db, sid)).toBe(5);
    const shapes = listEntryShapes(db, sid);
    expect(shapes.map((s) => s[2])).toEqual(["a", "b", "a"]);
    const reversed = shapes.map((s) => s[0]).reverse();
    expect(entryJsonByPk(db, reversed).map((j) => (JSON.parse(j) as { id: string }).id)).toEqual([
      "a",
      "b",
      "a",
    ]);
    expect(searchEntryText(db, "bravo").map((h) => h.entry_id)).toEqual(["b"]);

    updateSession(db, "s1", { title: "T", view_leaf_id: "b", view_leaf_set: 1 });
    expect(getSessionRow(db, "s1")?.title).toBe("T");
    expect(() => updateSession(db, "s1", { ["bogus" as "title"]: "x" })).toThrow(/unknown session column/);

    expect(deleteSession(db, "s1")).toBe(true);
    for (const table of ["entries", "entry_blocks", "entry_json", "malformed_lines"]) {
      expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
    }
    expect(searchEntryText(db, "bravo")).toEqual([]);
  });

  it("keeps pk monotonic after deleting the newest entry (the search watermark relies on it)", () => {
    const sid = addSession("s1");
    const [first] = insertEntries(db, sid, [entry(2, "a", null, "x")]);
    db.prepare("DELETE FROM entries WHERE pk = ?").run(first);
    const [second] = insertEntries(db, sid, [entry(2, "a", null, "x")]);
    expect(second).toBeGreaterThan(first ?? 0);
  });
});

describe("search", () => {
  it("quotes every token so FTS syntax in user input never throws", () => {
    expect(toFtsQuery("")).toBeNull();
    expect(toFtsQuery("  -- * ")).toBeNull();
    expect(toFtsQuery('foo "bar')).toBe('"foo" "bar"*');
    expect(toFtsQuery("coding-agent x")).toBe('"coding agent" "x"*');
    const sid = addSession("s1");
    const [pk] = insertEntries(db, sid, [entry(2, "a", null, "")]);
    insertEntryText(db, pk ?? 0, "refactor the parser: NEAR(tree, index) AND more of the coding-agent");
    for (const q of [
      '"',
      "NEAR(",
      "a OR",
      "x AND (y",
      "col:val",
      "^start",
      "tree*",
      "*",
      "'; DROP TABLE entries; --",
    ]) {
      expect(() => searchEntryText(db, q), q).not.toThrow();
    }
    expect(searchEntryText(db, "PARSE")).toHaveLength(1);
    expect(searchEntryText(db, "near(tree")).toHaveLength(1);
    expect(searchEntryText(db, "coding-agent")).toHaveLength(1);
    expect(searchEntryText(db, "agent-coding")).toHaveLength(0);
    expect(searchEntryText(db, "absent words")).toEqual([]);
  });

  it("tracks a watermark of indexed entries", () => {
    const sid = addSession("s1");
    const pks = insertEntries(db, sid, [entry(2, "a", null, ""), entry(3, "b", "a", "")]);
    expect(searchWatermark(db)).toBe(0);
    expect(pendingTextRows(db, 0, 10).map((r) => r[0])).toEqual(pks);
    setSearchWatermark(db, pks[0] ?? 0);
    expect(pendingTextRows(db, searchWatermark(db), 10).map((r) => r[0])).toEqual(pks.slice(1));
  });
});

function plan(sql: string, ...params: unknown[]): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((r) => r.detail).join("\n");
}

describe("query plans of hot queries", () => {
  const cases: [name: string, sql: string, params: unknown[], index: RegExp][] = [
    [
      "entries of a session in order",
      "SELECT e.*, j.json FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? ORDER BY e.seq",
      [1],
      /SEARCH e USING INDEX sqlite_autoindex_entries_1[\s\S]*SEARCH j USING INTEGER PRIMARY KEY/,
    ],
    [
      "a block of entry JSON",
      "SELECT data FROM entry_blocks WHERE block = ?",
      [1],
      /SEARCH entry_blocks USING INTEGER PRIMARY KEY/,
    ],
    [
      "entry by id",
      "SELECT pk FROM entries WHERE sid = ? AND id = ? ORDER BY seq DESC LIMIT 1",
      [1, "a"],
      /COVERING INDEX entries_by_id/,
    ],
    [
      "entry id exists",
      "SELECT 1 FROM entries WHERE sid = ? AND id = ? LIMIT 1",
      [1, "a"],
      /COVERING INDEX entries_by_id/,
    ],
    [
      "tree shape of a session",
      "SELECT pk, seq, id, parent_id, type, role, model FROM entries WHERE sid = ? ORDER BY seq",
      [1],
      /sqlite_autoindex_entries_1/,
    ],
    // A label set from the canvas reads the current labels: not a walk over every entry row.
    ["label entries of a session", LABEL_PKS_SQL, [1], /USING COVERING INDEX entries_labels/],
    [
      "last entry",
      "SELECT id FROM entries WHERE sid = ? ORDER BY seq DESC LIMIT 1",
      [1],
      /sqlite_autoindex_entries_1/,
    ],
    [
      "malformed lines of a session",
      "SELECT seq, raw, error FROM malformed_lines WHERE sid = ? ORDER BY seq",
      [1],
      /sqlite_autoindex_malformed_lines_1/,
    ],
    ["session by id", "SELECT * FROM sessions WHERE id = ?", ["s"], /sqlite_autoindex_sessions_1/],
    ["session by file", "SELECT * FROM sessions WHERE source_path = ?", ["/p"], /sessions_by_source_path/],
    ["library list", "SELECT * FROM sessions ORDER BY modified DESC, id", [], /sessions_by_modified/],
    [
      "pending search text",
      "SELECT e.pk, j.json FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.pk > ? ORDER BY e.pk LIMIT ?",
      [0, 10],
      /SEARCH e USING INTEGER PRIMARY KEY[\s\S]*SEARCH j USING INTEGER PRIMARY KEY/,
    ],
    [
      "full-text match",
      "SELECT rowid FROM entry_text WHERE entry_text MATCH ? ORDER BY rank LIMIT 5",
      ['"x"'],
      /VIRTUAL TABLE INDEX/,
    ],
  ];
  for (const [name, sql, params, index] of cases) {
    it(name, () => {
      const p = plan(sql, ...params);
      expect(p).toMatch(index);
      expect(p).not.toMatch(
        /SCAN (entries|entry_json|entry_blocks|sessions|malformed_lines|e|j|s)\b(?! USING)/,
      );
    });
  }

  it("the list order needs no sort at all", () => {
    expect(plan("SELECT * FROM entries WHERE sid = ? ORDER BY seq", 1)).not.toMatch(/TEMP B-TREE/);
    expect(plan("SELECT * FROM malformed_lines WHERE sid = ? ORDER BY seq", 1)).not.toMatch(/TEMP B-TREE/);
  });
});
