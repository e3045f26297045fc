/**
 * The cached figures of a session after entries are appended behind its last row — by Canopy
 * (write.ts) or by the agent growing its file (import-tail.ts) — worked out from the stored
 * figures and the new entries alone (a session with tree problems keeps its stored ones), where
 * that is exactly what a full recount (stats.ts) would give; null where exactness is not
 * obvious, and the caller recounts.
 */
import type { SessionProblem } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { unknownRoleReason } from "../../core/session/tree.ts";
import type { Database } from "../store/open.ts";
import { entryIdExists, entryLinkById, firstUserMessagePk, type NewEntryRow } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { firstMessageTextOf, isKnownEntryType, trimmedString } from "./entry-facts.ts";
import { firstMessageText, type StatsPatch } from "./stats.ts";

type Loose = { [key: string]: unknown };

/** What first_message holds while the session has no user message. */
const NO_FIRST_MESSAGE = firstMessageTextOf(null);

/**
 * True when the new entries add no tree problem (D3) and leave the session's own ones as they
 * are: each has a known type (and a message a known role), an id that is new (to the session and to the batch), a parentId
 * that is null or an entry already there, and no stored entry names a new id as its missing
 * parent (`missingParents`). Then buildTreeIndex meets every stored entry as before (same ids,
 * same links in the same order: no cycle closes or opens, no orphan finds its parent) and links
 * each new one as a plain child or root, so a recount would find exactly the stored problems.
 */
function appendKeepsProblems(
  db: Database,
  sid: number,
  entries: readonly SessionEntry[],
  missingParents: ReadonlySet<string>,
): boolean {
  const batch = new Set<string>();
  for (const entry of entries) {
    const { id, parentId } = entry as Loose;
    if (!isKnownEntryType(entry.type) || typeof id !== "string") return false;
    if (unknownRoleReason(entry) !== null) return false;
    if (batch.has(id) || missingParents.has(id) || entryIdExists(db, sid, id)) return false;
    if (
      parentId !== null &&
      (typeof parentId !== "string" || !(batch.has(parentId) || entryIdExists(db, sid, parentId)))
    ) {
      return false;
    }
    batch.add(id);
  }
  return true;
}

/**
 * The ids the session's entries name as a parent that is not there, from its stored problems: a
 * tree entry whose string parentId names no entry is an orphan (one problem each, naming it), and
 * no other entry takes part in the links. Null when the stored problems cannot say (an orphan
 * without its id): recount. A session without problems has none.
 */
function missingParentIds(db: Database, session: SessionRow): Set<string> | null {
  if (session.problem_count === 0) return new Set();
  const problems = JSON.parse(session.problems_json) as SessionProblem[];
  if (problems.length !== session.problem_count) return null;
  const missing = new Set<string>();
  for (const problem of problems) {
    if (problem.kind !== "orphan") continue;
    if (typeof problem.entryId !== "string") return null;
    // The tree keeps the last entry of a duplicated id: that is the one reported.
    const parentId = entryLinkById(db, session.sid, problem.entryId)?.[2];
    if (typeof parentId !== "string") return null;
    missing.add(parentId);
  }
  return missing;
}

/** The first user message's text as a recount finds it, when the stored one says there is none. */
function firstUserMessage(db: Database, sid: number, rows: readonly NewEntryRow[]): string {
  const stored = firstUserMessagePk(db, sid);
  // A user message whose text is the same as the marker: the stored figure is its text already.
  if (stored !== undefined) return NO_FIRST_MESSAGE;
  const first = rows.find((r) => r.type === "message" && r.role === "user") as NewEntryRow;
  return firstMessageText(typeof first.json === "string" ? first.json : new TextDecoder().decode(first.json));
}

/** Who appends: Canopy, or the agent's file (its new lines, and how many of them were malformed). */
export type AppendSource = { origin: "canopy" } | { origin: "file"; malformedLines: number };

/**
 * The figures after `rows` (made from `entries`, in order, all after the session's last row and
 * of `source`'s origin) are inserted; call before inserting them. Null: recount instead.
 */
export function statsAfterAppend(
  db: Database,
  session: SessionRow,
  entries: readonly SessionEntry[],
  rows: readonly NewEntryRow[],
  source: AppendSource = { origin: "canopy" },
): StatsPatch | null {
  if (session.first_message === null) return null;
  if (rows.some((r) => r.origin !== source.origin)) return null;
  const missingParents = missingParentIds(db, session);
  if (missingParents === null || !appendKeepsProblems(db, session.sid, entries, missingParents)) return null;
  let messageCount = session.message_count;
  let compactionCount = session.compaction_count;
  let branchSummaryCount = session.branch_summary_count;
  let displayName = session.display_name;
  let compactionTitle = session.compaction_title;
  let newUserMessage = false;
  entries.forEach((entry, i) => {
    const row = rows[i] as NewEntryRow;
    if (row.type === "message") {
      messageCount++;
      if (row.role === "user") newUserMessage = true;
    } else if (row.type === "compaction") {
      compactionCount++;
      compactionTitle = trimmedString(entry as Loose, "shortSummary") ?? compactionTitle;
    } else if (row.type === "branch_summary") branchSummaryCount++;
    else if (row.type === "session_info") displayName = trimmedString(entry as Loose, "name") ?? displayName;
  });
  const firstMessage =
    newUserMessage && session.first_message === NO_FIRST_MESSAGE
      ? firstUserMessage(db, session.sid, rows)
      : session.first_message;
  return {
    entry_count: session.entry_count + rows.length,
    message_count: messageCount,
    compaction_count: compactionCount,
    branch_summary_count: branchSummaryCount,
    malformed_count: session.malformed_count + (source.origin === "file" ? source.malformedLines : 0),
    problem_count: session.problem_count,
    problems_json: session.problems_json,
    first_message: firstMessage,
    display_name: displayName,
    compaction_title: compactionTitle,
    // The file's last entry moves only with the file's own lines.
    file_leaf_id: source.origin === "file" ? (rows.at(-1)?.id ?? session.file_leaf_id) : session.file_leaf_id,
    last_leaf_id: rows.at(-1)?.id ?? session.last_leaf_id,
  };
}
