/**
 * Temp-folder databases for store and library tests: a real SQLite file per test, removed
 * afterwards, so WAL and re-open behaviour are exercised as in the app; and an empty session.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Database } from "better-sqlite3";
import { openDatabase } from "../../../main/store/open.ts";
import { insertSession } from "../../../main/store/repos/sessions.ts";

export function makeTempDir(prefix = "canopy-test-"): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Adds an empty v3 pi session `id` (header only); its sid. */
export function addTestSession(db: Database, id: string): number {
  const now = "2026-01-01T00:00:00.000Z";
  return insertSession(db, {
    id,
    header_id: id,
    dialect: "pi",
    original_version: 3,
    header_json: JSON.stringify({ type: "session", version: 3, id, timestamp: now, cwd: "/x" }),
    cwd: "/x",
    created: now,
    modified: now,
  });
}

/** A library database file (library.db) in a fresh temp folder; `cleanup` closes it and removes the folder. */
export interface Library {
  dir: string;
  db: Database;
  dbFile: string;
  reopen(): Database;
  cleanup(): void;
}

export function makeLibrary(): Library {
  const tmp = makeTempDir("canopy-lib-");
  const dbFile = path.join(tmp.dir, "library.db");
  const lib: Library = {
    dir: tmp.dir,
    dbFile,
    db: openDatabase(dbFile),
    reopen() {
      lib.db.close();
      lib.db = openDatabase(dbFile);
      return lib.db;
    },
    cleanup() {
      if (lib.db.open) lib.db.close();
      tmp.cleanup();
    },
  };
  return lib;
}

/**
 * Takes the objects of schema 11 (usage beside the entries) out of a current library, so that a
 * test setting `user_version` back below 11 runs that migration again on what an older Canopy left.
 */
export function dropSchema11(db: Database): void {
  db.exec(`
    DROP TRIGGER entry_json_usage_insert;
    DROP TRIGGER entry_json_usage_update;
    DROP TABLE usage_unread;
    DROP TABLE usage_legacy;
    DROP TABLE entry_usage;
  `);
}
