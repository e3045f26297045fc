/**
 * Entries Canopy itself adds to a session (compactions, branch summaries, labels …): stored with
 * origin 'canopy' after every existing line, so a later append by the agent and a lossless
 * export both keep a consistent order. The session's cached figures follow from the new entries
 * where that is exact (append-stats.ts), else from a recount. Callers run this inside their own
 * precondition check.
 */
import type { StoredEntry } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import { insertEntries, maxSeq, type NewEntryRow } from "../store/repos/entries.ts";
import { type SessionRow, updateSession } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import { statsAfterAppend } from "./append-stats.ts";
import { toEntryRow } from "./entry-rows.ts";
import { requireAnySession } from "./load.ts";
import { refreshSessionStats, type StatsPatch } from "./stats.ts";
import { toJson } from "../../core/text/json-deep.ts";

/**
 * The appended figures for rows that may go back before later ones (`top`: the last line before
 * them): the last row is the later one then; a figure the order decides (the first user message,
 * the latest name or compaction title) is recounted instead (null).
 */
function statsAfterInsert(
  patch: StatsPatch | null,
  row: SessionRow,
  rows: readonly NewEntryRow[],
  top: number,
): StatsPatch | null {
  if (patch === null || rows.every((r) => r.seq > top)) return patch;
  const ordered =
    patch.first_message !== row.first_message ||
    patch.display_name !== row.display_name ||
    patch.compaction_title !== row.compaction_title;
  if (ordered) return null;
  const last = rows.reduce((a, b) => (b.seq > a.seq ? b : a));
  return { ...patch, last_leaf_id: last.seq > top ? last.id : row.last_leaf_id };
}

/**
 * Appends `entries` (in order) in one transaction; returns them as stored. `at`: the lines to put
 * them on instead (free ones a redo takes back, possibly before later rows).
 */
export function appendSessionEntries(
  db: Database,
  sessionId: string,
  entries: readonly SessionEntry[],
  at?: readonly number[],
): StoredEntry[] {
  return writeTransaction(db, () => {
    // A deleted session too: callers refuse one where they must; a job's result written while
    // another Canopy deleted the session is kept with it (pipelines/persist.ts).
    const row = requireAnySession(db, sessionId);
    const top = Math.max(maxSeq(db, row.sid), row.header_line);
    let seq = top;
    const rows = entries.map((entry, i) => toEntryRow(entry, at?.[i] ?? ++seq, toJson(entry), "canopy"));
    // Worked out before the insert: whether the new ids are new is one index lookup each.
    const patch = statsAfterInsert(statsAfterAppend(db, row, entries, rows), row, rows, top);
    insertEntries(db, row.sid, rows);
    if (patch === null) refreshSessionStats(db, row);
    else updateSession(db, row.id, patch);
    return rows.map((r, i) => ({ entry: entries[i] as SessionEntry, line: r.seq, tokens: r.tokens }));
  })();
}
