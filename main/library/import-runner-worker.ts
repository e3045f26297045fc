/**
 * The thread a window's imports run on (see import-runner.ts): it opens the library with a
 * connection of its own, runs each import it is sent with importPath, and posts the progress
 * after every file and then the report, then checkpoints the WAL the import filled and indexes
 * what it added for search (the serving thread does neither). It writes the exports to a file it
 * is sent too. Started by ThreadImports; bundled as import-runner-worker.js.
 */
import { parentPort, workerData } from "node:worker_threads";
import { toApiError } from "../api/errors.ts";
import { checkpointWal, type Database, openDatabase } from "../store/open.ts";
import { watchWriteLocks } from "../store/transactions.ts";
import { exportSessionToFile } from "./export.ts";
import { importPath } from "./import.ts";
import type { ExportJob, RunnerInit, RunnerJob, RunnerMessage } from "./import-runner.ts";
import { endImportThreads } from "./parallel-rows.ts";
import { askingWatch } from "./runner-write-lock.ts";
import { indexSearchSlice } from "./search.ts";

const port = parentPort;
const init = workerData as RunnerInit;
const stopJob = new Int32Array(init.stopJob);
const lockAck = new Int32Array(init.lockAck);
let db: Database | null = null;
/** A slice of search indexing is scheduled. */
let indexing = false;

/** Entries tokenized per slice of search indexing (a few tens of ms; one write transaction). */
const SEARCH_SLICE_ROWS = 2000;

/** How long the thread waits, when asked to end, for the import thread it started to end first. */
const END_WAIT_MS = 2000;

function post(message: RunnerMessage): void {
  port?.postMessage(message);
}

/**
 * The library, opened on first use. Its write transactions are told to the serving thread first
 * (runner-write-lock.ts): the writes there wait for them without holding that thread up.
 */
function library(): Database {
  if (db === null) {
    db = openDatabase(init.dbPath);
    watchWriteLocks(db, askingWatch(lockAck, post));
  }
  return db;
}

// However the thread ends (an uncaught error, process.exit), its connection is closed by this
// thread first, not left to the addon's clean-up while the thread is torn down.
process.on("exit", () => db?.close());

port?.on("message", (job: RunnerJob | "stop") => {
  if (job === "stop") {
    // Closed first: whatever happens next, the thread holds no SQLite connection any more.
    db?.close();
    // The import thread this thread started (parallel-rows.ts) is asked to end and waited for,
    // rather than left for this thread's teardown to stop.
    void endImportThreads(END_WAIT_MS).finally(() => port.close());
    return;
  }
  if ("export" in job) {
    exportToFile(job.jobId, job.export);
    return;
  }
  try {
    const report = importPath(library(), job.target, {
      onProgress: (done, total, file) => post({ kind: "progress", jobId: job.jobId, done, total, file }),
      shouldStop: () => Atomics.load(stopJob, 0) === job.jobId,
    });
    post({ kind: "done", jobId: job.jobId, report });
    if (report.entriesAdded > 0) {
      // importPath leaves its WAL un-checkpointed; copied here, not on the serving thread.
      checkpoint();
      startIndexing();
    }
  } catch (error) {
    post({
      kind: "failed",
      jobId: job.jobId,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});

/** Writes an export (the serving thread checked its target first); its failure as the API says it. */
function exportToFile(jobId: number, { sessionId, outPath, options }: ExportJob): void {
  try {
    post({ kind: "exported", jobId, result: exportSessionToFile(library(), sessionId, outPath, options) });
  } catch (error) {
    post({ kind: "export-failed", jobId, error: toApiError(error) });
  }
}

/**
 * Tokenizes what the imports added for full-text search, a slice at a time so that the next
 * import (or "stop") is taken between slices; a search meanwhile answers from what is indexed
 * and says how far indexing is.
 */
function indexSearchText(): void {
  indexing = false;
  if (db === null || !db.open) return;
  try {
    if (indexSearchSlice(db, SEARCH_SLICE_ROWS).more) {
      startIndexing();
      return;
    }
  } catch {
    // E.g. the library stayed locked: the serving thread's indexer (search-indexer.ts) takes over.
  }
  checkpoint();
  post({ kind: "indexed" });
}

/** Copies the WAL into the library file (PASSIVE: readers and writers elsewhere go on meanwhile). */
function checkpoint(): void {
  try {
    if (db !== null) checkpointWal(db);
  } catch {
    // Not copied now: the next checkpoint (or commit past the WAL's limit) copies it.
  }
}

function startIndexing(): void {
  if (indexing) return;
  indexing = true;
  setImmediate(indexSearchText);
}

post({ kind: "ready" });
