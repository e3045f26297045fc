/**
 * The problems a session's file has as the app and `canopy show` list them: its malformed lines
 * and tree problems, plus what the library knows of the file as it is now — a last line still
 * being written (no newline yet) and a file gone from its place (moved away or deleted).
 */
import fs from "node:fs";
import type { SessionProblem } from "../../core/api/dto.ts";
import { inFileOrder } from "../../core/session/problems.ts";
import type { Database } from "../store/open.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { fileProblems } from "./import-state.ts";
import { loadMalformedLines } from "./load.ts";

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
  const gone = row.source_path !== null && row.is_demo !== 1 && !fs.existsSync(row.source_path);
  return gone ? inFileOrder([...problems, fileGoneProblem(row.source_path as string)]) : problems;
}
