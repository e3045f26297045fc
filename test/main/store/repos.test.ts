// Repos: settings round trip, entry/malformed rows, search query sanitising, and query plans of
// the hot queries (they must use an index, never scan a table or sort in a temp b-tree).
import path from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../main/store/open.ts";
import {
  countEntriesByType,
  entryJsonByPk,
  getEntryRowById,
  insertEntries,
  insertMalformed,
  lastEntryId,
  listEntryRows,
  listEntryShapes,
  maxSeq,
  type NewEntryRow,
} from "../../../main/store/repos/entries.ts";
import { searchEntryText, toFtsQuery } from "../../../main/store/repos/search.ts";
import {
  deleteSession,
  getSessionRow,
  insertSession,
  updateSession,
} from "../../../main/store/repos/sessions.ts";
import { deleteSetting, getSetting, listSettings, setSetting } from "../../../main/store/repos/settings.ts";
import { makeTempDir } from "./helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
let db: Database;
beforeEach(() => {
  tmp = makeTempDir();
  db = openDatabase(path.join(tmp.dir, "library.db"));
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

function addSession(id: string): void {
  insertSession(db, {
    id,
    header_id: id,
    dialect: "pi",
    original_version: 3,
    header_json: JSON.stringify({
      type: "session",
      version: 3,
      id,
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    }),
    cwd: "/x",
    created: "2026-01-01T00:00:00.000Z",
    modified: "2026-01-01T00:00:00.000Z",
  });
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
    json,
    origin: "file",
    text,
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
    db.close();
    db = openDatabase(path.join(tmp.dir, "library.db"));
    expect(getSetting(db, "k")).toEqual([1, "two"]);
  });
});

describe("sessions and entries", () => {
  it("stores duplicate ids, resolves lookups to the last one, cascades deletes to search text", () => {
    addSession("s1");
    db.transaction(() => {
      insertEntries(db, "s1", [
        entry(2, "a", null, "alpha"),
        entry(3, "b", "a", "bravo"),
        entry(5, "a", "b", "again"),
      ]);
      insertMalformed(db, "s1", [{ seq: 4, raw: "{broken", error: "Unexpected end" }]);
    })();
    expect(listEntryRows(db, "s1").map((r) => r.seq)).toEqual([2, 3, 5]);
    expect(getEntryRowById(db, "s1", "a")?.seq).toBe(5);
    expect(lastEntryId(db, "s1")).toBe("a");
    expect(maxSeq(db, "s1")).toBe(5);
    expect(countEntriesByType(db, "s1")).toEqual([{ type: "message", role: "user", n: 3 }]);
    const shapes = listEntryShapes(db, "s1");
    expect(shapes.map((s) => s[2])).toEqual(["a", "b", "a"]);
    const pks = shapes.map((s) => s[0]).reverse();
    expect(entryJsonByPk(db, pks).map((j) => (JSON.parse(j) as { id: string }).id)).toEqual(["a", "b", "a"]);
    expect(searchEntryText(db, "bravo").map((h) => h.entry_id)).toEqual(["b"]);

    updateSession(db, "s1", { title: "T", view_leaf_id: "b", view_leaf_set: 1 });
    expect(getSessionRow(db, "s1")?.title).toBe("T");
    expect(() => updateSession(db, "s1", { ["bogus" as "title"]: "x" })).toThrow(/unknown session column/);

    expect(deleteSession(db, "s1")).toBe(true);
    expect(db.prepare("SELECT count(*) FROM entries").pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM malformed_lines").pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM entry_text").pluck().get()).toBe(0);
  });
});

describe("search", () => {
  it("quotes every token so FTS syntax in user input never throws", () => {
    expect(toFtsQuery("")).toBeNull();
    expect(toFtsQuery("  -- * ")).toBeNull();
    expect(toFtsQuery('foo "bar')).toBe('"foo" """bar"*');
    addSession("s1");
    insertEntries(db, "s1", [entry(2, "a", null, "refactor the parser: NEAR(tree, index) AND more")]);
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
    const hits = searchEntryText(db, "PARSE");
    expect(hits).toHaveLength(1);
    expect(hits[0]?.snippet).toContain("[parser]");
    expect(searchEntryText(db, "near(tree")).toHaveLength(1);
    expect(searchEntryText(db, "absent words")).toEqual([]);
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
      "SELECT * FROM entries WHERE session_id = ? ORDER BY seq",
      ["s"],
      /sqlite_autoindex_entries_1/,
    ],
    [
      "entry by id",
      "SELECT * FROM entries WHERE session_id = ? AND id = ? ORDER BY seq DESC LIMIT 1",
      ["s", "a"],
      /entries_by_id/,
    ],
    [
      "children of an entry",
      "SELECT id FROM entries WHERE session_id = ? AND parent_id = ?",
      ["s", "a"],
      /entries_by_parent/,
    ],
    [
      "counts by type",
      "SELECT type, role, count(*) FROM entries WHERE session_id = ? GROUP BY type, role",
      ["s"],
      /COVERING INDEX entries_by_type/,
    ],
    [
      "first user message",
      "SELECT json FROM entries WHERE session_id = ? AND type = ? AND role = ? ORDER BY seq LIMIT 1",
      ["s", "message", "user"],
      /entries_by_type|sqlite_autoindex_entries_1/,
    ],
    [
      "malformed lines of a session",
      "SELECT seq, raw, error FROM malformed_lines WHERE session_id = ? ORDER BY seq",
      ["s"],
      /sqlite_autoindex_malformed_lines_1/,
    ],
    ["session by file", "SELECT * FROM sessions WHERE source_path = ?", ["/p"], /sessions_by_source_path/],
    ["library list", "SELECT * FROM sessions ORDER BY modified DESC, id", [], /sessions_by_modified/],
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
      expect(p).not.toMatch(/SCAN (entries|sessions|malformed_lines)\b(?! USING)/);
    });
  }

  it("the list order needs no sort at all", () => {
    expect(plan("SELECT * FROM entries WHERE session_id = ? ORDER BY seq", "s")).not.toMatch(/TEMP B-TREE/);
    expect(plan("SELECT * FROM malformed_lines WHERE session_id = ? ORDER BY seq", "s")).not.toMatch(
      /TEMP B-TREE/,
    );
  });
});
