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
import { insertEntries, maxSeq } from "../store/repos/entries.ts";
import { updateSession } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import { statsAfterAppend } from "./append-stats.ts";
import { toEntryRow } from "./entry-rows.ts";
import { requireSession } from "./load.ts";
import { refreshSessionStats } from "./stats.ts";
import { toJson } from "../../core/text/json-deep.ts";

/** Appends `entries` (in order) in one transaction; returns them as stored. */
export function appendSessionEntries(
  db: Database,
  sessionId: string,
  entries: readonly SessionEntry[],
): StoredEntry[] {
  return writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    let seq = Math.max(maxSeq(db, row.sid), row.header_line);
    const rows = entries.map((entry) => toEntryRow(entry, ++seq, toJson(entry), "canopy"));
    // Worked out before the insert: whether the new ids are new is one index lookup each.
    const patch = statsAfterAppend(db, row, entries, rows);
    insertEntries(db, row.sid, rows);
    if (patch === null) refreshSessionStats(db, row);
    else updateSession(db, row.id, patch);
    return rows.map((r, i) => ({ entry: entries[i] as SessionEntry, line: r.seq, tokens: r.tokens }));
  })();
}
