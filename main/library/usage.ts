/**
 * A session's usage statistics (SPEC §2.1) from the library: summed in seq order from what each
 * reply stored beside its entry (entry_usage), no JSON read but that of entries whose row may not
 * hold (see entry-usage.ts), and kept per connection: after an append only the new rows are read.
 */
import {
  addAmounts,
  emptyUsageTotals,
  messageUsage,
  type UsageAmounts,
  type UsageTotals,
  usageAmounts,
} from "../../core/session/usage-totals.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import type { Database } from "../store/open.ts";
import { EntryJsonReader } from "../store/repos/entry-blocks.ts";
import { storeReadUsage, usageRows, usageToRead } from "../store/repos/entry-usage.ts";
import { countEntriesAbovePk, entryRowsUpTo } from "../store/repos/entries.ts";
import { readSnapshot, writeIfFree } from "../store/transactions.ts";
import { requireSession } from "./load.ts";

/** A task tool result's JSON names its tool so (any spacing JSON allows). */
const TASK_RESULT = /"toolName"\s*:\s*"task"/;

/** Long strings (texts, thinking, tool outputs) matter not: only their usage is wanted. */
const KEEP_CHARS = 64;

interface Counted {
  /** The session's rows when the totals were taken: how many, and the highest pk. */
  count: number;
  maxPk: number;
  totals: UsageTotals;
}

const kept = new WeakMap<Database, Map<number, Counted>>();

/** What an entry's JSON adds to the totals: a reply's usage or a task result's sub-agent one. */
function amountsFromJson(json: string, role: string): UsageAmounts | null {
  if (role === "toolResult" && !TASK_RESULT.test(json)) return null;
  const entry = parseLean(json, KEEP_CHARS) as { message?: unknown } | null;
  return usageAmounts(messageUsage(entry?.message));
}

/**
 * Adds the rows of session `sid` above `afterPk` to `totals`, in seq order (`legacy`: every row
 * from its JSON); returns the rows read from their JSON with what they add.
 */
function addRows(
  db: Database,
  sid: number,
  afterPk: number,
  legacy: boolean,
  totals: UsageTotals,
): { pk: number; amounts: UsageAmounts | null }[] {
  const rows = usageRows(db, sid, afterPk, legacy);
  const reader = new EntryJsonReader(
    db,
    rows.flatMap((row) => (row.unread ? [row.unread.stored] : [])),
  );
  const read: { pk: number; amounts: UsageAmounts | null }[] = [];
  for (const row of rows) {
    let amounts: UsageAmounts | null = row.amounts ?? null;
    if (row.unread) {
      amounts = amountsFromJson(reader.text(row.unread.stored), row.unread.role);
      read.push({ pk: row.pk, amounts });
    }
    if (amounts !== null) addAmounts(totals, amounts);
  }
  return read;
}

/**
 * The session's totals as `before` left them, or read (only the rows added since, when that is all
 * that changed); with `store`, what was read from JSON is stored. Inside one transaction: the
 * rows counted are the rows summed.
 */
function countUsage(db: Database, sid: number, before: Counted | undefined, store: boolean): Counted {
  const now = entryRowsUpTo(db, sid, Number.MAX_SAFE_INTEGER);
  const { legacy, unread } = usageToRead(db, sid);
  // Rows to read from their JSON (an entry rewritten since, or the session older): the kept totals may not hold.
  const valid = before !== undefined && !legacy && !unread ? before : undefined;
  if (valid && valid.count === now.count && valid.maxPk === now.maxPk) return valid;
  // pks only grow: rows added since are those above the kept maximum, and when they account for
  // the whole growth nothing else changed.
  if (
    valid &&
    now.maxPk > valid.maxPk &&
    valid.count + countEntriesAbovePk(db, sid, valid.maxPk) === now.count
  ) {
    const totals = { ...valid.totals };
    addRows(db, sid, valid.maxPk, false, totals);
    return { ...now, totals };
  }
  const totals = emptyUsageTotals();
  const read = addRows(db, sid, 0, legacy, totals);
  if (store && (legacy || unread)) storeReadUsage(db, sid, read, legacy);
  return { ...now, totals };
}

export function sessionUsage(db: Database, sessionId: string): UsageTotals {
  const { sid } = requireSession(db, sessionId);
  let bySession = kept.get(db);
  if (!bySession) {
    bySession = new Map();
    kept.set(db, bySession);
  }
  const before = bySession.get(sid);
  const { legacy, unread } = usageToRead(db, sid);
  // What is read from JSON is stored, inside the transaction that read it (no entry is rewritten
  // between), when the write lock is free; else it is read without being stored.
  const stored = legacy || unread ? writeIfFree(db, () => countUsage(db, sid, before, true)) : null;
  const counted = stored?.value ?? readSnapshot(db, () => countUsage(db, sid, before, false));
  bySession.set(sid, counted);
  return { ...counted.totals };
}
