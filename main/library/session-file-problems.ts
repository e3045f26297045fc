/**
 * The problems a session's file has as the app and `canopy show` list them: its malformed lines
 * and tree problems, plus what the library knows of the file as it is now — a last line still
 * being written (no newline yet), a file gone from its place (moved away or deleted), and one
 * that is there but no longer a session file (the watcher found it so: unfollowed-files.ts).
 */
import fs from "node:fs";
import type { SessionProblem, SessionSummary } from "../../core/api/dto.ts";
import { inFileOrder } from "../../core/session/problems.ts";
import type { Database } from "../store/open.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { fileProblems } from "./import-state.ts";
import { isKeptCopy, keptCopies } from "./kept-copies.ts";
import { loadMalformedLines } from "./load.ts";
import { unfollowedFiles } from "./unfollowed-files.ts";

/** The one line of a session whose file is gone (see sessionFileProblems). */
export function fileGoneProblem(sourcePath: string): SessionProblem {
  return {
    kind: "file_missing",
    message:
      `the session file ${sourcePath} is gone (moved or deleted): nothing more is read from it, and ` +
      "everything imported is kept; importing the file where it is now takes its new lines into this session",
  };
}

export function sessionFileProblems(db: Database, sessionId: string, row: SessionRow): SessionProblem[] {
  // The file's last line as the last import found it, with no newline yet: it is read again then.
  const writing = row.provisional_seq === null ? null : row.imported_lines + 1;
  const problems = fileProblems(
    loadMalformedLines(db, sessionId),
    JSON.parse(row.problems_json) as SessionProblem[],
    writing,
  );
  const file = row.is_demo === 1 ? null : row.source_path;
  const now = fileNow(sessionId, file, keptCopies(db), unfollowedFiles(db));
  if (file === null || now === null || now.state === "kept") return problems;
  if (now.state === "gone") return inFileOrder([...problems, fileGoneProblem(file)]);
  const unfollowed: SessionProblem = {
    kind: "not_a_session",
    message:
      `the session file ${file} is no longer a session file (${now.reason}): nothing more is read from it ` +
      "until it is one again, and everything imported is kept",
  };
  return inFileOrder([...problems, unfollowed]);
}

/**
 * What the library knows of session `sessionId`'s file (null: it has none, a demo) as it is now:
 * gone from its place — or gone with the library's copy kept as the only one (the user said so:
 * nothing to act on any more) — or there but no longer a session file (why); null: nothing to
 * say. `kept` and `unfollowed`: keptCopies and unfollowedFiles, read once by the caller.
 */
function fileNow(
  sessionId: string,
  file: string | null,
  kept: Record<string, string>,
  unfollowed: ReadonlyMap<string, string>,
): { state: "gone" } | { state: "kept" } | { state: "not_a_session"; reason: string } | null {
  if (file === null) return null;
  if (!fs.existsSync(file)) return isKeptCopy(kept, sessionId, file) ? { state: "kept" } : { state: "gone" };
  const reason = unfollowed.get(file);
  return reason === undefined ? null : { state: "not_a_session", reason };
}

/**
 * The list's summaries with what is wrong with each one's file now (fileState), so a session
 * that needs attention shows in the list and not only once opened. One stat per session file.
 */
export function withFileStates(db: Database, sessions: SessionSummary[]): SessionSummary[] {
  const kept = keptCopies(db);
  const unfollowed = unfollowedFiles(db);
  return sessions.map((session) => {
    if (session.deletedAt !== undefined) return session;
    const now = fileNow(session.id, session.isDemo ? null : session.sourcePath, kept, unfollowed);
    return now === null ? session : { ...session, fileState: now.state };
  });
}
