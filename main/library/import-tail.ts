/**
 * Append-only re-import of a v3 file whose imported prefix is byte-identical (the agent only
 * appended lines): parse just the tail. A provisional unterminated last line from the previous
 * import is dropped first and read again, now complete. A tail that brings back entries stored
 * before the file was cut short is left to the merge by id (null). Works on the tail bytes alone
 * (a live append reads nothing else), and updates the list figures from the new rows when it can.
 */
import type { ImportedFileReport, SessionProblem } from "../../core/api/dto.ts";
import { type MalformedLine, type ParsedEntryLine, visitEntryLines } from "../../core/session/jsonl.ts";
import type { Database } from "../store/open.ts";
import {
  deleteEntryAtSeq,
  deleteMalformedAtSeq,
  entryIdExists,
  insertEntries,
  insertMalformed,
  maxSeq,
} from "../store/repos/entries.ts";
import { getSessionRow, type SessionRow, updateSession } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import { isOmpEntry, toEntryRow } from "./entry-rows.ts";
import { markFrom, parseLineMarks } from "./file-lines.ts";
import { decodeUtf8, type FileDigest } from "./files.ts";
import { type FileBytes, malformedProblems, tailState } from "./import-state.ts";
import { refreshSessionStats } from "./stats.ts";
import { statsAfterAppend } from "./append-stats.ts";

/** A grown file as the append-only import needs it: the bytes after the imported prefix. */
export interface AppendedBytes extends Omit<FileBytes, "buffer"> {
  /** The file's size. */
  size: number;
  /** The file's bytes from `row.imported_bytes` to `size`. */
  tail: Buffer;
  /** Digest of the whole file. */
  digest: FileDigest;
  /** Text of the imported prefix, or null when it was not read (the merge by id decides then). */
  prefixText: (() => string) | null;
}

/**
 * Whether tail entries are stored already although the file's imported prefix does not hold
 * them: the file was cut short and written again (a restore, a sync tool), so these lines are
 * not new. An id the prefix does hold is the file's own duplicate, stored as the file has it.
 */
function bringsBackStored(
  db: Database,
  row: SessionRow,
  file: AppendedBytes,
  entries: ParsedEntryLine[],
): boolean {
  // The provisional last line of the previous import is stored and read again: not brought back.
  const provisional = row.provisional_seq === null ? null : row.imported_lines + 1;
  const stored = entries.flatMap(({ entry, line }) =>
    line !== provisional && typeof entry.id === "string" && entryIdExists(db, row.sid, entry.id)
      ? [entry.id]
      : [],
  );
  if (stored.length === 0) return false;
  if (file.prefixText === null) return true;
  const inPrefix = new Set<string>();
  visitEntryLines(file.prefixText(), 1, {
    entry(entry) {
      if (typeof entry.id === "string") inPrefix.add(entry.id);
    },
    malformed() {},
  });
  return stored.some((id) => !inPrefix.has(id));
}

/**
 * Stores the tail of `read`'s file (the session row as the caller read it); null when the merge by
 * id must decide: the tail brings back stored entries, or another connection stored a tail of
 * this session after `read` was read (checked under the write lock, so no line is stored twice).
 */
export function appendTail(db: Database, read: SessionRow, file: AppendedBytes): ImportedFileReport | null {
  const firstLine = read.imported_lines + 1;
  // A byte-order mark is the file's only at its very start.
  const tail = read.imported_bytes === 0 ? decodeUtf8(file.tail) : file.tail.toString("utf8");
  const parsed = { entries: [] as ParsedEntryLine[], raws: [] as string[], malformed: [] as MalformedLine[] };
  visitEntryLines(tail, firstLine, {
    entry(entry, line, raw) {
      parsed.entries.push({ line, entry });
      parsed.raws.push(raw);
    },
    malformed: (m) => parsed.malformed.push(m),
  });
  if (bringsBackStored(db, read, file, parsed.entries)) return null;
  const state = tailState(file, file.size, read.imported_bytes, file.tail, file.digest);
  let added = 0;
  let problems: SessionProblem[] = [];
  const stored = writeTransaction(db, (): boolean => {
    // `read` was read before this write lock: another connection (the import runner's thread, a
    // CLI) may have stored this very tail since. Then nothing is written here (the caller's merge
    // by id, or full re-import, finds it stored); else its figures are taken as they are now.
    const row = getSessionRow(db, read.id);
    if (
      row === undefined ||
      row.sid !== read.sid ||
      row.imported_bytes !== read.imported_bytes ||
      row.imported_hash !== read.imported_hash
    ) {
      return false;
    }
    const { sid } = row;
    let removed = 0;
    if (row.provisional_seq !== null) {
      if (deleteEntryAtSeq(db, sid, row.provisional_seq)) removed++;
      deleteMalformedAtSeq(db, sid, row.provisional_seq);
    }
    // seq = line + shift; the shift only grows when Canopy's own entries or a merged rewrite
    // already occupy the positions right after the file's last line.
    const shift = Math.max(row.line_shift, Math.max(maxSeq(db, sid), row.header_line) + 1 - firstLine);
    const rows = parsed.entries.map((e, i) =>
      toEntryRow(e.entry, e.line + shift, parsed.raws[i] as string, "file"),
    );
    // Counted from the new rows before they are stored (their ids must be new); a provisional row
    // taken back changes figures the new rows alone cannot tell.
    const stats =
      row.provisional_seq === null
        ? statsAfterAppend(
            db,
            row,
            parsed.entries.map((e) => e.entry),
            rows,
            { origin: "file", malformedLines: parsed.malformed.length },
          )
        : null;
    insertEntries(db, sid, rows);
    insertMalformed(
      db,
      sid,
      parsed.malformed.map((m) => ({ seq: m.line + shift, raw: m.raw, error: m.error })),
    );
    const provisional = state.provisionalLine;
    // Where the file's lines are when Canopy's rows pushed them on (problems name the file's line).
    const marks = markFrom(parseLineMarks(row.line_marks), firstLine + shift, shift);
    const hasProvisionalRow =
      provisional !== null &&
      (parsed.entries.some((e) => e.line === provisional) ||
        parsed.malformed.some((m) => m.line === provisional));
    updateSession(db, row.id, {
      ...state.patch,
      line_shift: shift,
      ...(marks === null ? {} : { line_marks: JSON.stringify(marks) }),
      provisional_seq: hasProvisionalRow ? provisional + shift : null,
      ...(row.dialect === "pi" && parsed.entries.some((e) => isOmpEntry(e.entry))
        ? { dialect: "omp" as const }
        : {}),
    });
    added = Math.max(0, rows.length - removed);
    if (stats === null) problems = refreshSessionStats(db, row);
    else {
      updateSession(db, row.id, stats);
      // The session's tree problems, as a recount reports them (the append left them as they were).
      problems = stats.problem_count === 0 ? [] : (JSON.parse(stats.problems_json) as SessionProblem[]);
    }
    return true;
  })();
  if (!stored) return null;
  return {
    path: file.path,
    sessionId: read.id,
    status: "updated",
    entriesAdded: added,
    malformedLines: parsed.malformed.length,
    problems: [...malformedProblems(parsed.malformed, state.provisionalLine), ...problems],
  };
}
