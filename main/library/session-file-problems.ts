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
  ).map((problem) =>
    problem.kind === "malformed_line" && problem.line === writing
      ? {
          ...problem,
          message: "still being written (no newline yet); it is read again once its agent ends it",
        }
      : problem,
  );
  const file = row.is_demo === 1 ? null : row.source_path;
  if (file === null) return problems;
  if (!fs.existsSync(file)) {
    // The user kept the library's copy as the only one: nothing to act on any more.
    if (isKeptCopy(keptCopies(db), sessionId, file)) return problems;
    return inFileOrder([...problems, fileGoneProblem(file)]);
  }
  const reason = unfollowedFiles(db).get(file);
  if (reason === undefined) return problems;
  const unfollowed: SessionProblem = {
    kind: "not_a_session",
    message:
      `the session file ${file} is no longer a session file (${reason}): nothing more is read from it ` +
      "until it is one again, and everything imported is kept",
  };
  return inFileOrder([...problems, unfollowed]);
}

/**
 * The list's summaries with what is wrong with each one's file now (fileState), so a session
 * that needs attention shows in the list and not only once opened. One stat per session file.
 */
export function withFileStates(db: Database, sessions: SessionSummary[]): SessionSummary[] {
  const unfollowed = unfollowedFiles(db);
  const kept = keptCopies(db);
  return sessions.map((session) => {
    const file = session.isDemo ? null : session.sourcePath;
    if (file === null || session.deletedAt !== undefined) return session;
    if (!fs.existsSync(file)) {
      return { ...session, fileState: isKeptCopy(kept, session.id, file) ? "kept" : "gone" };
    }
    return unfollowed.has(file) ? { ...session, fileState: "not_a_session" } : session;
  });
}
