/**
 * The test oracle for `entries.tool_facts` (migration 007): what the prune check read before the
 * column existed, `[toolName, prunedAt]` of every tool result by SQLite's JSON functions over the
 * entry's JSON text as stored (null for a text they cannot read), next to what the column holds.
 */
import type { Database } from "better-sqlite3";

const TEXT = "coalesce(j.json, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT))";

/** pk → facts read from each tool result's JSON, the way the check did before migration 007. */
export function toolFactsFromJson(db: Database): Map<number, string | null> {
  const rows = db
    .prepare(
      `SELECT pk, CASE WHEN json_valid(text) THEN json_extract(text, '$.message.toolName', '$.message.prunedAt') END
         FROM (SELECT e.pk AS pk, ${TEXT} AS text
                 FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
                WHERE e.type = 'message' AND e.role = 'toolResult')`,
    )
    .raw(true)
    .all() as [number, string | null][];
  return new Map(rows);
}

/** pk → the stored column of each tool result. */
export function toolFactsColumn(db: Database): Map<number, string | null> {
  const rows = db
    .prepare("SELECT pk, tool_facts FROM entries WHERE type = 'message' AND role = 'toolResult'")
    .raw(true)
    .all() as [number, string | null][];
  return new Map(rows);
}

/** How many entries that are not tool results have facts (the column is for tool results only). */
export function factsOutsideToolResults(db: Database): number {
  return db
    .prepare(
      "SELECT count(*) FROM entries WHERE tool_facts IS NOT NULL AND NOT (type = 'message' AND role = 'toolResult')",
    )
    .pluck()
    .get() as number;
}

/**
 * How an entry's JSON was replaced before schema 7 (the oracle for "stored as before"): the newest
 * entry with that id; an entry stored in a block had its block's text copied into original_json.
 * Runs on a schema-6 library as well.
 */
export function copyingReplaceEntryJson(
  db: Database,
  sid: number,
  entryId: string,
  json: string,
  tokens: number,
): void {
  const pk = db
    .prepare("SELECT pk FROM entries WHERE sid = ? AND id = ? ORDER BY seq DESC LIMIT 1")
    .pluck()
    .get(sid, entryId) as number;
  db.prepare(
    `INSERT INTO entry_json (pk, json, original_json)
     SELECT e.pk, ?, CASE WHEN j.pk IS NULL THEN CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT) END
       FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
      WHERE e.pk = ?
     ON CONFLICT (pk) DO UPDATE SET original_json = coalesce(original_json, json), json = excluded.json`,
  ).run(json, pk);
  db.prepare("UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, pk);
}

/** How a pruned entry was restored before schema 7 (runs on a schema-6 library as well). */
export function copyingRestoreEntryJson(db: Database, pk: number, tokens: number): void {
  db.prepare(
    "UPDATE entry_json SET json = original_json, original_json = NULL WHERE pk = ? AND original_json IS NOT NULL",
  ).run(pk);
  db.prepare("UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, pk);
}

/**
 * Takes a library back to schema 6 (what migrations 7 and 8 add, dropped): how a test gets a
 * library as schema 6 left it, since today's insertEntries writes schema 7's column.
 */
export function downgradeToSchema6(db: Database): void {
  db.exec(`
    DROP INDEX entries_labels;
    DROP TRIGGER entry_json_tool_facts_insert;
    DROP TRIGGER entry_json_tool_facts_update;
    DROP TRIGGER entry_json_tool_facts_delete;
    ALTER TABLE entries DROP COLUMN tool_facts;
    ALTER TABLE entry_json DROP COLUMN original_in_block;
  `);
  db.pragma("user_version = 6");
}
