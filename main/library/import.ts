/**
 * Imports agent session files into the library (SPEC §1, D1–D3). A file already imported is
 * re-read cheaply: unchanged → nothing; grown (prefix hash still matches) → only the new tail
 * is parsed; rewritten → fully re-parsed and merged by entry id, nothing stored is ever lost.
 */
import fs from "node:fs";
import path from "node:path";
import type { ImportedFileReport, ImportReport, SessionProblem } from "../../core/api/dto.ts";
import { type Database, withoutAutoCheckpoint } from "../store/open.ts";
import {
  findSessionsByHeaderId,
  findSessionsByPath,
  type SessionRow,
  updateSession,
} from "../store/repos/sessions.ts";
import { listSessionFiles, reasonOf, sha256Hex } from "./files.ts";
import { BATCH_FILE_BYTES, ImportBatch, type LostBatch } from "./import-batch.ts";
import { mergeSource, newSession } from "./import-full.ts";
import { openSource, type SessionSource } from "./import-source.ts";
import type { FileBytes, FileFacts } from "./import-state.ts";
import { appendTail } from "./import-tail.ts";
import { importThreadWaiting, PARALLEL_PARSE_MIN_BYTES, RowWorker } from "./parallel-rows.ts";
import { READ_AHEAD_MIN_BYTES, ReadAhead } from "./read-ahead.ts";

export { defaultAgentFolders } from "./files.ts";
export { READ_AHEAD_MIN_BYTES } from "./read-ahead.ts";

export interface ImportOptions {
  /** Called after each file: files done, files in total, the file just handled. */
  onProgress?: (done: number, total: number, path: string) => void;
  /** Mark new sessions as demo content (the lead's sample library). */
  isDemo?: boolean;
}

/**
 * Imports one `.jsonl` file or every `*.jsonl` below a folder. Never throws for bad files.
 * Automatic WAL checkpoints are off meanwhile: callers run `checkpointWal` when idle.
 */
export function importPath(db: Database, target: string, options: ImportOptions = {}): ImportReport {
  return withoutAutoCheckpoint(db, () => importAll(db, target, options));
}

function importAll(db: Database, target: string, options: ImportOptions): ImportReport {
  const started = performance.now();
  const { files, errors } = listSessionFiles(target);
  // Each file's report, in file order (a small file may be imported before its turn, see importMeanwhile).
  const fileReports: (ImportedFileReport | undefined)[] = new Array(files.length);
  const newSizes = newFileSizes(db, files);
  const newBytesFrom = suffixSums(newSizes);
  let bytesRead = 0;
  const record = (at: number, outcome: FileOutcome): void => {
    fileReports[at] = outcome.report;
    bytesRead += outcome.bytesRead;
  };
  // The next files for the import thread, read while this one's rows are stored.
  const ahead = new ReadAhead<FileRead>({
    sizes: newSizes,
    read: (at, behind) => readForImport(db, files[at] as string, { minBytes: READ_AHEAD_MIN_BYTES, behind }),
    workerOf: (read) => (read.kind === "read" ? read.worker : null),
  });
  // Small files read before their turn but left for it (see importMeanwhile).
  const held = new Map<number, FileRead>();
  // Small files share a transaction (a commit per file would rewrite whole pages for each).
  const batch = new ImportBatch(db);
  // Files whose writes were lost with their batch are reported as failed, never as imported.
  const markLost = (lost: LostBatch | null): void => {
    for (const key of lost?.keys ?? []) {
      const report = fileReports[key];
      if (report?.status === "imported" || report?.status === "updated") {
        fileReports[key] = failed(report.path, lost?.reason ?? "");
      }
    }
  };
  const importInBatch = (at: number, read: FileRead, whileParsing?: WhileParsing): void => {
    if (read.kind === "read") {
      const size = read.bytes.buffer.length;
      markLost(batch.before(at, size, read.worker === null && size <= BATCH_FILE_BYTES));
    }
    record(at, importRead(db, read, options, whileParsing));
    markLost(batch.after());
  };
  /**
   * While the import thread parses file `at`, imports the small new files after it here, so that
   * neither thread waits for the other. Files with the same header id keep their order (it
   * decides which one gets the header id as its session id): one whose header id is that of a
   * file before it still to come waits for its turn.
   */
  const importMeanwhile = (at: number, headerId: string): void => {
    const waiting = new Set([headerId]);
    let budget = EARLY_BYTES_SHARE * ((newSizes[at] ?? 0) + ahead.queuedBytes());
    for (let j = at + 1; j < files.length && budget > 0; j++) {
      if (fileReports[j] !== undefined) continue;
      const before = ahead.peek(j) ?? held.get(j);
      if (before !== undefined) {
        const id = headerIdOf(before);
        if (id !== null) waiting.add(id);
        continue;
      }
      const size = newSizes[j] ?? 0;
      // A known file (or an unreadable one), or one for the thread not read yet: its header is unknown.
      if (size === 0 || size >= READ_AHEAD_MIN_BYTES) break;
      const read = readForImport(db, files[j] as string, { minBytes: Number.POSITIVE_INFINITY });
      budget -= size;
      const id = headerIdOf(read);
      if (id !== null && waiting.has(id)) held.set(j, read);
      else importInBatch(j, read);
    }
    markLost(batch.commit());
  };
  try {
    files.forEach((file, i) => {
      if (fileReports[i] === undefined) {
        const read =
          held.get(i) ??
          ahead.take(i) ??
          readForImport(db, file, {
            // Smaller files go to the import thread too when it is waiting, or when enough new
            // data follows to be worth starting it.
            minBytes:
              importThreadWaiting() || (newBytesFrom[i] ?? 0) >= READ_AHEAD_START_BYTES
                ? READ_AHEAD_MIN_BYTES
                : PARALLEL_PARSE_MIN_BYTES,
          });
        held.delete(i);
        importInBatch(i, read, (worker, headerId) => {
          ahead.fill(i, worker);
          importMeanwhile(i, headerId);
        });
      }
      options.onProgress?.(i + 1, files.length, file);
    });
  } finally {
    // What the small files stored so far is kept even when the loop stops early.
    markLost(batch.commit());
    // Files read ahead whose turn never came (a progress callback threw): let their thread go.
    for (const left of ahead.drain()) if (left.kind === "read") left.worker?.close();
  }
  const reports = [
    ...errors.map((e) => failed(e.path, e.reason)),
    ...fileReports.filter((r) => r !== undefined),
  ];
  const count = (status: ImportedFileReport["status"]): number =>
    reports.filter((r) => r.status === status).length;
  return {
    files: reports,
    imported: count("imported"),
    updated: count("updated"),
    unchanged: count("unchanged"),
    skipped: count("skipped"),
    failed: count("failed"),
    entriesAdded: reports.reduce((sum, r) => sum + r.entriesAdded, 0),
    bytesRead,
    durationMs: Math.round(performance.now() - started),
  };
}

/** The header id of a read session file, or null (not read, not a session). */
function headerIdOf(read: FileRead): string | null {
  if (read.kind !== "read") return null;
  const opened = openSource(read.bytes.buffer);
  return opened.ok ? opened.source.header.id : null;
}

/** Each file's size when its path is not in the library yet, else 0 (also for one that cannot be read). */
function newFileSizes(db: Database, files: readonly string[]): number[] {
  return files.map((file) => {
    try {
      return findSessionsByPath(db, fs.realpathSync(file)).length === 0 ? fs.statSync(file).size : 0;
    } catch {
      return 0;
    }
  });
}

/**
 * For each file, the new bytes (newFileSizes) of the files from it to the end: what decides
 * whether starting the import thread pays off.
 */
function suffixSums(sizes: readonly number[]): number[] {
  const sums = [...sizes];
  for (let i = sums.length - 2; i >= 0; i--) sums[i] = (sums[i] as number) + (sums[i + 1] as number);
  return sums;
}

/** A file that gave no session: it could not be read ("failed") or is not a session ("skipped"). */
function noSession(file: string, status: "failed" | "skipped", reason: string): ImportedFileReport {
  return { path: file, sessionId: null, status, entriesAdded: 0, malformedLines: 0, problems: [], reason };
}

function failed(file: string, reason: string): ImportedFileReport {
  return noSession(file, "failed", reason);
}

export interface FileOutcome {
  report: ImportedFileReport;
  bytesRead: number;
}

/**
 * A folder import with this much new data ahead starts the import thread for files of at least
 * READ_AHEAD_MIN_BYTES: it then parses the next files while this thread stores the current one.
 */
const READ_AHEAD_START_BYTES = 32 * 1024 * 1024;

/**
 * While the thread parses a file, the small files after it that are imported here come to at most
 * this share of the bytes the thread has queued: parsed and stored in place, a byte costs this
 * thread about four times what parsing it costs the thread.
 */
const EARLY_BYTES_SHARE = 1 / 4;

/** Called once a file's rows are being parsed on the import thread, before they are stored. */
type WhileParsing = (worker: RowWorker, headerId: string) => void;

/** A file read for its import, or what it came to without being read (unchanged, unreadable). */
type FileRead =
  | { kind: "done"; outcome: FileOutcome }
  | { kind: "read"; bytes: FileBytes; known: SessionRow[]; worker: RowWorker | null };

interface ReadPlan {
  /** A new file of at least this size is parsed on the import thread. */
  minBytes: number;
  /** The file the import thread has before this one (a folder import reading ahead). */
  behind?: RowWorker | null;
}

/** Imports one file; errors become a "failed" report. */
export function importFile(db: Database, file: string, options: ImportOptions = {}): FileOutcome {
  return importRead(db, readForImport(db, file, { minBytes: PARALLEL_PARSE_MIN_BYTES }), options);
}

/** Reads `file` unless it is untouched since its last import; errors become a "failed" outcome. */
function readForImport(db: Database, file: string, plan: ReadPlan): FileRead {
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
function importRead(
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

function unchanged(file: string, row: SessionRow): ImportedFileReport {
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
  // The worker (if any) parses the file while this thread stores the rows; the next files are read
  // first, so that the thread has them as soon as it is done with this one.
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
  const file: FileFacts = { ...bytes, hash: sha256Hex(buffer) };
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
  if (grown && grown.original_version >= 3) return appendTail(db, grown, file);

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
