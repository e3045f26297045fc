/**
 * The ordered migration registry and its runner. `PRAGMA user_version` holds the schema version;
 * all pending steps run in one transaction, and a database from a newer Canopy is refused.
 */
import type { Database } from "better-sqlite3";
import { DatabaseTooNewError, StoreError } from "../errors.ts";
import { writeTransaction } from "../transactions.ts";
import { initial } from "./001-initial.ts";
import { edits } from "./002-edits.ts";
import { deletedSessions } from "./003-deleted-sessions.ts";
import { entryBlocks } from "./004-entry-blocks.ts";
import { sessionChanges } from "./005-session-changes.ts";
import { settingsChanges } from "./006-settings-changes.ts";
import { labelIndex } from "./007-label-index.ts";
import { lineMarks } from "./008-line-marks.ts";
import { pruneFacts } from "./009-prune-facts.ts";
import { cjkSearchWords } from "./010-cjk-search-words.ts";
import { entryUsage } from "./011-entry-usage.ts";
import type { Migration } from "./types.ts";

export type { Migration } from "./types.ts";

/** Every migration, oldest first. Append only; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  edits,
  deletedSessions,
  entryBlocks,
  sessionChanges,
  settingsChanges,
  labelIndex,
  lineMarks,
  pruneFacts,
  cjkSearchWords,
  entryUsage,
];

export const LATEST_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  const version = db.pragma("user_version", { simple: true });
  return typeof version === "number" ? version : 0;
}

export interface MigrationResult {
  from: number;
  to: number;
  applied: string[];
}

/** Brings `db` to `LATEST_VERSION` (or to `target`, for tests of one step). */
export function runMigrations(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
  target = migrations.length,
): MigrationResult {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration registry out of order at ${m.name}: ${m.version}`);
  });
  const from = schemaVersion(db);
  if (from > migrations.length) throw new DatabaseTooNewError(db.name, from, migrations.length);
  const pending = migrations.filter((m) => m.version > from && m.version <= target);
  if (pending.length === 0) return { from, to: from, applied: [] };

  const applyAll = writeTransaction(db, () => {
    for (const m of pending) {
      try {
        m.up(db);
      } catch (cause) {
        throw new StoreError(
          "migration_failed",
          `migration ${m.version} (${m.name}) failed: ${String(cause)}`,
          {
            cause,
          },
        );
      }
      // user_version lives in the file header and is covered by the transaction, so a failure
      // in a later step leaves the database at `from`, untouched.
      db.pragma(`user_version = ${m.version}`);
    }
  });
  applyAll();
  const last = pending[pending.length - 1];
  return { from, to: last ? last.version : from, applied: pending.map((m) => m.name) };
}
