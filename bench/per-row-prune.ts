/**
 * Pruning's library writes as main wrote them at 4236486, one or five statements per row: the
 * reference the set-based writes are compared with, for figures (bench/prune-pass,
 * bench/prune-restore) and for equality of the library they leave (prune-writes.test).
 */
import type { Database } from "better-sqlite3";
import type { MessageEntry, SessionEntry } from "../core/session/entries.ts";
import { entryTokens } from "../main/library/entry-rows.ts";
import { requireSession } from "../main/library/load.ts";
import { refreshSessionStats } from "../main/library/stats.ts";
import { ORIGINAL_JSON } from "../main/store/repos/entry-blocks.ts";
import type { JsonReplacement } from "../main/store/repos/entry-json.ts";
import { stmt } from "../main/store/statements.ts";
import { writeTransaction } from "../main/store/transactions.ts";

const KEEP_ORIGINAL = "CASE WHEN original_in_block = 1 THEN NULL ELSE coalesce(original_json, json) END";

/** replaceEntryJsonByPk as it was: two statements per row. */
export function perRowReplaceEntryJsonByPk(db: Database, rows: readonly JsonReplacement[]): void {
  const setJson = stmt(
    db,
    `INSERT INTO entry_json (pk, json, original_json, original_in_block)
     SELECT e.pk, @json, NULL, e.json_block IS NOT NULL FROM entries AS e WHERE e.pk = @pk
     ON CONFLICT (pk) DO UPDATE SET original_json = ${KEEP_ORIGINAL}, json = excluded.json
      WHERE json IS NOT excluded.json`,
  );
  const setTokens = stmt(db, "UPDATE entries SET tokens = @tokens WHERE pk = @pk AND tokens IS NOT @tokens");
  for (const row of rows) {
    setJson.run(row);
    setTokens.run(row);
  }
}

/** listPrunedEntryRows as it was: every changed row's original materialized, then checked. */
function perRowListPruned(db: Database, sid: number) {
  const rows = stmt(
    db,
    `WITH changed AS MATERIALIZED (
       SELECT e.pk AS pk, e.id AS id, e.seq AS seq, j.json AS json, ${ORIGINAL_JSON} AS originalJson
         FROM entries AS e JOIN entry_json AS j ON j.pk = e.pk
        WHERE e.sid = ? AND e.id IS NOT NULL AND (j.original_json IS NOT NULL OR j.original_in_block = 1))
     SELECT pk, id, originalJson,
            CASE WHEN json_valid(json) AND json_valid(originalJson) THEN NULL ELSE json END AS unreadableJson
       FROM changed
      WHERE originalJson IS NOT NULL
        AND CASE WHEN json_valid(json) AND json_valid(originalJson)
                 THEN json_extract(json, '$.message.prunedAt') IS NOT NULL
                      AND json_extract(originalJson, '$.message.prunedAt') IS NULL
                 ELSE 1 END
      ORDER BY seq`,
  ).all(sid) as { pk: number; id: string; originalJson: string; unreadableJson: string | null }[];
  const prunedAt = (json: string) =>
    (JSON.parse(json) as { message?: { prunedAt?: unknown } }).message?.prunedAt ?? null;
  return rows
    .filter(
      (row) =>
        row.unreadableJson === null ||
        (prunedAt(row.unreadableJson) !== null && prunedAt(row.originalJson) === null),
    )
    .map(({ pk, id, originalJson, unreadableJson }) => ({
      pk,
      id,
      originalJson,
      readable: unreadableJson === null,
    }));
}

/** restoreToBlock as it was: five statements per row. */
function perRowRestoreToBlock(db: Database, pk: number): boolean {
  const facts = stmt(db, "SELECT tool_name AS toolName FROM tool_facts WHERE pk = ?").get(pk) as
    | { toolName: string | null }
    | undefined;
  if (stmt(db, "DELETE FROM entry_json WHERE pk = ? AND original_in_block = 1").run(pk).changes === 0)
    return false;
  if (facts)
    stmt(db, "INSERT INTO tool_facts (pk, pruned, tool_name) VALUES (?, 0, ?)").run(pk, facts.toolName);
  stmt(
    db,
    `INSERT INTO usage_unread (pk, sid) SELECT e.pk, e.sid FROM entries AS e
      WHERE e.pk = ? AND e.type = 'message' AND e.role IN ('assistant', 'toolResult')
        AND NOT EXISTS (SELECT 1 FROM usage_unread WHERE pk = e.pk)`,
  ).run(pk);
  return true;
}

/** restoreEntryJson as it was. */
function perRowRestoreEntryJson(db: Database, pk: number, tokens: number, readable: boolean): void {
  if (readable && perRowRestoreToBlock(db, pk)) {
    stmt(db, "UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, pk);
    return;
  }
  stmt(
    db,
    `UPDATE entry_json
        SET json = CASE WHEN original_in_block = 1
                        THEN (SELECT CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)
                                FROM entries AS e JOIN entry_blocks AS b ON b.block = e.json_block
                               WHERE e.pk = entry_json.pk)
                        ELSE original_json END,
            original_json = NULL, original_in_block = 0
      WHERE pk = ? AND (original_json IS NOT NULL OR original_in_block = 1)`,
  ).run(pk);
  stmt(db, "UPDATE entries SET tokens = ? WHERE pk = ?").run(tokens, pk);
}

/** restorePruned's writes as they were (main/pipelines/pruning.ts at 4236486); the ids restored. */
export function perRowRestore(db: Database, sessionId: string): string[] {
  return writeTransaction(db, () => {
    const { sid } = requireSession(db, sessionId);
    const rows = perRowListPruned(db, sid);
    let toolResultsOnly = true;
    for (const row of rows) {
      const original = JSON.parse(row.originalJson) as SessionEntry;
      if (original.type !== "message" || (original as MessageEntry).message?.role !== "toolResult")
        toolResultsOnly = false;
      perRowRestoreEntryJson(db, row.pk, entryTokens(original), row.readable);
    }
    if (!toolResultsOnly) refreshSessionStats(db, { sid, id: sessionId });
    return rows.map((row) => row.id);
  })();
}
