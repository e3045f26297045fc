/**
 * Changing an entry's JSON in place without losing it (D9): the first change keeps the text as
 * read as the original — an entry stored in a block gets its `entry_json` row then, its original
 * left in the block (`original_in_block`, schema 8), any other's moves into `original_json`;
 * restoring puts it back. Used by pruning; exports can still write the originals.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";
import { ORIGINAL_JSON, STORED_JSON_COLUMNS, type StoredJson } from "./entry-blocks.ts";
import { markUsageUnread } from "./entry-usage.ts";

/**
 * What `original_json` becomes when an entry_json row's text is replaced (ON CONFLICT): the first
 * change keeps the text it replaces, later ones the first original; one in the block stays there.
 */
const KEEP_ORIGINAL = "CASE WHEN original_in_block = 1 THEN NULL ELSE coalesce(original_json, json) END";

/** Replaces the JSON (and token estimate) of the newest entry with that id; keeps the original. */
export function replaceEntryJson(
  db: Database,
  sid: number,
  entryId: string,
  json: string,
  tokens: number,
): boolean {
  const row = stmt(
    db,
    `SELECT e.pk AS pk, ${STORED_JSON_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
      WHERE e.sid = ? AND e.id = ? ORDER BY e.seq DESC LIMIT 1`,
  ).get(sid, entryId) as (StoredJson & { pk: number }) | undefined;
  if (!row) return false;
  // An entry stored in a block gets its entry_json row now, the block's text as its original.
  stmt(
    db,
    `INSERT INTO entry_json (pk, json, original_json, original_in_block) VALUES (?, ?, NULL, ?)
     ON CONFLICT (pk) DO UPDATE SET original_json = ${KEEP_ORIGINAL}, json = excluded.json`,
  ).run(row.pk, json, row.json === null ? 1 : 0);
  stmt(db, "UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, row.pk);
  return true;
}

/** A pruned entry's row; `readable`: SQLite's JSON functions read both its texts. */
export interface PrunedEntryRow {
  pk: number;
  id: string;
  originalJson: string;
  readable: boolean;
}

/**
 * Entries whose tool output Canopy pruned (the stored original has no `prunedAt`), in seq order.
 * SQLite's JSON functions decide, except for a text they cannot read (nested past their depth
 * limit), which is parsed here rather than failing the whole restore.
 */
export function listPrunedEntryRows(db: Database, sid: number): PrunedEntryRow[] {
  // Each original is cut out of its block once, in the subquery, which SQLite runs as a
  // co-routine handing its rows on one at a time: its LIMIT keeps it from being merged into the
  // outer query (which would cut it out again for each use) or the WHERE from being pushed into
  // it. Materialized instead (a CTE), every changed row's original was copied into a temporary
  // table and sorted: ~1.2 s of ~1.5 s on the generated 100k session. In seq order (the session's
  // index, no sort), neighbours share their block; in another order each read a block anew. The
  // outer query keeps that order, and the rows are put in it here again as nothing promises it.
  const rows = stmt(
    db,
    `SELECT pk, id, seq, originalJson,
            CASE WHEN json_valid(json) AND json_valid(originalJson) THEN NULL ELSE json END AS unreadableJson
       FROM (SELECT e.pk AS pk, e.id AS id, e.seq AS seq, j.json AS json, ${ORIGINAL_JSON} AS originalJson
               FROM entries AS e JOIN entry_json AS j ON j.pk = e.pk
              WHERE e.sid = ? AND e.id IS NOT NULL AND (j.original_json IS NOT NULL OR j.original_in_block = 1)
              ORDER BY e.seq LIMIT -1)
      WHERE originalJson IS NOT NULL
        AND CASE WHEN json_valid(json) AND json_valid(originalJson)
                 THEN json_extract(json, '$.message.prunedAt') IS NOT NULL
                      AND json_extract(originalJson, '$.message.prunedAt') IS NULL
                 ELSE 1 END`,
  ).all(sid) as {
    pk: number;
    id: string;
    seq: number;
    originalJson: string;
    unreadableJson: string | null;
  }[];
  rows.sort((a, b) => a.seq - b.seq);
  const prunedAt = (json: string) => (JSON.parse(json) as { message?: { prunedAt?: unknown } }).message?.prunedAt ?? null;
  return rows
    .filter((row) => row.unreadableJson === null || (prunedAt(row.unreadableJson) !== null && prunedAt(row.originalJson) === null))
    .map(({ pk, id, originalJson, unreadableJson }) => ({
      pk,
      id,
      originalJson,
      readable: unreadableJson === null,
    }));
}

/** A pruned entry row to put back: its original's token estimate; `readable` as listPrunedEntryRows says. */
export interface EntryRestore {
  pk: number;
  tokens: number;
  readable: boolean;
}

/**
 * Puts the original JSON back (and its token estimate) for one entry row. `readable`: SQLite's
 * JSON functions read both texts and the original has no prunedAt (a row listPrunedEntryRows
 * gives as readable), so one whose original is its block's text can go back to that.
 */
export function restoreEntryJson(db: Database, pk: number, tokens: number, readable = false): void {
  restoreEntryJsonByPk(db, [{ pk, tokens, readable }]);
}

/**
 * restoreEntryJson for many rows (distinct pks; inside the caller's transaction), with a few
 * statements for them all, each row ending as restoreEntryJson alone would leave it: per row,
 * five statements (the triggers keeping a statement journal for each) took ~0.4 s of a restore of
 * the generated 100k session. A readable row whose original is its block's text goes back to it
 * (restoreToBlock); any other gets its original written back into entry_json.
 */
export function restoreEntryJsonByPk(db: Database, rows: readonly EntryRestore[]): void {
  if (rows.length === 0) return;
  const toBlock = new Set(restoreToBlock(db, rows.flatMap((row) => (row.readable ? [row.pk] : []))));
  const rest = rows.flatMap((row) => (toBlock.has(row.pk) ? [] : [row.pk]));
  if (rest.length > 0) {
    stmt(
      db,
      `UPDATE entry_json
          SET json = CASE WHEN original_in_block = 1
                          THEN (SELECT CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)
                                  FROM entries AS e JOIN entry_blocks AS b ON b.block = e.json_block
                                 WHERE e.pk = entry_json.pk)
                          ELSE original_json END,
              original_json = NULL, original_in_block = 0
        WHERE pk IN (SELECT value FROM json_each(?)) AND (original_json IS NOT NULL OR original_in_block = 1)`,
    ).run(JSON.stringify(rest));
  }
  stmt(
    db,
    `UPDATE entries SET tokens = r.value
       FROM json_each(?) AS r
      WHERE entries.pk = CAST(r.key AS INTEGER) AND entries.tokens IS NOT r.value`,
  ).run(`{${rows.map((row) => `"${row.pk}":${row.tokens}`).join(",")}}`);
}

/**
 * The JSON of the given entries (by pk, in that order) with the value at `jsonPath` replaced by
 * 0: SQLite's JSON functions make the cut, so a large value (a tool output's content) never
 * reaches JS. Null for a text SQLite does not read as JSON (e.g. nested past its depth limit):
 * the caller reads that one whole.
 */
export function entryJsonWithoutByPk(db: Database, pks: readonly number[], jsonPath: string): (string | null)[] {
  const text = "coalesce(j.json, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT))";
  return stmt(
    db,
    `SELECT CASE WHEN json_valid(${text}) THEN json_set(${text}, ?, 0) END
       FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
       LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
      ORDER BY k.key`,
  )
    .pluck(true)
    .all(jsonPath, JSON.stringify(pks)) as (string | null)[];
}

/** A new JSON text (and token estimate) for the entry row `pk`. */
export interface JsonReplacement {
  pk: number;
  json: string;
  tokens: number;
}

/** Text bound to one statement of a batch at most (a session's pruned JSON could outgrow a string). */
const BATCH_CHARS = 8_000_000;

/**
 * `rows` in batches of about BATCH_CHARS of text at most (one row at least), each as two JSON
 * objects keyed by pk: the texts and the token estimates. Keyed by pk, json_each gives each value
 * as it is (an object per row would be written out again as text for each of its fields).
 */
function jsonBatches(rows: readonly JsonReplacement[]): { texts: string; tokens: string }[] {
  const batches: { texts: string; tokens: string }[] = [];
  let texts: string[] = [];
  let tokens: string[] = [];
  let chars = 0;
  const close = () => {
    batches.push({ texts: `{${texts.join(",")}}`, tokens: `{${tokens.join(",")}}` });
    texts = [];
    tokens = [];
    chars = 0;
  };
  for (const row of rows) {
    if (texts.length > 0 && chars + row.json.length > BATCH_CHARS) close();
    texts.push(`"${row.pk}":${JSON.stringify(row.json)}`);
    tokens.push(`"${row.pk}":${row.tokens}`);
    chars += row.json.length;
  }
  if (texts.length > 0) close();
  return batches;
}

/**
 * replaceEntryJson for rows known by pk (call inside the caller's transaction): the original is
 * kept as replaceEntryJson keeps it — an entry stored in a block leaves it there, nothing is
 * copied (the first prune of a long session copied ~88 MB). A row whose JSON or token estimate
 * would not change is not written. Set-based: per batch of rows, one statement for the texts and
 * one for the estimates, which SQLite reads from JSON (json_each), each row as a statement per
 * row wrote it (the rows are of distinct entries: their order changes nothing). Per row, the
 * entry_json triggers made each statement keep a statement journal: ~1 s of the first prune of
 * the generated 100k session (~38,800 rows). Exact: each text is JSON.stringify's (no lone
 * surrogate, no raw control character), which json_each gives back as it was bound.
 */
export function replaceEntryJsonByPk(db: Database, rows: readonly JsonReplacement[]): void {
  const setJson = stmt(
    db,
    `INSERT INTO entry_json (pk, json, original_json, original_in_block)
     SELECT e.pk, r.value, NULL, e.json_block IS NOT NULL
       FROM json_each(?) AS r JOIN entries AS e ON e.pk = CAST(r.key AS INTEGER)
      WHERE true
     ON CONFLICT (pk) DO UPDATE SET original_json = ${KEEP_ORIGINAL}, json = excluded.json
      WHERE json IS NOT excluded.json`,
  );
  const setTokens = stmt(
    db,
    `UPDATE entries SET tokens = r.value
       FROM json_each(?) AS r
      WHERE entries.pk = CAST(r.key AS INTEGER) AND entries.tokens IS NOT r.value`,
  );
  for (const batch of jsonBatches(rows)) {
    setJson.run(batch.texts);
    setTokens.run(batch.tokens);
  }
}

/**
 * Entries whose original is their block's text: their entry_json rows go, so they read the block's
 * text again as they did before the prune. Writing that text back into entry_json copied every
 * restored output (~87 MB on the generated 100k session, 1.2 s with the triggers reading it) and
 * the next prune copied it again into original_json. What a row's update triggers note is noted
 * here (its delete trigger drops the tool facts): a tool fact already read stays, not pruned,
 * with its tool name (a prune keeps it; carried as hex, its bytes exactly as stored); the usage
 * is to be read again from the JSON. Gives the pks it put back (not one whose original is not
 * in its block).
 */
function restoreToBlock(db: Database, pks: readonly number[]): number[] {
  if (pks.length === 0) return [];
  const found = stmt(
    db,
    `SELECT j.pk, f.pk IS NOT NULL, CASE WHEN f.tool_name IS NOT NULL THEN hex(f.tool_name) END
       FROM json_each(?) AS k JOIN entry_json AS j ON j.pk = k.value LEFT JOIN tool_facts AS f ON f.pk = j.pk
      WHERE j.original_in_block = 1`,
  )
    .raw(true)
    .all(JSON.stringify(pks)) as [pk: number, known: 0 | 1, toolNameHex: string | null][];
  if (found.length === 0) return [];
  const restored = found.map(([pk]) => pk);
  stmt(
    db,
    "DELETE FROM entry_json WHERE pk IN (SELECT value FROM json_each(?)) AND original_in_block = 1",
  ).run(JSON.stringify(restored));
  const facts = found.filter(([, known]) => known === 1);
  if (facts.length > 0) {
    stmt(
      db,
      `INSERT INTO tool_facts (pk, pruned, tool_name)
       SELECT CAST(r.key AS INTEGER), 0, CAST(unhex(r.value) AS TEXT) FROM json_each(?) AS r`,
    ).run(JSON.stringify(Object.fromEntries(facts.map(([pk, , toolNameHex]) => [pk, toolNameHex]))));
  }
  markUsageUnread(db, restored);
  return restored;
}
