/**
 * What each reply adds to its session's usage statistics (table entry_usage, migration 11),
 * written with the entry, and the rows whose usage is to be read from their JSON instead: a
 * session stored before that version (usage_legacy), an entry Canopy rewrote (usage_unread).
 */
import type { Database } from "better-sqlite3";
import type { UsageAmounts } from "../../../core/session/usage-totals.ts";
import { stmt } from "../statements.ts";
import type { StoredJson } from "./entry-blocks.ts";

/** Keeps what entry `pk` adds to the totals (call in the transaction that inserts it). */
export function insertEntryUsage(db: Database, pk: number, usage: UsageAmounts): void {
  stmt(
    db,
    "INSERT INTO entry_usage (pk, input, output, cache_read, cache_write, cost) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(pk, usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.cost);
}

/**
 * A row the totals read, in seq order: a stored reply's `amounts`, or an entry to read from its
 * JSON (`unread`: where that is, and its message's role).
 */
export type UsageRow =
  | { pk: number; amounts: UsageAmounts; unread?: undefined }
  | { pk: number; amounts?: undefined; unread: { stored: StoredJson; role: string } };

type RawRow = [
  pk: number,
  unread: 0 | 1,
  role: string | null,
  input: number | null,
  output: number | null,
  cacheRead: number | null,
  cacheWrite: number | null,
  cost: number | null,
  json: string | null,
  jsonBlock: number | null,
  jsonAt: number | null,
  jsonLen: number | null,
];

/** The rows whose JSON can carry usage (assistant replies, task results). */
const CARRIES_USAGE = "e.type = 'message' AND e.role IN ('assistant', 'toolResult')";

/**
 * Notes the entries `pks` as ones whose usage is read from their JSON again, those whose JSON can
 * carry usage (what migration 11's entry_json triggers do for a rewritten row, for rows put back
 * otherwise). One statement for them all; the pks are distinct.
 */
export function markUsageUnread(db: Database, pks: readonly number[]): void {
  if (pks.length === 0) return;
  stmt(
    db,
    `INSERT INTO usage_unread (pk, sid) SELECT e.pk, e.sid FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
      WHERE ${CARRIES_USAGE} AND NOT EXISTS (SELECT 1 FROM usage_unread WHERE pk = e.pk)`,
  ).run(JSON.stringify(pks));
}

/**
 * The rows of session `sid` with pk above `afterPk` that add to its totals, in seq order: each
 * stored reply and each entry whose usage is to be read from its JSON (every possible one when
 * `legacy`).
 */
export function usageRows(db: Database, sid: number, afterPk: number, legacy: boolean): UsageRow[] {
  const raw = legacy
    ? (stmt(
        db,
        `SELECT e.pk, 1 AS unread, e.role, NULL, NULL, NULL, NULL, NULL, j.json, e.json_block, e.json_at, e.json_len
           FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
          WHERE e.sid = ? AND e.pk > ? AND ${CARRIES_USAGE} ORDER BY e.seq`,
      )
        .raw(true)
        .all(sid, afterPk) as RawRow[])
    : (stmt(
        db,
        `SELECT e.pk, r.pk IS NOT NULL AS unread,
                CASE WHEN r.pk IS NULL THEN NULL ELSE e.role END,
                u.input, u.output, u.cache_read, u.cache_write, u.cost,
                CASE WHEN r.pk IS NULL THEN NULL ELSE (SELECT json FROM entry_json WHERE pk = e.pk) END,
                CASE WHEN r.pk IS NULL THEN NULL ELSE e.json_block END,
                CASE WHEN r.pk IS NULL THEN NULL ELSE e.json_at END,
                CASE WHEN r.pk IS NULL THEN NULL ELSE e.json_len END
           FROM entries AS e LEFT JOIN entry_usage AS u ON u.pk = e.pk LEFT JOIN usage_unread AS r ON r.pk = e.pk
          WHERE e.sid = ? AND e.pk > ? AND (u.pk IS NOT NULL OR r.pk IS NOT NULL) ORDER BY e.seq`,
      )
        .raw(true)
        .all(sid, afterPk) as RawRow[]);
  return raw.map((r): UsageRow => {
    if (r[1] === 1) {
      const stored: StoredJson = { json: r[8], json_block: r[9], json_at: r[10], json_len: r[11] };
      return { pk: r[0], unread: { stored, role: r[2] as string } };
    }
    const amounts: UsageAmounts = {
      input: r[3] as number,
      output: r[4] as number,
      cacheRead: r[5] as number,
      cacheWrite: r[6] as number,
      cost: r[7] as number,
    };
    return { pk: r[0], amounts };
  });
}

/** True when some of the session's usage is to be read from its entries' JSON (see usageRows). */
export function usageToRead(db: Database, sid: number): { legacy: boolean; unread: boolean } {
  const row = stmt(
    db,
    `SELECT EXISTS (SELECT 1 FROM usage_legacy WHERE sid = ?) AS legacy,
            EXISTS (SELECT 1 FROM usage_unread WHERE sid = ?) AS unread`,
  ).get(sid, sid) as { legacy: 0 | 1; unread: 0 | 1 };
  return { legacy: row.legacy === 1, unread: row.unread === 1 };
}

/**
 * Stores the usage read from the JSON of the given entries (null: they add none) and forgets
 * they were to be read; with `legacyDone`, they are the session's every row that can carry usage.
 * Inside a write transaction that read them (nothing rewrote them since).
 */
export function storeReadUsage(
  db: Database,
  sid: number,
  read: readonly { pk: number; amounts: UsageAmounts | null }[],
  legacyDone: boolean,
): void {
  if (legacyDone) {
    // The session's rows, all at once (a legacy session's every reply: tens of thousands).
    stmt(db, "DELETE FROM entry_usage WHERE pk IN (SELECT pk FROM entries WHERE sid = ?)").run(sid);
    stmt(db, "DELETE FROM usage_unread WHERE sid = ?").run(sid);
    stmt(db, "DELETE FROM usage_legacy WHERE sid = ?").run(sid);
  } else {
    const forget = stmt(db, "DELETE FROM entry_usage WHERE pk = ?");
    const done = stmt(db, "DELETE FROM usage_unread WHERE pk = ?");
    for (const { pk } of read) {
      forget.run(pk);
      done.run(pk);
    }
  }
  for (const { pk, amounts } of read) if (amounts !== null) insertEntryUsage(db, pk, amounts);
}
