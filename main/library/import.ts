/**
 * Imports agent session files into the library (SPEC §1, D1–D3): one `.jsonl` file, or every
 * `*.jsonl` below a folder, each as import-file.ts stores it. A folder import keeps the import
 * thread and this thread busy together: it reads the thread's next files ahead, and imports the
 * small files here while the thread parses a large one.
 */
import fs from "node:fs";
import type { ImportedFileReport, ImportReport } from "../../core/api/dto.ts";
import { type Database, withoutAutoCheckpoint } from "../store/open.ts";
import { findSessionsByPath } from "../store/repos/sessions.ts";
import { listSessionFiles, type SessionFileList } from "./files.ts";
import { BATCH_FILE_BYTES, type BatchGroup, ImportBatch, type LostBatch } from "./import-batch.ts";
import {
  addsNewSession,
  type FileOutcome,
  type FileRead,
  failed,
  headerIdOf,
  type ImportOptions,
  importRead,
  readForImport,
  type WhileParsing,
} from "./import-file.ts";
import { importThreadWaiting, PARALLEL_PARSE_MIN_BYTES } from "./parallel-rows.ts";
import { READ_AHEAD_MIN_BYTES, ReadAhead } from "./read-ahead.ts";

export { defaultAgentFolders } from "./files.ts";
export type { FileOutcome, ImportOptions } from "./import-file.ts";
export { READ_AHEAD_MIN_BYTES } from "./read-ahead.ts";

/**
 * Imports one `.jsonl` file or every `*.jsonl` below a folder. Never throws for bad files.
 * Automatic WAL checkpoints are off meanwhile: callers run `checkpointWal` when idle.
 */
export function importPath(db: Database, target: string, options: ImportOptions = {}): ImportReport {
  return withoutAutoCheckpoint(db, () => new FolderImport(db, target, options).run());
}

/** Imports one file; errors become a "failed" report. */
export function importFile(db: Database, file: string, options: ImportOptions = {}): FileOutcome {
  return importRead(db, readForImport(db, file, { minBytes: PARALLEL_PARSE_MIN_BYTES }), options);
}

/**
 * A folder import with this much new data ahead starts the import thread for files of at least
 * READ_AHEAD_MIN_BYTES: it then parses the next files while this thread stores the current one.
 */
export const READ_AHEAD_START_BYTES = 32 * 1024 * 1024;

/**
 * While the thread parses a file, the small files after it that are imported here come to at most
 * this share of the bytes the thread has queued: parsed and stored in place, a byte costs this
 * thread about four times what parsing it costs the thread.
 */
const EARLY_BYTES_SHARE = 1 / 4;

/**
 * While the thread parses a file, the files before it are committed once they come to this much:
 * bigger batches write less WAL in all (each commit rewrites the pages the files share), and
 * what is left to commit at the end of the import, when no parse overlaps it, stays small.
 */
const COMMIT_WHILE_PARSING_BYTES = 4 * 1024 * 1024;

/** The files of one importPath call, imported in file order (small ones possibly earlier). */
class FolderImport {
  private readonly db: Database;
  private readonly options: ImportOptions;
  private readonly started = performance.now();
  private readonly files: string[];
  private readonly errors: SessionFileList["errors"];
  /** Each file's size when its path is not in the library yet, else 0. */
  private readonly newSizes: number[];
  /** Each file's report, in file order (a small file may be imported before its turn). */
  private readonly reports: (ImportedFileReport | undefined)[];
  private bytesRead = 0;
  /** The import stopped before its last file (ImportOptions.shouldStop). */
  private cancelled = false;
  /** The next files for the import thread, read while this one's rows are stored. */
  private readonly ahead: ReadAhead<FileRead>;
  /** Small files read before their turn but left for it (see importMeanwhile). */
  private readonly held = new Map<number, FileRead>();
  /** Files share transactions (a commit per file would rewrite whole pages for each). */
  private readonly batch: ImportBatch;

  constructor(db: Database, target: string, options: ImportOptions) {
    this.db = db;
    this.options = options;
    ({ files: this.files, errors: this.errors } = listSessionFiles(target));
    this.reports = new Array(this.files.length);
    this.newSizes = newFileSizes(db, this.files);
    this.ahead = new ReadAhead<FileRead>({
      sizes: this.newSizes,
      read: (at, behind) =>
        readForImport(db, this.files[at] as string, { minBytes: READ_AHEAD_MIN_BYTES, behind }),
      workerOf: (read) => (read.kind === "read" ? read.worker : null),
    });
    this.batch = new ImportBatch(db);
  }

  run(): ImportReport {
    const { files } = this;
    const newBytesFrom = suffixSums(this.newSizes);
    try {
      for (const [i, file] of files.entries()) {
        if (this.reports[i] === undefined && this.options.shouldStop?.() === true) {
          this.cancelled = true;
          break;
        }
        if (this.reports[i] === undefined) {
          const read =
            this.held.get(i) ??
            this.ahead.take(i) ??
            readForImport(this.db, file, {
              // Smaller files go to the import thread too when it is waiting, or when enough new
              // data follows to be worth starting it.
              minBytes:
                importThreadWaiting() || (newBytesFrom[i] ?? 0) >= READ_AHEAD_START_BYTES
                  ? READ_AHEAD_MIN_BYTES
                  : PARALLEL_PARSE_MIN_BYTES,
            });
          this.held.delete(i);
          this.importInBatch(i, read, (worker, headerId) => {
            this.ahead.fill(i, worker);
            this.importMeanwhile(i, headerId);
          });
        }
        this.options.onProgress?.(i + 1, files.length, file);
      }
    } finally {
      // What the batched files stored so far is kept even when the loop stops early.
      this.markLost(this.batch.commit());
      // Files read ahead whose turn never came (a progress callback threw): let their thread go.
      for (const left of this.ahead.drain()) if (left.kind === "read") left.worker?.close();
    }
    return this.report();
  }

  /**
   * Imports file `at` in the batch of its group (see ImportBatch). A file parsed on the thread
   * joins its batch again right before its rows are stored, after `whileParsing` imported others.
   */
  private importInBatch(
    at: number,
    read: FileRead,
    whileParsing?: WhileParsing,
    group = this.groupOf(read),
  ): void {
    const size = read.kind === "read" ? read.bytes.buffer.length : 0;
    if (read.kind === "read") this.markLost(this.batch.before(at, size, group));
    const outcome = importRead(this.db, read, this.options, (worker, headerId) => {
      whileParsing?.(worker, headerId);
      this.markLost(this.batch.beforeRows(at, size, group, COMMIT_WHILE_PARSING_BYTES));
    });
    this.reports[at] = outcome.report;
    this.bytesRead += outcome.bytesRead;
    this.markLost(this.batch.after());
  }

  /** The batch group of a read file (null for one not read); `headerId` when the caller has it. */
  private groupOf(read: FileRead, headerId?: string | null): BatchGroup {
    if (read.kind !== "read") return null;
    if (addsNewSession(this.db, read, headerId)) return "new";
    return read.worker === null && read.bytes.buffer.length <= BATCH_FILE_BYTES ? "checked" : null;
  }

  /**
   * While the import thread parses file `at`, imports the small new files after it here, so that
   * neither thread waits for the other; they join file `at`'s batch. Files with the same header
   * id keep their order (it decides which one gets the header id as its session id): one whose
   * header id is that of a file before it still to come waits for its turn, as does one merged
   * into a stored session (its batch keeps foreign-key checks on).
   */
  private importMeanwhile(at: number, headerId: string): void {
    const waiting = new Set([headerId]);
    let budget = EARLY_BYTES_SHARE * ((this.newSizes[at] ?? 0) + this.ahead.queuedBytes());
    for (let j = at + 1; j < this.files.length && budget > 0; j++) {
      if (this.reports[j] !== undefined) continue;
      const before = this.ahead.peek(j) ?? this.held.get(j);
      if (before !== undefined) {
        const id = headerIdOf(before);
        if (id !== null) waiting.add(id);
        continue;
      }
      const size = this.newSizes[j] ?? 0;
      // A known file (or an unreadable one), or one for the thread not read yet: its header is unknown.
      if (size === 0 || size >= READ_AHEAD_MIN_BYTES) break;
      const read = readForImport(this.db, this.files[j] as string, { minBytes: Number.POSITIVE_INFINITY });
      budget -= size;
      const id = headerIdOf(read);
      const group = this.groupOf(read, id);
      if ((id !== null && waiting.has(id)) || group !== "new") {
        this.held.set(j, read);
        if (id !== null) waiting.add(id);
      } else this.importInBatch(j, read, undefined, group);
    }
  }

  /** Files whose writes were lost with their batch are reported as failed, never as imported. */
  private markLost(lost: LostBatch | null): void {
    for (const key of lost?.keys ?? []) {
      const report = this.reports[key];
      if (report?.status === "imported" || report?.status === "updated") {
        this.reports[key] = failed(report.path, lost?.reason ?? "");
      }
    }
  }

  private report(): ImportReport {
    const reports = [
      ...this.errors.map((e) => failed(e.path, e.reason)),
      ...this.reports.filter((r) => r !== undefined),
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
      bytesRead: this.bytesRead,
      durationMs: Math.round(performance.now() - this.started),
      cancelled: this.cancelled,
    };
  }
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
