// Migration runner: fresh database, idempotent re-open, refusal of a newer schema, atomicity.
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DatabaseTooNewError, StoreError } from "../../../main/store/errors.ts";
import {
  LATEST_VERSION,
  MIGRATIONS,
  type Migration,
  runMigrations,
  schemaVersion,
} from "../../../main/store/migrations/index.ts";
import { sessionUsage } from "../../../main/library/usage.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { makeTempDir } from "./helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => tmp.cleanup());

function tableNames(db: BetterSqlite3.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all() as string[]
  ).filter((n) => !n.startsWith("entry_text_"));
}

describe("openDatabase + migrations", () => {
  it("creates the latest schema on a fresh file with the documented pragmas", () => {
    const file = path.join(tmp.dir, "nested", "library.db");
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(tableNames(db)).toEqual([
      "archived_entries",
      "edit_ops",
      "entries",
      "entry_blocks",
      "entry_json",
      "entry_text",
      "entry_usage",
      "malformed_lines",
      "session_changes",
      "sessions",
      "settings",
      "settings_changes",
      "store_meta",
      "tool_facts",
      "usage_legacy",
      "usage_unread",
    ]);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    const strict = db
      .prepare("SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table'")
      .all() as {
      name: string;
      strict: number;
    }[];
    for (const t of strict.filter((t) =>
      [
        "sessions",
        "entries",
        "entry_blocks",
        "entry_json",
        "malformed_lines",
        "session_changes",
        "settings",
        "store_meta",
        "tool_facts",
        "entry_usage",
        "usage_legacy",
        "usage_unread",
      ].includes(t.name),
    )) {
      expect(t.strict, t.name).toBe(1);
    }
    db.close();
  });

  it("re-opening is idempotent", () => {
    const file = path.join(tmp.dir, "library.db");
    openDatabase(file).close();
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(runMigrations(db)).toEqual({ from: LATEST_VERSION, to: LATEST_VERSION, applied: [] });
    db.close();
  });

  it("refuses a database written by a newer Canopy, with a clear coded error, and leaves it alone", () => {
    const file = path.join(tmp.dir, "future.db");
    const raw = new BetterSqlite3(file);
    raw.pragma(`user_version = ${LATEST_VERSION + 5}`);
    raw.close();
    let caught: unknown;
    try {
      openDatabase(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DatabaseTooNewError);
    const err = caught as DatabaseTooNewError;
    expect(err.code).toBe("db_too_new");
    expect(err.found).toBe(LATEST_VERSION + 5);
    expect(err.message).toMatch(/newer|only knows/);
    const check = new BetterSqlite3(file);
    expect(check.pragma("user_version", { simple: true })).toBe(LATEST_VERSION + 5);
    check.close();
  });

  it("runs all pending steps in one transaction: a failing step rolls back the earlier ones", () => {
    const db = new BetterSqlite3(path.join(tmp.dir, "atomic.db"));
    const steps: Migration[] = [
      { version: 1, name: "one", up: (d) => d.exec("CREATE TABLE a (x INTEGER) STRICT") },
      { version: 2, name: "two", up: (d) => d.exec("CREATE TABLE b (x INTEGER) STRICT") },
      {
        version: 3,
        name: "broken",
        up: (d) => {
          d.exec("CREATE TABLE c (x INTEGER) STRICT");
          throw new Error("boom");
        },
      },
    ];
    expect(() => runMigrations(db, steps)).toThrow(StoreError);
    expect(schemaVersion(db)).toBe(0);
    expect(tableNames(db)).toEqual([]);
    expect(runMigrations(db, steps, 2)).toEqual({ from: 0, to: 2, applied: ["one", "two"] });
    expect(schemaVersion(db)).toBe(2);
    db.close();
  });

  it("rejects a registry whose versions are not consecutive", () => {
    const db = new BetterSqlite3(":memory:");
    const steps: Migration[] = [{ version: 2, name: "gap", up: () => undefined }];
    expect(() => runMigrations(db, steps)).toThrow(/out of order/);
    db.close();
  });
});

describe("migration 3 (deleted sessions)", () => {
  it("adds sessions.deleted_at to a version-2 library, whose sessions stay listed with their edits", () => {
    const db = new BetterSqlite3(path.join(tmp.dir, "v2.db"));
    expect(runMigrations(db, MIGRATIONS, 2).to).toBe(2);
    const now = "2026-01-01T00:00:00.000Z";
    db.prepare(
      `INSERT INTO sessions (id, header_id, dialect, original_version, header_json, created, modified, canopy_title, imported_at, updated_at)
       VALUES ('s1', 's1', 'pi', 3, '{}', ?, ?, 'Renamed', ?, ?)`,
    ).run(now, now, now, now);
    db.prepare(
      "INSERT INTO edit_ops (sid, kind, state, data_json, created_at) VALUES (1, 'rename', 'done', '{}', ?)",
    ).run(now);
    expect(runMigrations(db, MIGRATIONS, 3)).toEqual({
      from: 2,
      to: 3,
      applied: ["deleted sessions (soft delete)"],
    });
    expect(db.prepare("SELECT id, canopy_title, deleted_at FROM sessions").all()).toEqual([
      { id: "s1", canopy_title: "Renamed", deleted_at: null },
    ]);
    expect(db.prepare("SELECT count(*) FROM edit_ops").pluck().get()).toBe(1);
    db.close();
  });
});

describe("migration 6 (settings change log)", () => {
  it("keeps a version-5 library's settings and counts only writes of the settings document", () => {
    const db = new BetterSqlite3(path.join(tmp.dir, "v5.db"));
    expect(runMigrations(db, MIGRATIONS, 5).to).toBe(5);
    const write = db.prepare(
      "INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, '2026-01-01') ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json",
    );
    write.run("canopy.settings", '{"retry":{"maxRetries":5}}');
    expect(runMigrations(db, MIGRATIONS, 6)).toEqual({ from: 5, to: 6, applied: ["settings change log"] });
    const mark = () => db.prepare("SELECT seq, writer FROM settings_changes").all();
    expect(mark()).toEqual([{ seq: 0, writer: null }]);
    expect(db.prepare("SELECT value_json FROM settings WHERE key = 'canopy.settings'").pluck().get()).toBe(
      '{"retry":{"maxRetries":5}}',
    );
    // The agent folders live in the same table: not the settings form's, not counted.
    write.run("library.folders", '["/x"]');
    expect(mark()).toEqual([{ seq: 0, writer: null }]);
    write.run("canopy.settings", '{"retry":{"maxRetries":6}}');
    db.prepare("DELETE FROM settings WHERE key = 'canopy.settings'").run();
    write.run("canopy.settings", "{}");
    expect(mark()).toEqual([{ seq: 3, writer: null }]);
    db.close();
  });
});

describe("migration 11 (usage beside the entries)", () => {
  it("marks a version-10 library's sessions: their usage is read from the JSON once, then stored", () => {
    const file = path.join(tmp.dir, "v10.db");
    const db = new BetterSqlite3(file);
    expect(runMigrations(db, MIGRATIONS, 10).to).toBe(10);
    const now = "2026-01-01T00:00:00.000Z";
    db.prepare(
      `INSERT INTO sessions (id, header_id, dialect, original_version, header_json, created, modified, imported_at, updated_at)
       VALUES ('s1', 's1', 'pi', 3, '{}', ?, ?, ?, ?)`,
    ).run(now, now, now, now);
    const reply = (id: string, input: number, cost: number) => ({
      type: "message",
      id,
      parentId: null,
      timestamp: now,
      message: {
        role: "assistant",
        content: [],
        usage: { input, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: cost } },
      },
    });
    const insert = db.prepare(
      "INSERT INTO entries (pk, sid, seq, id, type, role) VALUES (?, 1, ?, ?, 'message', 'assistant')",
    );
    const json = db.prepare("INSERT INTO entry_json (pk, json) VALUES (?, ?)");
    [reply("a1", 10, 0.1), reply("a2", 20, 0.2)].forEach((entry, i) => {
      insert.run(i + 1, i + 1, entry.id);
      json.run(i + 1, JSON.stringify(entry));
    });
    expect(runMigrations(db).applied).toEqual(["usage statistics: each reply's usage beside its entry"]);
    expect(db.prepare("SELECT sid FROM usage_legacy").pluck().all()).toEqual([1]);
    db.close();
    const library = openDatabase(file);
    expect(sessionUsage(library, "s1")).toEqual({
      replies: 2,
      input: 30,
      output: 2,
      cacheRead: 0,
      cacheWrite: 0,
      cost: 0.1 + 0.2,
    });
    expect(library.prepare("SELECT pk, input, cost FROM entry_usage ORDER BY pk").all()).toEqual([
      { pk: 1, input: 10, cost: 0.1 },
      { pk: 2, input: 20, cost: 0.2 },
    ]);
    expect(library.prepare("SELECT count(*) FROM usage_legacy").pluck().get()).toBe(0);
    library.close();
  });
});
