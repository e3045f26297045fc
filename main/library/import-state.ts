/**
 * What an import remembers about a file so the next import can be incremental: sizes, hashes,
 * the byte offset and line count of the complete lines, and the unterminated last line (an agent
 * may be in the middle of writing it) which is stored provisionally and re-read next time.
 */

import type { SessionProblem } from "../../core/api/dto.ts";
import type { MalformedLine } from "../../core/session/jsonl.ts";
import { inFileOrder } from "../../core/session/problems.ts";
import type { SessionPatch } from "../store/repos/sessions.ts";
import { completeLinesEnd, decodeUtf8, type FileDigest } from "./files.ts";

/** A file as read for an import. */
export interface FileBytes {
  /** The path as given (for reports). */
  path: string;
  /** Real path: the session's identity on disk. */
  sourcePath: string;
  buffer: Buffer;
  mtimeMs: number;
}

export interface FileFacts extends FileBytes {
  /** sha256 of the whole buffer. */
  hash: string;
}

export type FilePatch = Required<
  Pick<
    SessionPatch,
    | "source_path"
    | "file_size"
    | "file_mtime_ms"
    | "file_hash"
    | "modified"
    | "imported_bytes"
    | "imported_hash"
    | "imported_lines"
  >
>;

export interface FileState {
  patch: FilePatch;
  /** 1-based line number of a non-blank unterminated last line, else null. */
  provisionalLine: number | null;
}

export function fileState(file: FileBytes, digest: FileDigest): FileState {
  return tailState(file, file.buffer.length, 0, file.buffer, digest);
}

/**
 * The state of a file of `size` bytes of which only `tail` (its bytes from `base`, a line start)
 * was read; `digest` is that of the whole file.
 */
export function tailState(
  file: Omit<FileBytes, "buffer">,
  size: number,
  base: number,
  tail: Buffer,
  digest: FileDigest,
): FileState {
  const end = completeLinesEnd(tail);
  const rest = end < tail.length ? decodeUtf8(tail, end) : "";
  return {
    patch: {
      source_path: file.sourcePath,
      file_size: size,
      file_mtime_ms: file.mtimeMs,
      file_hash: digest.hash,
      modified: new Date(file.mtimeMs).toISOString(),
      imported_bytes: base + end,
      imported_hash: digest.importedHash,
      imported_lines: digest.lines,
    },
    provisionalLine: rest.trim() === "" ? null : digest.lines + 1,
  };
}

/** Raw text of a physical line of `text` whose first line is `firstLine` ("\r" stripped). */
export function lineReader(text: string, firstLine: number): (line: number) => string {
  const lines = text.split("\n");
  return (line) => {
    const raw = lines[line - firstLine] ?? "";
    return raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  };
}

/** Everything wrong in a file as users see it: its malformed lines and its tree problems, in file order. */
export function fileProblems(
  malformed: readonly MalformedLine[],
  problems: readonly SessionProblem[],
  writingLine: number | null = null,
): SessionProblem[] {
  return inFileOrder([...malformedProblems(malformed, writingLine), ...problems]);
}

/**
 * Malformed lines as problems: why the line is not an entry, and that nothing of it is lost. The
 * file's unterminated last line (`writingLine`) is no bad line but one its agent is writing: it is
 * read again once complete (the import report once said it was kept as invalid JSON).
 */
export function malformedProblems(
  malformed: readonly MalformedLine[],
  writingLine: number | null = null,
): SessionProblem[] {
  return malformed.map((m) => ({
    kind: "malformed_line",
    message:
      m.line === writingLine
        ? "still being written (no newline yet); it is read again once its agent ends it"
        : `${m.error}; the line is kept, and export writes it back`,
    line: m.line,
  }));
}
