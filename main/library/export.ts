/**
 * Lossless JSONL export (D2, D14): the header, every entry and every malformed raw line at its
 * original position. With a chosen leaf, one invisible `custom` entry is appended as that
 * leaf's child (a root for leaf null: before the first entry), so an agent (whose leaf is the
 * file's last line) resumes exactly there. A
 * rename is written as the dialect expects (omp: header `title`; pi: a `session_info` entry
 * below the last entry); `withoutArchived` leaves archived subtrees out (a pruned copy whose
 * parent links all resolve, export-archived.ts).
 */
import path from "node:path";
import type { RequestInput } from "../../core/api/contract.ts";
import type { ExportResult } from "../../core/api/dto.ts";
import type { Database } from "../store/open.ts";
import { type ExportOptions, exportChunks, writeChunks, writeChunksAsync } from "./export-lines.ts";
import { requireSession } from "./load.ts";
import { writeOutputFile } from "./output-file.ts";

export { type ExportOptions, RESUME_CUSTOM_TYPE } from "./export-lines.ts";

/** The options a request can ask for: plain data, so the import runner's thread can be sent them. */
export type ExportRequestOptions = Pick<ExportOptions, "leafId" | "withoutArchived" | "originals">;

/** The export options a `session:export` request asks for (the handler's and the CLI's stdout export). */
export function exportOptionsOf(input: RequestInput<"session:export">): ExportRequestOptions {
  return {
    ...(input.leafId === undefined ? {} : { leafId: input.leafId }),
    ...(input.withoutArchived ? { withoutArchived: true } : {}),
    ...(input.originals ? { originals: true } : {}),
  };
}

/** The result, saying how many entries the live-source guard re-imported first (when any). */
export function withReimported(result: ExportResult, live: { entriesAdded: number } | null | undefined): ExportResult {
  return live && live.entriesAdded > 0 ? { ...result, reimportedEntries: live.entriesAdded } : result;
}

/** The whole JSONL text as one string (the contract's answer without an output path); reads only. */
export function exportSession(db: Database, sessionId: string, options: ExportOptions = {}): ExportResult {
  const parts: string[] = [];
  const result = writeChunks(exportChunks(db, sessionId, options), (chunk) => parts.push(chunk));
  return { text: parts.join(""), ...result };
}

/** The name an export is given where the user names only a folder: its source file's, else `<id>.jsonl`. */
export function suggestedExportName(db: Database, sessionId: string): string {
  const source = requireSession(db, sessionId).source_path;
  return source === null ? `${sessionId}.jsonl` : path.basename(source);
}

/**
 * Exports to `outPath` (written as output-file.ts says: a regular file is replaced atomically),
 * chunk by chunk as the rows are read: the text is never in memory as a whole.
 */
export function exportSessionToFile(
  db: Database,
  sessionId: string,
  outPath: string,
  options: ExportOptions = {},
): ExportResult {
  const chunks = exportChunks(db, sessionId, options);
  const suggested = suggestedExportName(db, sessionId);
  let result: ExportResult = { lines: 0 };
  const written = writeOutputFile(
    outPath,
    (write) => {
      result = writeChunks(chunks, write);
    },
    suggested,
  );
  return { ...result, path: written };
}

/**
 * Exports to a stream, waiting for each `write` before reading on (backpressure). The rows are
 * read from one snapshot held open across those waits, during which the connection cannot write:
 * only where nothing else uses it meanwhile (the CLI's stdout).
 */
export async function exportSessionToStream(
  db: Database,
  sessionId: string,
  write: (chunk: string) => Promise<void> | void,
  options: ExportOptions = {},
): Promise<ExportResult> {
  return writeChunksAsync(exportChunks(db, sessionId, options), write);
}
