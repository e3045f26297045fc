/**
 * Signs this process's writes in the session and settings change logs (migrations 5 and 6):
 * TEMP triggers on the connection set their `writer` to the process id, so a serving process can
 * tell the CLI's writes (or another app's) from its own, which it has announced already.
 */
import type { Database } from "better-sqlite3";

/** The writer id of this process: every thread (the import runner's too) shares it. */
export const OWN_WRITER = process.pid;

/**
 * Installs the triggers on `db` (once per connection; they live in its `temp` schema and end
 * with it). A library older than a change log (migrate: false) is left as it is.
 */
export function signChanges(db: Database): void {
  const tables = new Set(
    (
      db
        .prepare(
          "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name IN ('session_changes', 'settings_changes')",
        )
        .all() as { name: string }[]
    ).map((row) => row.name),
  );
  // The pid is a number from the OS, not input: interpolating it is safe (triggers take no parameters).
  const pid = Number(OWN_WRITER);
  if (tables.has("session_changes")) {
    const sign = `UPDATE main.session_changes SET writer = ${pid} WHERE sid = new.sid;`;
    // A change inserts the session's row or gives it a new seq (migration 5).
    db.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS canopy_sign_insert AFTER INSERT ON main.session_changes
        BEGIN ${sign} END;
      CREATE TEMP TRIGGER IF NOT EXISTS canopy_sign_update AFTER UPDATE OF seq ON main.session_changes
        BEGIN ${sign} END;
    `);
  }
  if (tables.has("settings_changes")) {
    // A write of the settings document counts up the one row (migration 6).
    db.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS canopy_sign_settings AFTER UPDATE OF seq ON main.settings_changes
        BEGIN UPDATE main.settings_changes SET writer = ${pid} WHERE id = 1; END;
    `);
  }
}
