/**
 * Reads the settings change log (migration 6): how many times the settings document was
 * written, and by which Canopy last (null: another program). One primary-key lookup.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";

export interface SettingsMark {
  seq: number;
  /** Process id of the Canopy that wrote the settings last; null for another program. */
  writer: number | null;
}

export function settingsMark(db: Database): SettingsMark {
  const row = stmt(db, "SELECT seq, writer FROM settings_changes WHERE id = 1").get() as
    | SettingsMark
    | undefined;
  // The row is made with the table; without it nothing has been counted.
  return row ?? { seq: 0, writer: null };
}
