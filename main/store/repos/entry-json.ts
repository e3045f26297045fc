/**
 * Changing an entry's JSON in place without losing it (D9): the first change moves the text as
 * read into `original_json`; restoring puts it back. Used by pruning; exports can still write
 * the originals.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";

/** Replaces the JSON (and token estimate) of the newest entry with that id; keeps the original. */
export function replaceEntryJson(db: Database, sid: number, entryId: string, json: string, tokens: number): boolean {
  const row = stmt(db, "SELECT pk FROM entries WHERE sid = ? AND id = ? ORDER BY seq DESC LIMIT 1").get(sid, entryId) as
    | { pk: number }
    | undefined;
  if (!row) return false;
  stmt(db, "UPDATE entry_json SET original_json = coalesce(original_json, json), json = ? WHERE pk = ?").run(json, row.pk);
  stmt(db, "UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, row.pk);
  return true;
}

/** Entries whose tool output Canopy pruned (the stored original has no `prunedAt`). */
export function listPrunedEntryRows(db: Database, sid: number): { pk: number; id: string; originalJson: string }[] {
  return stmt(
    db,
    `SELECT e.pk AS pk, e.id AS id, j.original_json AS originalJson
       FROM entries AS e JOIN entry_json AS j ON j.pk = e.pk
      WHERE e.sid = ? AND e.id IS NOT NULL AND j.original_json IS NOT NULL
        AND json_extract(j.json, '$.message.prunedAt') IS NOT NULL
        AND json_extract(j.original_json, '$.message.prunedAt') IS NULL
      ORDER BY e.seq`,
  ).all(sid) as { pk: number; id: string; originalJson: string }[];
}

/** Puts the original JSON back (and its token estimate) for one entry row. */
export function restoreEntryJson(db: Database, pk: number, tokens: number): void {
  stmt(db, "UPDATE entry_json SET json = original_json, original_json = NULL WHERE pk = ? AND original_json IS NOT NULL").run(pk);
  stmt(db, "UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, pk);
}
