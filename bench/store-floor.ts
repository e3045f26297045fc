/**
 * The storage floor of an import: storing a target's rows and JSON (already parsed, outside the
 * timing) and committing, on a warm connection, with nothing else — no read, hash, parse,
 * migration or check. No import into this library (its schema, its store statements) can take
 * less, which bounds the ratio against JSON.parse an import of the same files can reach.
 */
import type { Database } from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { emptyContentFacts } from "../main/library/entry-facts.ts";
import { openSource } from "../main/library/import-source.ts";
import { chunkRows } from "../main/library/row-batches.ts";
import {
  checkpointWal,
  openDatabase,
  withoutAutoCheckpoint,
  withoutForeignKeyChecks,
} from "../main/store/open.ts";
import { insertEntries, type NewEntryRow } from "../main/store/repos/entries.ts";
import { insertSession } from "../main/store/repos/sessions.ts";
import { writeTransaction } from "../main/store/transactions.ts";
import { median, tempDir, timeIt } from "./bench-utils.ts";

interface ParsedFile {
  headerJson: string;
  rows: NewEntryRow[];
}

function parseForStore(file: string): ParsedFile | null {
  const opened = openSource(fs.readFileSync(file));
  if (!opened.ok) return null;
  const { source } = opened;
  const facts = emptyContentFacts(false);
  const rows: NewEntryRow[] = [];
  for (const chunk of source.chunks()) for (const row of chunkRows(chunk, facts).rows) rows.push(row);
  return { headerJson: source.headerJson, rows };
}

/**
 * Median ms of `runs` calls of `store(db)` on a fresh library's warm connection: an untimed first
 * call prepares the statements, and the WAL is checkpointed after each call.
 */
function medianStoreMs(prefix: string, runs: number, setUp: (db: Database) => () => void): number {
  const tmp = tempDir(prefix);
  const db = openDatabase(path.join(tmp.dir, "library.db"));
  try {
    const store = setUp(db);
    store();
    checkpointWal(db);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      times.push(timeIt(store));
      checkpointWal(db);
    }
    return median(times);
  } finally {
    db.close();
    tmp.cleanup();
  }
}

/**
 * Median ms of storing every session file of `files` as new sessions in one transaction, commit
 * included (foreign-key checks and automatic checkpoints off, as importPath has them). The
 * statements are prepared by an untimed first store; the WAL is checkpointed between runs.
 */
export function measureStoreFloor(files: readonly string[], runs: number): number {
  const parsed = files.map(parseForStore).filter((p): p is ParsedFile => p !== null);
  let round = 0;
  return medianStoreMs(
    "canopy-floor-",
    runs,
    (db) => () =>
      withoutAutoCheckpoint(db, () =>
        withoutForeignKeyChecks(db, () =>
          writeTransaction(db, () => {
            round++;
            for (const [i, p] of parsed.entries()) {
              const sid = insertSession(db, {
                id: `floor-${round}-${i}`,
                header_id: `floor-${round}-${i}`,
                dialect: "pi",
                original_version: 3,
                header_json: p.headerJson,
                cwd: "",
                created: "2026-01-01T00:00:00.000Z",
                modified: "2026-01-01T00:00:00.000Z",
              });
              insertEntries(db, sid, p.rows);
            }
          })(),
        ),
      ),
  );
}

/**
 * Median ms of storing every line of `files`, as unparsed text, in a table with no index, no key
 * and no other column than where it came from — the least any SQLite library of these sessions can
 * store — in one transaction with commit, on a warm connection with the library's own pragmas.
 * Whatever schema Canopy had, an import could not store in less, so this bounds the ratio against
 * JSON.parse that any import into SQLite (which the product fixes) can reach.
 */
export function measureBareSqliteFloor(files: readonly string[], runs: number): number {
  const lines = files.map((file) =>
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== ""),
  );
  return medianStoreMs("canopy-bare-", runs, (db) => {
    db.exec(
      "CREATE TABLE bare_lines (file INTEGER NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL) STRICT",
    );
    const insert = db.prepare("INSERT INTO bare_lines (file, line, text) VALUES (?, ?, ?)");
    return () =>
      withoutAutoCheckpoint(db, () =>
        writeTransaction(db, () => {
          for (const [f, fileLines] of lines.entries()) {
            for (const [i, line] of fileLines.entries()) insert.run(f, i, line);
          }
        })(),
      );
  });
}
