/**
 * Signs this process's writes in the session change log (migration 5): TEMP triggers on the
 * connection set `session_changes.writer` to the process id, so a serving process can tell the
 * CLI's writes (or another app's) from its own, which it has announced already.
 */
import type { Database } from "better-sqlite3";

/** The writer id of this process: every thread (the import runner's too) shares it. */
export const OWN_WRITER = process.pid;

/**
 * Installs the triggers on `db` (once per connection; they live in its `temp` schema and end
 * with it). A library older than the change log (migrate: false) is left as it is.
 */
export function signChanges(db: Database): void {
  const table = db
    .prepare("SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = 'session_changes'")
    .get();
  if (table === undefined) return;
  // The pid is a number from the OS, not input: interpolating it is safe (triggers take no parameters).
  const sign = `UPDATE main.session_changes SET writer = ${Number(OWN_WRITER)} WHERE sid = new.sid;`;
  // A change inserts the session's row or gives it a new seq (migration 5).
  db.exec(`
    CREATE TEMP TRIGGER IF NOT EXISTS canopy_sign_insert AFTER INSERT ON main.session_changes
      BEGIN ${sign} END;
    CREATE TEMP TRIGGER IF NOT EXISTS canopy_sign_update AFTER UPDATE OF seq ON main.session_changes
      BEGIN ${sign} END;
  `);
}
