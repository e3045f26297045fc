/**
 * A session's cached list figures after lines were appended to its file, from the figures it
 * had and the appended rows alone — so a live append does not re-read every stored entry. Null
 * when the appended rows could change what only a full recount sees (stats.ts decides then).
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import { entryIdExists, type NewEntryRow } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { firstMessageTextOf, isKnownEntryType, trimmedString } from "./entry-facts.ts";
import type { StatsPatch } from "./stats.ts";

type Loose = { [key: string]: unknown };

/**
 * The figures of `row`'s session once `rows` (parsed as `entries`, in file order, after every
 * stored row) and `malformedLines` more malformed lines are stored; asked before they are. Only for a session without tree problems whose new rows are healthy
 * in order: known types, new unique ids, each parent null or an id stored or appended before.
 */
export function appendedStats(
  db: Database,
  row: SessionRow,
  entries: readonly SessionEntry[],
  rows: readonly NewEntryRow[],
  malformedLines: number,
): StatsPatch | null {
  if (row.problem_count !== 0) return null;
  // What TreeOrderCheck asks of every row in a full scan, asked of the new rows (stored ids by lookup).
  const appended = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    const e = entry as Loose;
    const id = rows[i]?.id ?? null;
    if (id === null || !isKnownEntryType(entry.type)) return null;
    if (appended.has(id) || entryIdExists(db, row.sid, id)) return null;
    const parentId = e.parentId ?? null;
    const known =
      parentId === null ||
      (typeof parentId === "string" && (appended.has(parentId) || entryIdExists(db, row.sid, parentId)));
    if (!known) return null;
    appended.add(id);
  }
  let messages = row.message_count;
  let compactions = row.compaction_count;
  let branchSummaries = row.branch_summary_count;
  const firstMessage = row.first_message;
  let displayName = row.display_name;
  let compactionTitle = row.compaction_title;
  // "(no messages)" is also what a stored user message could say: then the recount decides.
  const hadUserMessage = firstMessage !== null && firstMessage !== firstMessageTextOf(null);
  for (const [i, entry] of entries.entries()) {
    const e = entry as Loose;
    if (entry.type === "message") {
      messages++;
      // No user message stored: the first appended one names the session (a full recount is sure).
      if (!hadUserMessage && rows[i]?.role === "user") return null;
    } else if (entry.type === "compaction") {
      compactions++;
      compactionTitle = trimmedString(e, "shortSummary") ?? compactionTitle;
    } else if (entry.type === "branch_summary") branchSummaries++;
    else if (entry.type === "session_info") displayName = trimmedString(e, "name") ?? displayName;
  }
  const lastId = rows.at(-1)?.id ?? null;
  return {
    entry_count: row.entry_count + rows.length,
    message_count: messages,
    compaction_count: compactions,
    branch_summary_count: branchSummaries,
    malformed_count: row.malformed_count + malformedLines,
    problem_count: 0,
    problems_json: "[]",
    first_message: firstMessage,
    display_name: displayName,
    compaction_title: compactionTitle,
    file_leaf_id: lastId ?? row.file_leaf_id,
    last_leaf_id: lastId ?? row.last_leaf_id,
  };
}
