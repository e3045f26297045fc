/**
 * One file's import: reads it (into the import thread's memory when it is new and large enough),
 * then stores it as a new session, or as what changed in a known one: unchanged → nothing;
 * grown (prefix hash still matches) → only the new tail; rewritten or moved → merged by entry id.
 */
import type { Hash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ImportedFileReport, SessionProblem } from "../../core/api/dto.ts";
import type { Database } from "../store/open.ts";
import {
  findSessionsByHeaderId,
  findSessionsByPath,
  type SessionRow,
  updateSession,
} from "../store/repos/sessions.ts";
import { completeLinesEnd, decodeUtf8, FileDigester, reasonOf, sha256Hex } from "./files.ts";
import { mergeSource, newSession } from "./import-full.ts";
import { openSource, type SessionSource } from "./import-source.ts";
import type { FileBytes, FileFacts } from "./import-state.ts";
import { appendTail } from "./import-tail.ts";
import { RowWorker } from "./parallel-rows.ts";

export interface ImportOptions {
  /** Called after each file: files done, files in total, the file just handled. */
  onProgress?: (done: number, total: number, path: string) => void;
  /** Mark new sessions as demo content (the lead's sample library). */
  isDemo?: boolean;
  /** Asked before each file: true stops the import there (the report says `cancelled`). */
  shouldStop?: () => boolean;
  /**
   * Given the sha256 state after the complete lines of a known file read in full (before it is
   * stored): the live re-import keeps it instead of hashing the file again.
   */
  keepPrefixHash?: (hash: Hash, bytes: number) => void;
}

export interface FileOutcome {
  report: ImportedFileReport;
  bytesRead: number;
}

/** Called once a file's rows are being parsed on the import thread, before they are stored. */
export type WhileParsing = (worker: RowWorker, headerId: string) => void;

/** A file read for its import, or what it came to without being read (unchanged, unreadable). */
export type FileRead =
  | { kind: "done"; outcome: FileOutcome }
  | { kind: "read"; bytes: FileBytes; known: SessionRow[]; worker: RowWorker | null };

export interface ReadPlan {
  /** A new file of at least this size is parsed on the import thread. */
  minBytes: number;
  /** The file the import thread has before this one (a folder import reading ahead). */
  behind?: RowWorker | null;
}

/** A file that gave no session: it could not be read ("failed") or is not a session ("skipped"). */
function noSession(file: string, status: "failed" | "skipped", reason: string): ImportedFileReport {
  return { path: file, sessionId: null, status, entriesAdded: 0, malformedLines: 0, problems: [], reason };
}

export function failed(file: string, reason: string): ImportedFileReport {
  return noSession(file, "failed", reason);
}

/** Reads `file` unless it is untouched since its last import; errors become a "failed" outcome. */
export function readForImport(db: Database, file: string, plan: ReadPlan): FileRead {
  let stat: fs.Stats;
  let sourcePath: string;
  try {
    stat = fs.statSync(file);
    sourcePath = fs.realpathSync(file);
  } catch (error) {
    return { kind: "done", outcome: { report: failed(file, reasonOf(error)), bytesRead: 0 } };
  }
  const known = findSessionsByPath(db, sourcePath);
  // Same size and modification time as last time: the file was not touched since.
  const untouched = known.find((r) => r.file_size === stat.size && r.file_mtime_ms === stat.mtimeMs);
  if (untouched) return { kind: "done", outcome: { report: unchanged(file, untouched), bytesRead: 0 } };

  // A large file seen for the first time is parsed on the import thread, told now so that (if it
  // has to start) it boots while the file is read (into its shared memory). A file that grew
  // since the stat is read up to the size stated: the rest is imported next time.
  const worker =
    known.length === 0 && stat.size >= plan.minBytes
      ? RowWorker.spawn(stat.size, plan.minBytes, plan.behind ?? null)
      : null;
  try {
    // Only the worker needs the bytes in shared memory.
    const buffer = worker ? worker.readFile(file) : fs.readFileSync(file);
    return { kind: "read", bytes: { path: file, sourcePath, buffer, mtimeMs: stat.mtimeMs }, known, worker };
  } catch (error) {
    worker?.close();
    return { kind: "done", outcome: { report: failed(file, reasonOf(error)), bytesRead: 0 } };
  }
}

/**
 * Imports a file read by readForImport. `whileParsing` is called once this file's rows are being
 * parsed on the import thread, before they are stored: the caller reads the next files then, and
 * imports small ones.
 */
export function importRead(
  db: Database,
  read: FileRead,
  options: ImportOptions,
  whileParsing?: WhileParsing,
): FileOutcome {
  if (read.kind === "done") return read.outcome;
  const { bytes, known, worker } = read;
  try {
    const report =
      known.length === 0
        ? importNewPath(db, bytes, options, worker, whileParsing)
        : importKnownPath(db, bytes, known, options);
    return { report, bytesRead: bytes.buffer.length };
  } catch (error) {
    return { report: failed(bytes.path, reasonOf(error)), bytesRead: bytes.buffer.length };
  } finally {
    worker?.close();
  }
}

/** The report of a known file that changed nothing. */
export function unchanged(file: string, row: SessionRow): ImportedFileReport {
  return {
    path: file,
    sessionId: row.id,
    status: "unchanged",
    entriesAdded: 0,
    malformedLines: 0,
    problems: [],
  };
}

/** A path not in the library yet: a new session, or a known session whose file was moved here. */
function importNewPath(
  db: Database,
  bytes: FileBytes,
  options: ImportOptions,
  worker: RowWorker | null,
  whileParsing?: WhileParsing,
): ImportedFileReport {
  const opened = openSource(bytes.buffer);
  if (!opened.ok) return noSession(bytes.path, "skipped", opened.reason);
  const { source } = opened;
  const moved = movedSession(db, source.header.id);
  if (moved) return mergeMoved(db, moved, source, { ...bytes, hash: sha256Hex(bytes.buffer) });
  // The worker (if any) parses the file while this thread stores the rows. Before that, the caller
  // reads the next files, so that the thread has them as soon as it is done with this one, and
  // imports small ones here (FolderImport.importMeanwhile).
  const run = worker?.start(source) ?? null;
  if (run !== null) whileParsing?.(run.worker, source.header.id);
  return newSession(db, source, bytes, options.isDemo === true, run);
}

/** A path imported before: unchanged, grown (only the tail is read), or rewritten (merged). */
function importKnownPath(
  db: Database,
  bytes: FileBytes,
  known: SessionRow[],
  options: ImportOptions,
): ImportedFileReport {
  const { buffer } = bytes;
  // One pass gives the whole file's hash, its complete lines' hash and state, and its line count.
  const digester = new FileDigester();
  digester.advance(buffer, buffer.length);
  options.keepPrefixHash?.(digester.prefixHash(), completeLinesEnd(buffer));
  const digest = digester.finish(buffer);
  const file: FileFacts = { ...bytes, hash: digest.hash };
  const same = known.find((r) => r.file_hash === file.hash);
  if (same) {
    // Touched but identical (e.g. copied over itself): remember the new mtime, change nothing else.
    updateSession(db, same.id, {
      file_mtime_ms: file.mtimeMs,
      modified: new Date(file.mtimeMs).toISOString(),
    });
    return unchanged(file.path, same);
  }

  const prefixMatches = (row: SessionRow): boolean =>
    row.imported_hash !== null &&
    row.imported_bytes <= buffer.length &&
    sha256Hex(buffer.subarray(0, row.imported_bytes)) === row.imported_hash;

  const grown = known.find(prefixMatches);
  // v3 files grow by appended lines only; older versions need a full parse to migrate the tail.
  if (grown && grown.original_version >= 3) {
    const tail = appendTail(db, grown, {
      ...file,
      size: buffer.length,
      tail: buffer.subarray(grown.imported_bytes),
      digest,
      prefixText: () => decodeUtf8(buffer, 0, grown.imported_bytes),
    });
    if (tail) return tail;
  }

  const opened = openSource(buffer);
  if (!opened.ok) return noSession(file.path, "skipped", opened.reason);
  const { source } = opened;
  const samePath = known.find((r) => r.header_id === source.header.id);
  if (samePath) {
    const problems: SessionProblem[] = [];
    if (samePath !== grown) {
      problems.push({
        kind: "file_rewritten",
        message: `${path.basename(file.path)} was rewritten since the last import; new entries were added, stored ones kept`,
      });
    }
    return mergeSource(db, samePath, source, file, {
      grown: samePath === grown,
      problems,
    });
  }
  const moved = movedSession(db, source.header.id);
  if (moved) return mergeMoved(db, moved, source, file);
  return newSession(db, source, file, options.isDemo === true, null);
}

/** A stored session with this header id whose file disappeared from its old place. */
function movedSession(db: Database, headerId: string): SessionRow | undefined {
  return findSessionsByHeaderId(db, headerId).find(
    (r) => r.source_path === null || !fs.existsSync(r.source_path),
  );
}

/** A session whose file was moved (e.g. to another cwd folder): merged into the stored one. */
function mergeMoved(
  db: Database,
  moved: SessionRow,
  source: SessionSource,
  file: FileFacts,
): ImportedFileReport {
  const problems: SessionProblem[] = [];
  if (moved.file_hash !== file.hash) {
    problems.push({
      kind: "file_rewritten",
      message: `${path.basename(file.path)} was moved from ${moved.source_path ?? "(no file)"} and changed; new entries were added`,
    });
  }
  return mergeSource(db, moved, source, file, { grown: false, problems });
}

/** The header id of a read session file, or null (not read, not a session). */
export function headerIdOf(read: FileRead): string | null {
  if (read.kind !== "read") return null;
  const opened = openSource(read.bytes.buffer);
  return opened.ok ? opened.source.header.id : null;
}

/**
 * Whether importing `read` can only add a new session (or nothing, for a file that is not a
 * session): its path is not in the library, and its header id (`headerId`, when the caller has
 * it) is not that of a stored session whose file moved away (that one is merged).
 */
export function addsNewSession(db: Database, read: FileRead, headerId = headerIdOf(read)): boolean {
  if (read.kind !== "read" || read.known.length > 0) return false;
  return headerId === null || movedSession(db, headerId) === undefined;
}
