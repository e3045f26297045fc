/**
 * The cached figures of a session after undo removed entries Canopy had appended (an edited
 * message, a label), worked out from the stored figures and the removed rows alone where that is
 * exactly what a full recount (stats.ts) would give; null where it is not obvious: recount.
 */
import type { SessionProblem } from "../../core/api/dto.ts";
import type { Database } from "../store/open.ts";
import { type EntryShape, entryJson, firstUserMessagePk, lastEntryId } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { isKnownEntryType } from "./entry-facts.ts";
import { firstMessageText, type StatsPatch } from "./stats.ts";

/** Types whose removal changes a figure read from the entry's JSON (titles): recount. */
const TITLE_TYPES = new Set(["compaction", "session_info"]);

/**
 * The figures after `removed` (rows of `session` as they were, EntryShape) were deleted; call
 * after deleting them, with `session` read before. The caller has made sure no entry left names
 * a removed one as its parent. Then removing an entry that had no tree problem of its own (a
 * known type, a unique id, a parent link that was kept) leaves every other entry linked as it
 * was: no other entry's problem comes or goes, and their lines (seq) stay.
 */
export function statsAfterRemove(
  db: Database,
  session: SessionRow,
  removed: readonly EntryShape[],
): StatsPatch | null {
  if (session.first_message === null) return null;
  const ids = new Set<string>();
  const seqs = new Set<number>();
  for (const [, seq, id, , type, , , origin] of removed) {
    if (origin !== "canopy" || id === null || !isKnownEntryType(type) || TITLE_TYPES.has(type)) return null;
    ids.add(id);
    seqs.add(seq);
  }
  if (session.problem_count !== 0) {
    const problems = JSON.parse(session.problems_json) as SessionProblem[];
    const named = (p: SessionProblem) =>
      (p.entryId !== undefined && ids.has(p.entryId)) || (p.line !== undefined && seqs.has(p.line));
    if (problems.length !== session.problem_count || problems.some(named)) return null;
  }
  let messages = 0;
  let branchSummaries = 0;
  let userMessage = false;
  for (const [, , , , type, role] of removed) {
    if (type === "message") {
      messages++;
      if (role === "user") userMessage = true;
    } else if (type === "branch_summary") branchSummaries++;
  }
  let firstMessage = session.first_message;
  if (userMessage) {
    const pk = firstUserMessagePk(db, session.sid);
    firstMessage = firstMessageText(pk === undefined ? null : entryJson(db, pk));
  }
  return {
    entry_count: session.entry_count - removed.length,
    message_count: session.message_count - messages,
    compaction_count: session.compaction_count,
    branch_summary_count: session.branch_summary_count - branchSummaries,
    malformed_count: session.malformed_count,
    problem_count: session.problem_count,
    problems_json: session.problems_json,
    first_message: firstMessage,
    display_name: session.display_name,
    compaction_title: session.compaction_title,
    // Only Canopy's rows were removed: the file's last entry stays.
    file_leaf_id: session.file_leaf_id,
    last_leaf_id: lastEntryId(db, session.sid),
  };
}
