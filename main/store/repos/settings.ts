/**
 * Key/value settings stored as JSON text. Values are whatever JSON the caller stores; typing is
 * the caller's business (validate at the API edge), the store only guarantees a round trip.
 */
import type { Database } from "better-sqlite3";
import { nowIso, stmt } from "../statements.ts";

export function getSetting(db: Database, key: string): unknown {
  const row = stmt(db, "SELECT value_json FROM settings WHERE key = ?").get(key) as
    | { value_json: string }
    | undefined;
  return row ? (JSON.parse(row.value_json) as unknown) : undefined;
}

/** Stores `value` (must be JSON-serializable; `undefined` deletes the key). */
export function setSetting(db: Database, key: string, value: unknown): void {
  if (value === undefined) {
    deleteSetting(db, key);
    return;
  }
  stmt(
    db,
    `INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
  ).run(key, JSON.stringify(value), nowIso());
}

export function deleteSetting(db: Database, key: string): boolean {
  return stmt(db, "DELETE FROM settings WHERE key = ?").run(key).changes > 0;
}

export function listSettings(db: Database): Record<string, unknown> {
  const rows = stmt(db, "SELECT key, value_json FROM settings ORDER BY key").all() as {
    key: string;
    value_json: string;
  }[];
  const out: Record<string, unknown> = {};
  for (const row of rows) out[row.key] = JSON.parse(row.value_json) as unknown;
  return out;
}
