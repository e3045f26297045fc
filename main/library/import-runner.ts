/**
 * Where the app's imports (and its exports to a file) run. `ThreadImports` runs them one at a time
 * on a thread of their own with its own connection to the library, so the process that serves the
 * window keeps answering while a folder is imported or a long session written out, and each file's
 * progress reaches the window as it happens. `InPlaceImports` runs them on the calling thread (the
 * CLI, and libraries only this connection sees).
 */
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { ApiError, ExportResult, ImportReport } from "../../core/api/dto.ts";
import { mergeImportReports } from "../../core/api/import-report.ts";
import { ApiFailure } from "../api/errors.ts";
import { checkpointWal, type Database } from "../store/open.ts";
import { getSessionRow } from "../store/repos/sessions.ts";
import { type ExportRequestOptions, exportSessionToFile } from "./export.ts";
import { type ImportOptions, importPath } from "./import.ts";
import { ThreadWriteLock, type WriteLockMessage } from "./runner-write-lock.ts";
import type { WriteGate } from "./write-gate.ts";
import { workerScriptPath } from "./worker-script.ts";

export type ImportProgress = NonNullable<ImportOptions["onProgress"]>;

export interface ImportRunner {
  /**
   * Imports one file or every `*.jsonl` below a folder (importPath), after the imports before it.
   * The WAL the import fills is checkpointed afterwards on the thread that imported (an import
   * thread's checkpoint of a large import's WAL takes seconds this thread need not wait for).
   */
  run(target: string, onProgress?: ImportProgress): Promise<ImportReport>;
  /**
   * Exports a session to `outPath` (exportSessionToFile), after the imports and exports before it;
   * the same result or the same failure (an ApiFailure) as on the calling thread. Never dropped
   * by `cancel`.
   */
  exportToFile(job: ExportJob): Promise<ExportResult>;
  /** True while an import or export runs or waits to. */
  readonly busy: boolean;
  /** Resolves once the imports asked for so far are over. */
  idle(): Promise<void>;
  /**
   * Stops the running import after the file it is at, and drops the imports waiting for it:
   * their reports say `cancelled`. False when no import runs or waits.
   */
  cancel(): boolean;
  /**
   * Resolves once the runner is not indexing what its imports added for search (ThreadImports
   * does so on its thread after each import); a search then has little or nothing to catch up.
   */
  searchIndexed(): Promise<void>;
  /** True while the runner indexes what its imports added (see searchIndexed). */
  readonly indexingSearch: boolean;
  /**
   * Ends the runner (the app is quitting): the running import fails with "Canopy is closing" and
   * stops after the file it is at; waiting ones are dropped. Resolves once nothing runs any more.
   */
  close(): Promise<void>;
}

/** What the runner thread starts with: the library, and where the id of a job to stop is written. */
export interface RunnerInit {
  dbPath: string;
  stopJob: SharedArrayBuffer;
  /** Int32 [the thread's last ask to take the write lock that the serving thread answered]. */
  lockAck: SharedArrayBuffer;
}

/** An export to a file (see ImportRunner.exportToFile): what the `session:export` request asked. */
export interface ExportJob {
  sessionId: string;
  outPath: string;
  options: ExportRequestOptions;
}

/** What the runner thread is sent: an import or export to run, or "stop" (close the library and end). */
export type RunnerJob = { jobId: number } & ({ target: string } | { export: ExportJob });

/** What the runner thread posts: it started, a file of a job is done, a job's end. */
export type RunnerMessage =
  | { kind: "ready" }
  | { kind: "progress"; jobId: number; done: number; total: number; file: string }
  | { kind: "done"; jobId: number; report: ImportReport }
  | { kind: "failed"; jobId: number; message: string }
  | { kind: "exported"; jobId: number; result: ExportResult }
  | { kind: "export-failed"; jobId: number; error: ApiError }
  | { kind: "indexed" }
  | WriteLockMessage;

/** A thread not used for this long is stopped (the next import starts another). */
export const IDLE_RUNNER_MS = 30_000;

/**
 * How long a thread asked to end may take (it finishes the file it is importing and closes its
 * connection) before it is terminated all the same.
 */
const CLOSE_WAIT_MS = 10_000;

/**
 * A file or folder whose session files come to less than this is imported on the calling
 * thread: that takes milliseconds, less than starting the thread would.
 */
export const IN_PLACE_BYTES = 8 * 1024 * 1024;

/**
 * A session of fewer entries than this (and a source file under IN_PLACE_BYTES) is exported on the
 * calling thread: tens of milliseconds, less than starting the thread (a 196 MB session has
 * 100,000 entries and takes seconds).
 */
export const IN_PLACE_EXPORT_ENTRIES = 2000;

/** The report of an import dropped before it started (cancelled while it waited). */
function droppedReport(): ImportReport {
  return { ...mergeImportReports([]), cancelled: true };
}

/**
 * Imports on the calling thread, one at a time like ThreadImports. An import runs to its end
 * (this thread is busy meanwhile): `cancel` drops only the imports waiting for it.
 */
export class InPlaceImports implements ImportRunner {
  private readonly db: Database;
  private readonly queue = new JobQueue();

  constructor(db: Database) {
    this.db = db;
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  run(target: string, onProgress?: ImportProgress): Promise<ImportReport> {
    return this.queue.add(async () => this.importNow(target, onProgress), droppedReport);
  }

  cancel(): boolean {
    const busy = this.queue.busy;
    this.queue.dropWaiting();
    return busy;
  }

  exportToFile(job: ExportJob): Promise<ExportResult> {
    return this.queue.add(async () => this.exportNow(job));
  }

  /** Exports now, not after the jobs queued here (for a runner that queues them itself). */
  exportNow({ sessionId, outPath, options }: ExportJob): ExportResult {
    return exportSessionToFile(this.db, sessionId, outPath, options);
  }

  /** Nothing is indexed here: a search (or the app's SearchIndexer) catches up itself. */
  searchIndexed(): Promise<void> {
    return Promise.resolve();
  }

  get indexingSearch(): boolean {
    return false;
  }

  /** Imports now, not after the imports queued here (for a runner that queues them itself). */
  importNow(target: string, onProgress?: ImportProgress): ImportReport {
    const report = importPath(this.db, target, onProgress ? { onProgress } : {});
    // Left un-checkpointed by importPath so the reply is not held up by copying pages.
    if (report.entriesAdded > 0) setTimeout(() => checkpointWal(this.db), 0).unref();
    return report;
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  close(): Promise<void> {
    this.queue.dropWaiting();
    return Promise.resolve();
  }
}

interface RunningJob {
  jobId: number;
  /** What the thread does, as its failure names it ("The import stopped: …"). */
  what: "import" | "export";
  onProgress: ImportProgress | undefined;
  /** The report of an import, the result of an export. */
  resolve: (value: ImportReport | ExportResult) => void;
  reject: (error: Error) => void;
}

/**
 * Imports on the runner thread (import-runner-worker.ts). When the thread cannot start (no
 * worker script, or it fails before it is ready) the import runs on the calling thread instead,
 * as do all later ones.
 */
export class ThreadImports implements ImportRunner {
  private readonly db: Database;
  private readonly dbPath: string;
  private readonly script: string;
  private readonly queue = new JobQueue();
  private readonly inPlace: InPlaceImports;
  private worker: Worker | null = null;
  private ready = false;
  private broken = false;
  private current: RunningJob | null = null;
  private nextJobId = 1;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** The thread is indexing what its imports added; resolved (and cleared) when it is done. */
  private indexing: { done: Promise<void>; resolve: () => void } | null = null;
  /** Int32 [id of the job to stop]: the thread reads it before each file. */
  private readonly stopJob = new Int32Array(new SharedArrayBuffer(4));
  /** Resolves once the last thread asked to end has ended. */
  private ended: Promise<void> = Promise.resolve();
  private readonly lockAck = new Int32Array(new SharedArrayBuffer(4));
  /** Closes the serving thread's write gate while the thread holds the write lock. */
  private readonly writeLock: ThreadWriteLock;

  /**
   * `db`: the calling thread's connection (used when the thread cannot start); `dbPath`: its file;
   * `script`: the thread's script (default: import-runner-worker next to this module); `writes`:
   * the gate this thread's writes wait at while the thread holds the write lock.
   */
  constructor(db: Database, dbPath: string, options: { script?: string; writes?: WriteGate } = {}) {
    this.db = db;
    this.dbPath = dbPath;
    this.script = options.script ?? workerScriptPath(import.meta.url, "import-runner-worker");
    this.inPlace = new InPlaceImports(db);
    this.writeLock = new ThreadWriteLock(options.writes, this.lockAck);
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  run(target: string, onProgress?: ImportProgress): Promise<ImportReport> {
    return this.queue.add(
      () =>
        smallTarget(target)
          ? Promise.resolve(this.inPlace.importNow(target, onProgress))
          : this.runNow(target, onProgress),
      droppedReport,
    );
  }

  exportToFile(job: ExportJob): Promise<ExportResult> {
    return this.queue.add(() =>
      exportsInPlace(this.db, job.sessionId)
        ? Promise.resolve(this.inPlace.exportNow(job))
        : this.onThread<ExportResult>({ export: job }, "export", () => this.inPlace.exportNow(job)),
    );
  }

  cancel(): boolean {
    const busy = this.queue.busy;
    this.queue.dropWaiting();
    if (this.current?.what === "import") Atomics.store(this.stopJob, 0, this.current.jobId);
    return busy;
  }

  async searchIndexed(): Promise<void> {
    await this.indexing?.done;
  }

  get indexingSearch(): boolean {
    return this.indexing !== null;
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * See ImportRunner.close. The thread is asked to end, not terminated: one stopped in the middle
   * of an SQLite call can bring the whole process down. It takes the request once the file it is
   * importing is stored, closes its connection and ends; the process waits for it.
   */
  close(): Promise<void> {
    this.clearIdleTimer();
    this.cancel();
    const worker = this.worker;
    if (worker === null) return this.ended;
    this.lose(worker, "Canopy is closing");
    worker.ref();
    this.ended = endThread(worker);
    return this.ended;
  }

  private runNow(target: string, onProgress: ImportProgress | undefined): Promise<ImportReport> {
    return this.onThread<ImportReport>(
      { target },
      "import",
      () => this.inPlace.importNow(target, onProgress),
      onProgress,
    );
  }

  /**
   * Sends `work` to the thread (started when needed); resolves with what it posts back. `here`
   * runs it on this thread instead when the thread cannot start.
   */
  private onThread<T extends ImportReport | ExportResult>(
    work: { target: string } | { export: ExportJob },
    what: RunningJob["what"],
    here: () => T,
    onProgress?: ImportProgress,
  ): Promise<T> {
    this.clearIdleTimer();
    const worker = this.broken ? null : (this.worker ?? this.start());
    if (worker === null) return new Promise<T>((resolve) => resolve(here()));
    worker.ref();
    const jobId = this.nextJobId++;
    return new Promise<T>((resolve, reject) => {
      // The thread posts back what `work` asks for: a report for an import, a result for an export.
      this.current = { jobId, what, onProgress, resolve: resolve as RunningJob["resolve"], reject };
      worker.postMessage({ jobId, ...work } satisfies RunnerJob);
    })
      .catch((error: unknown) => {
        // The thread never started (e.g. it could not load the SQLite module): run it here instead.
        if (error instanceof ThreadNotStarted) return here();
        throw error;
      })
      .finally(() => {
        this.current = null;
        this.whenIdle();
      });
  }

  private start(): Worker | null {
    const { script } = this;
    if (!fs.existsSync(script)) {
      this.broken = true;
      return null;
    }
    let worker: Worker;
    try {
      worker = new Worker(script, {
        workerData: {
          dbPath: this.dbPath,
          stopJob: this.stopJob.buffer,
          lockAck: this.lockAck.buffer,
        } satisfies RunnerInit,
      });
    } catch (error) {
      void error;
      this.broken = true;
      return null;
    }
    this.worker = worker;
    this.ready = false;
    worker.on("message", (message: RunnerMessage) => this.receive(message, worker));
    worker.on("error", (error) => {
      this.writeLock.ended(worker);
      this.lose(worker, error.message);
    });
    worker.on("exit", (code) => {
      // A thread that ended holds no lock (even one that ended after close() let it go).
      this.writeLock.ended(worker);
      this.lose(worker, `the import thread exited (code ${code})`);
    });
    return worker;
  }

  private receive(message: RunnerMessage, worker: Worker): void {
    if (message.kind === "ready") {
      this.ready = true;
      return;
    }
    if (message.kind === "indexed") {
      this.endIndexing();
      return;
    }
    if (message.kind === "writing" || message.kind === "written") {
      this.writeLock.take(message, worker);
      return;
    }
    const job = this.current;
    if (job === null || job.jobId !== message.jobId) return;
    if (message.kind === "progress") job.onProgress?.(message.done, message.total, message.file);
    else if (message.kind === "done") {
      // The thread indexes what the import added next (import-runner-worker.ts).
      if (message.report.entriesAdded > 0) this.startIndexing();
      job.resolve(message.report);
    } else if (message.kind === "exported") job.resolve(message.result);
    else if (message.kind === "export-failed") {
      // The export's own failure (no such entry, a path it cannot write): as on this thread.
      job.reject(new ApiFailure(message.error.code, message.error.message));
    } else job.reject(new Error(`The import stopped: ${message.message}`));
  }

  private startIndexing(): void {
    if (this.indexing !== null) return;
    let resolve = () => {};
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    this.indexing = { done, resolve };
  }

  private endIndexing(): void {
    this.indexing?.resolve();
    this.indexing = null;
    // Idle now: the process may exit while the thread waits (see whenIdle).
    if (this.current === null) this.worker?.unref();
  }

  /** The thread ended or failed: the job it had fails (or runs here, when the thread never started). */
  private lose(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    // What it did not index, a search catches up itself.
    this.endIndexing();
    const job = this.current;
    if (!this.ready) {
      this.broken = true;
      job?.reject(new ThreadNotStarted(reason));
    } else job?.reject(new Error(`The ${job?.what ?? "import"} stopped: ${reason}`));
  }

  /**
   * Lets the process exit while no import runs and the thread does not index (endIndexing), and
   * stops the thread after IDLE_RUNNER_MS. A process that ends while the thread still writes
   * its indexing would tear it down in the middle of an SQLite call: it waits for it instead.
   */
  private whenIdle(): void {
    const worker = this.worker;
    if (worker === null) return;
    if (this.indexing === null) worker.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker !== worker || this.current !== null) return;
      // Still indexing (a very large import): come back later.
      if (this.indexing !== null) {
        this.whenIdle();
        return;
      }
      this.worker = null;
      this.ended = endThread(worker);
    }, IDLE_RUNNER_MS);
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

class ThreadNotStarted extends Error {}

/**
 * Asks the runner thread to close its connection and end ("stop", taken between imports);
 * resolves once it has ended, terminating it after CLOSE_WAIT_MS.
 */
function endThread(worker: Worker): Promise<void> {
  // threadId is -1 once the thread has exited.
  if (worker.threadId < 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      void worker.terminate().finally(resolve);
    }, CLOSE_WAIT_MS);
    timer.unref();
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage("stop");
  });
}

/**
 * True when `sessionId` has fewer than IN_PLACE_EXPORT_ENTRIES entries and its file was under
 * IN_PLACE_BYTES (a few entries can hold megabytes of tool output), or is not there (the export
 * says so).
 */
export function exportsInPlace(db: Database, sessionId: string): boolean {
  const row = getSessionRow(db, sessionId);
  return row === undefined || (row.entry_count < IN_PLACE_EXPORT_ENTRIES && row.file_size < IN_PLACE_BYTES);
}

/** How many files and folders smallTarget looks at, at most. */
const MAX_LOOKS = 2000;

/**
 * True when the session files at `target` (a file, or the *.jsonl below a folder) come to less
 * than IN_PLACE_BYTES; the walk stops as soon as they do not.
 */
function smallTarget(target: string): boolean {
  let bytes = 0;
  let looked = 0;
  const stack = [target];
  try {
    while (stack.length > 0) {
      // Many small files (or a folder linked into itself): not worth walking here.
      if (++looked > MAX_LOOKS) return false;
      const current = stack.pop() as string;
      const stat = fs.statSync(current);
      if (stat.isFile()) {
        if (current === target || current.endsWith(".jsonl")) bytes += stat.size;
        if (bytes >= IN_PLACE_BYTES) return false;
      } else if (stat.isDirectory()) {
        for (const name of fs.readdirSync(current)) stack.push(path.join(current, name));
      }
    }
  } catch {
    // Something unreadable on the way: the thread imports it (and reports it) without holding this one up.
    return false;
  }
  return true;
}

/** Runs jobs one after the other, in the order they were added. */
class JobQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  /** Bumped by dropWaiting: a job added before it is dropped when its turn comes. */
  private generation = 0;

  get busy(): boolean {
    return this.waiting > 0;
  }

  /**
   * Adds `job`; if it is dropped before it starts, its result is `dropped()`. Without `dropped`
   * it is never dropped.
   */
  add<T>(job: () => Promise<T>, dropped?: () => T): Promise<T> {
    this.waiting++;
    const generation = this.generation;
    const turn = () =>
      generation === this.generation || dropped === undefined ? job() : Promise.resolve(dropped());
    const result = this.tail.then(turn).finally(() => {
      this.waiting--;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  async idle(): Promise<void> {
    await this.tail;
  }

  /** The jobs added so far that have not started are dropped. */
  dropWaiting(): void {
    this.generation++;
  }
}
