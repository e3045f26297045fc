/**
 * What a prune check reads of tool results (SPEC §7.1): the stored token estimate and, from the
 * table tool_facts (migration 009), whether each is pruned and its tool name. The table is filled
 * here, by the check, for the results it finds without a row; imports never write it.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";
import { writeIfFree } from "../transactions.ts";

/**
 * [tokens, known, pruned, toolName] of a tool result: `known` 0 when no check has read the entry
 * yet; `pruned` 1/0, or null when SQLite cannot read its JSON (nested past its depth limit: the
 * caller parses it); toolName `message.toolName` as JSON text, null when missing, and not read for
 * a pruned result (the rule skips those whatever their tool: after a prune most results are).
 */
export type ToolFactRow = [tokens: number, known: 0 | 1, pruned: 0 | 1 | null, toolName: string | null];

/** The facts of the given entries (by pk), in the order of `pks`. */
export function readToolFacts(db: Database, pks: readonly number[]): ToolFactRow[] {
  return stmt(
    db,
    `SELECT e.tokens, f.pk IS NOT NULL, f.pruned, CASE WHEN f.pruned = 0 THEN f.tool_name END
       FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value LEFT JOIN tool_facts AS f ON f.pk = e.pk
      ORDER BY k.key`,
  )
    .raw(true)
    .all(JSON.stringify(pks)) as ToolFactRow[];
}

/**
 * The facts of the entries `json_each(?)` lists, from their JSON, as the check read them before
 * the table: `[toolName, prunedAt]` by SQLite's JSON functions (NULL for a text they cannot
 * read), once per text; MATERIALIZED so that the columns split from that short pair do not
 * each read the text again.
 */
const FROM_JSON = `WITH read AS MATERIALIZED (
    SELECT k.key AS key, e.pk AS pk, e.tokens AS tokens,
           (SELECT CASE WHEN json_valid(t) THEN json_extract(t, '$.message.toolName', '$.message.prunedAt') END
              FROM (SELECT coalesce(j.json, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)) AS t)) AS pair
      FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
      LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block),
  facts AS (
    SELECT key, pk, tokens, CASE WHEN pair IS NOT NULL THEN pair ->> '$[1]' IS NOT NULL END AS pruned,
           pair -> '$[0]' AS tool_name
      FROM read)`;

/** Reads the facts of the given entries from their JSON and stores them; inside a write transaction. */
function fillToolFacts(db: Database, pks: readonly number[]): void {
  if (pks.length === 0) return;
  stmt(
    db,
    `${FROM_JSON}
     INSERT INTO tool_facts (pk, pruned, tool_name) SELECT pk, pruned, tool_name FROM facts WHERE true
     ON CONFLICT (pk) DO NOTHING`,
  ).run(JSON.stringify(pks));
}

/** readToolFacts from the entries' JSON, storing nothing (for a check that cannot write now). */
export function readToolFactsFromJson(db: Database, pks: readonly number[]): ToolFactRow[] {
  return stmt(
    db,
    `${FROM_JSON}
     SELECT tokens, 1, pruned, CASE WHEN pruned = 0 THEN tool_name END FROM facts ORDER BY key`,
  )
    .raw(true)
    .all(JSON.stringify(pks)) as ToolFactRow[];
}

/**
 * The facts of entries no check has read yet (by pk, in that order), stored on the way. A check
 * does not wait for the write lock: while another connection holds it (an import on its thread,
 * the CLI) they are read from the JSON and stored by a later check, so a preview is never held
 * up (or failed after busy_timeout) by a write it does not need.
 */
export function storeToolFacts(db: Database, pks: readonly number[]): ToolFactRow[] {
  if (writeIfFree(db, () => fillToolFacts(db, pks)) === null) return readToolFactsFromJson(db, pks);
  return readToolFacts(db, pks);
}
