/**
 * Parses (and for v1/v2 files migrates) large session files on a worker thread while the calling
 * thread inserts the rows (import throughput, issue 2); the worker also hashes the file and
 * checks the tree order.
 * The thread is kept between imports (ImportThread): later imports skip its start-up and run
 * already-optimised code. importPath stays synchronous: batches are received with
 * receiveMessageOnPort, waiting on a shared counter with Atomics.wait. Rows carry their JSON as a
 * view of the shared file buffer, or of memory posted with the batch for migrated lines (bound as
 * a BLOB and CAST to TEXT). When the worker cannot start or does not answer, the file is parsed
 * on the calling thread.
 */
import fs from "node:fs";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { MalformedLine } from "../../core/session/jsonl.ts";
import type { NewEntryRow } from "../store/repos/entries.ts";
import type { ContentFacts } from "./entry-facts.ts";
import { isOmpHeader } from "./entry-rows.ts";
import { type FileDigest, readInto } from "./files.ts";
import { type Migration, peekHead, type SessionSource } from "./import-source.ts";
import { READ_AHEAD_FILES } from "./read-ahead.ts";
import { chunkRows, type RowBatch } from "./row-batches.ts";
import { workerScriptPath } from "./worker-script.ts";

/** Entry lines below this size are parsed in place: handing a file over costs more than it saves. */
export const PARALLEL_PARSE_MIN_BYTES = 8 * 1024 * 1024;
/** How long the worker may take to start and send its first batch before the file is parsed in place instead. */
const START_TIMEOUT_MS = 10_000;
/** How long one batch (a few MB of lines) may take before the import is given up. */
const BATCH_TIMEOUT_MS = 120_000;
/** How long an idle import thread is kept for the next import. */
export const IDLE_THREAD_MS = 10_000;

/** What the thread is started with (workerData). */
export interface WorkerInit {
  /** Int32 counter bumped after every message of the thread. */
  signal: SharedArrayBuffer;
  port: MessagePort;
}

/** How far into a file its header is looked for while it is read. */
const HEAD_BYTES = 16 * 1024 * 1024;

/** Unit of the read progress (an Int32 of units covers files of any size). */
export const READ_UNIT = 64 * 1024;

/**
 * A file to import: the shared memory the calling thread reads its `size` bytes into, and the
 * file's read progress: Int32 [sequence, bytes read / READ_UNIT], the sequence changing after
 * every update and after every message about the file.
 */
export type FileJob = { kind: "file"; shared: SharedArrayBuffer; size: number; progress: SharedArrayBuffer };

/**
 * What the thread is told about a file: that it begins, where its entry lines start and how to
 * migrate them (posted as soon as the first bytes show the header, so parsing follows the
 * read), and its length once it is read. A file that gets no job is not parsed there. The next
 * file may be posted before the thread is done with this one (a folder import reads ahead): the
 * thread takes them in order.
 */
export type WorkerJob =
  | FileJob
  | { kind: "job"; start: number; firstLine: number; omp: boolean; migration: Migration | null }
  | { kind: "end"; length: number }
  | StopJob;

/** Asks an idle thread to end: it closes its port and its event loop ends (see ImportThread.end). */
export type StopJob = { kind: "stop" };

export type WorkerMessage =
  | ({ kind: "batch" } & RowColumns)
  | ({ kind: "done"; facts: ContentFacts } & WorkerResult)
  | { kind: "error"; message: string };

/**
 * A batch of rows as columns, shaped to be cheap to post between threads: numbers in typed
 * arrays, and the few distinct type / role / model strings as indexes into `names`.
 */
export interface RowColumns {
  /** 2 per row: seq, tokens. */
  numbers: Float64Array;
  /** 3 per row: id, parentId, timestamp. */
  strings: (string | null)[];
  /** 3 per row: type, role, model, as indexes into `names`. */
  codes: Int32Array;
  /**
   * 6 per row that adds to the usage statistics, in row order: the row's index in the batch,
   * then its input, output, cacheRead, cacheWrite and cost (NewEntryRow.usage).
   */
  usage: Float64Array;
  names: (string | null)[];
  /** [begin, end) byte range of each row's JSON in `data`, else in the shared buffer; null → `texts`. */
  ranges: Float64Array | null;
  /** The bytes `ranges` point into when they are not the file's (migrated entries, posted with the batch). */
  data: ArrayBuffer | null;
  texts: string[] | null;
  malformed: MalformedLine[];
}

/** What a parallel run gives besides the rows, once the worker is done. */
export interface WorkerResult {
  /** The file's hashes (the worker hashes each chunk after parsing it). */
  digest: FileDigest;
  /** The rows came in tree order (TreeOrderCheck): the full tree validation can be skipped. */
  treeInOrder: boolean;
}

/** What the import thread did in this process (diagnostics: the bench and tests report it). */
const threadStats = { started: 0, files: 0, unanswered: 0, queued: 0, ended: 0 };

/**
 * Import threads started (each is kept between imports while it is not needed), files given to
 * one, files it did not answer for (parsed in place after all), and files queued behind another
 * (read ahead in a folder import), and threads that ended on their own when asked (not terminated).
 */
export function importThreadStats(): {
  started: number;
  files: number;
  unanswered: number;
  queued: number;
  ended: number;
} {
  return { ...threadStats };
}

/** The import worker thread, started once and kept (parked) between imports. */
class ImportThread {
  private readonly worker: Worker;
  readonly port: MessagePort;
  readonly counter: Int32Array;
  /** False once the thread is stopped or has exited (the exit event comes between imports). */
  alive = true;
  /** Resolves once the thread has exited. */
  readonly exited: Promise<void>;
  /** Files posted to the thread whose RowWorker is not closed yet. */
  users = 0;
  /**
   * Shared memory of its last files, reused for the next ones that fit: their pages are already
   * mapped (a new buffer costs a page fault per 4 KB, ~80 ms for 200 MB). One for the file being
   * stored and one for each a folder import reads ahead while the thread still has that one.
   */
  private readonly memory: { buffer: SharedArrayBuffer | null; inUse: boolean }[] = Array.from(
    { length: 1 + READ_AHEAD_FILES },
    () => ({ buffer: null, inUse: false }),
  );

  private constructor(worker: Worker, port: MessagePort, init: WorkerInit) {
    this.worker = worker;
    this.port = port;
    this.counter = new Int32Array(init.signal);
    this.exited = new Promise((resolve) => {
      worker.once("exit", (code) => {
        if (code === 0) threadStats.ended++;
        this.alive = false;
        liveThreads.delete(this);
        resolve();
      });
    });
    liveThreads.add(this);
  }

  /** Starts a thread (without waiting for it); null when it cannot start. */
  static start(): ImportThread | null {
    const script = workerScriptPath(import.meta.url, "import-worker");
    if (!fs.existsSync(script)) return null;
    const { port1, port2 } = new MessageChannel();
    const init: WorkerInit = { signal: new SharedArrayBuffer(4), port: port2 };
    let thread: Worker;
    try {
      thread = new Worker(script, { workerData: init, transferList: [port2] });
    } catch (error) {
      void error;
      port1.close();
      return null;
    }
    // The thread must not keep the process alive, nor report asynchronously to nobody.
    thread.unref();
    thread.on("error", () => {});
    threadStats.started++;
    return new ImportThread(thread, port1, init);
  }

  /** Shared memory for a file of `size` bytes (a free slot's, when large enough); give it back with `release`. */
  take(size: number): SharedArrayBuffer {
    const slot = this.memory.find((m) => !m.inUse);
    // Every slot taken (never by importPath, which reads at most READ_AHEAD_FILES ahead): memory of its own.
    if (slot === undefined) return new SharedArrayBuffer(size);
    if (slot.buffer === null || slot.buffer.byteLength < size) slot.buffer = new SharedArrayBuffer(size);
    slot.inUse = true;
    return slot.buffer;
  }

  release(buffer: SharedArrayBuffer): void {
    for (const m of this.memory) if (m.buffer === buffer) m.inUse = false;
  }

  /** Stops a thread in the middle of a file (it failed, or the import gave up on it). */
  stop(): void {
    this.alive = false;
    this.port.close();
    void this.worker.terminate();
  }

  /**
   * Ends an idle thread (its files are done): it is asked to end and does so on its own, instead
   * of being terminated. Stopping a thread from outside is kept for one stuck in a file.
   */
  end(): void {
    if (!this.alive) return;
    this.alive = false;
    // The thread closes the channel itself once it takes this (closing it here could drop it).
    this.port.postMessage({ kind: "stop" } satisfies StopJob);
  }
}

/** The import threads started here that have not exited yet. */
const liveThreads = new Set<ImportThread>();

/** The thread waiting for the next import, if any, and the timer that stops it when unused. */
let parked: { thread: ImportThread; timer: ReturnType<typeof setTimeout> } | null = null;

/** True while an import thread waits for the next import (it would take a file at no start-up cost). */
export function importThreadWaiting(): boolean {
  return parked?.thread.alive === true;
}

/** The parked thread, or a new one. */
function takeThread(): ImportThread | null {
  if (parked === null) return ImportThread.start();
  const { thread, timer } = parked;
  clearTimeout(timer);
  parked = null;
  return thread.alive ? thread : ImportThread.start();
}

/** Keeps `thread` (idle: its last file is done) for the next import, for a while. */
function parkThread(thread: ImportThread): void {
  parked?.thread.end();
  const timer = setTimeout(() => {
    if (parked?.thread === thread) parked = null;
    thread.end();
  }, IDLE_THREAD_MS);
  // Waiting for the next import must not keep the process alive either.
  timer.unref();
  parked = { thread, timer };
}

/**
 * Ends the import thread waiting for the next import and resolves once every import thread this
 * thread started has exited, or after `timeoutMs`. The import-runner thread calls it before it
 * ends, so that no import thread is left for its own teardown to stop. Call it between imports.
 */
export function endImportThreads(timeoutMs: number): Promise<void> {
  if (parked !== null) {
    clearTimeout(parked.timer);
    parked.thread.end();
    parked = null;
  }
  if (liveThreads.size === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    void Promise.all([...liveThreads].map((thread) => thread.exited)).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The worker's part in importing one file. Taken before the file is read, so the thread (if it
 * has to start) boots while the file is read into its shared buffer (readFile); it then parses
 * the bytes as they arrive. `start` hands its run to the import (or `close` drops it, e.g. for a
 * small file).
 */
export class RowWorker {
  /** The shared buffer the file is read into. */
  readonly bytes: Buffer;
  /** Int32 [sequence, bytes read / READ_UNIT] of this file (see FileJob). */
  private readonly progress: Int32Array;
  /** The job posted (false: none will be, null: not yet decided). */
  private posted: (WorkerJob & { kind: "job" }) | false | null = null;
  /** Bytes read, once the read is over. */
  private length: number | null = null;
  /** The worker sent its last message for the file: the thread can take the next one. */
  private finished = false;
  private closed = false;
  private readonly thread: ImportThread;
  private readonly shared: SharedArrayBuffer;
  /** Entry lines below this size are parsed in place (see start). */
  private readonly minBytes: number;

  private constructor(thread: ImportThread, size: number, minBytes: number) {
    this.thread = thread;
    this.shared = thread.take(size);
    this.bytes = Buffer.from(this.shared, 0, size);
    this.progress = new Int32Array(new SharedArrayBuffer(8));
    this.minBytes = minBytes;
    thread.users++;
    this.post({
      kind: "file",
      shared: this.shared,
      size,
      progress: this.progress.buffer as SharedArrayBuffer,
    });
  }

  /**
   * Hands a file of `size` bytes to an import thread: the one `behind` uses (the file goes after
   * its file), else the parked one, else a new one; null when none can start. Its entry lines
   * are parsed there when they are at least `minBytes`.
   */
  static spawn(
    size: number,
    minBytes = PARALLEL_PARSE_MIN_BYTES,
    behind: RowWorker | null = null,
  ): RowWorker | null {
    if (behind?.thread.alive) {
      threadStats.queued++;
      return new RowWorker(behind.thread, size, minBytes);
    }
    const thread = takeThread();
    return thread === null ? null : new RowWorker(thread, size, minBytes);
  }

  /** Posts `message` about this file and wakes the thread if it waits for the read. */
  private post(message: WorkerJob): void {
    this.thread.port.postMessage(message);
    this.wake();
  }

  /** Publishes how many bytes of the file were read. */
  private report(bytes: number): void {
    Atomics.store(this.progress, 1, Math.floor(bytes / READ_UNIT));
    this.wake();
  }

  private wake(): void {
    Atomics.add(this.progress, 0, 1);
    Atomics.notify(this.progress, 0);
  }

  /** Reads `file` (up to the size given to spawn) into the shared buffer; the bytes read. */
  readFile(file: string): Buffer {
    const fd = fs.openSync(file, "r");
    try {
      const got = readInto(fd, this.bytes, (n) => {
        if (this.posted === null && n <= HEAD_BYTES) this.postJob(this.bytes.subarray(0, n));
        this.report(n);
      });
      this.end(got);
      return this.bytes.subarray(0, got);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Copies `buffer` into the shared buffer (a file already in memory). */
  load(buffer: Buffer): Buffer {
    buffer.copy(this.bytes);
    this.postJob(buffer);
    this.report(buffer.length);
    this.end(buffer.length);
    return this.bytes.subarray(0, buffer.length);
  }

  /**
   * Tells the thread where the entry lines start (and how to migrate a v1/v2 file's) once `head`,
   * the first bytes, shows the header: it parses them as they arrive.
   */
  private postJob(head: Buffer): void {
    const found = peekHead(head);
    if (found === null) return;
    const job: WorkerJob = {
      kind: "job",
      start: found.start,
      firstLine: found.firstLine,
      omp: isOmpHeader(found.header),
      migration: found.migration,
    };
    this.post(job);
    this.posted = job;
  }

  private end(length: number): void {
    // No header in the first bytes: the file is parsed in place.
    if (this.posted === null) this.posted = false;
    this.length = length;
    this.post({ kind: "end", length });
  }

  /**
   * The run parsing `source`'s entry lines, `source` being opened from the bytes readFile or
   * load returned. Null (and the worker closed) for small files, parsed in place.
   */
  start(source: SessionSource): RowWorkerRun | null {
    const { body } = source;
    const job = this.posted;
    const length = this.length;
    const agrees =
      this.thread.alive &&
      job !== null &&
      job !== false &&
      length !== null &&
      job.omp === isOmpHeader(source.header) &&
      body.start === job.start &&
      body.firstLine === job.firstLine &&
      body.buffer.length === length &&
      body.migration?.sessionId === job.migration?.sessionId &&
      body.migration?.version === job.migration?.version;
    if (!agrees || length - job.start < this.minBytes) {
      this.close();
      return null;
    }
    threadStats.files++;
    return { worker: this, shared: this.bytes.subarray(0, length), result: null };
  }

  /** The next message, or null after `timeoutMs` (at once when the thread was stopped). */
  receive(timeoutMs: number): WorkerMessage | null {
    const { counter, port } = this.thread;
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (!this.thread.alive) return null;
      // Read the counter before looking: a message posted after this makes the wait return.
      const seen = Atomics.load(counter, 0);
      const got = receiveMessageOnPort(port);
      if (got) {
        const message = got.message as WorkerMessage;
        if (message.kind === "done") this.finished = true;
        return message;
      }
      const left = deadline - performance.now();
      if (left <= 0) return null;
      Atomics.wait(counter, 0, seen, left);
    }
  }

  /**
   * Lets go of the thread; safe to call more than once. The thread goes on (or is kept for the
   * next import) when it has nothing more to send about this file: its last batch was read, or
   * it got no job. One stopped halfway (or that failed) is stopped, and files posted after this
   * one are parsed in place.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const { thread } = this;
    thread.users--;
    // A file without a job is one the thread skips on its own.
    if (!this.finished && this.posted !== false) {
      thread.stop();
      return;
    }
    thread.release(this.shared);
    if (thread.users === 0 && thread.alive) parkThread(thread);
  }
}

/** A worker parsing a source's entry lines (its batches queue up until read). */
export interface RowWorkerRun {
  worker: RowWorker;
  shared: Buffer;
  /** Set once the worker has sent its last batch; null when the file was parsed in place. */
  result: WorkerResult | null;
}

/**
 * Starts a worker on `source` right away, when its entry lines are at least `minBytes` (tests;
 * importFile starts it before reading the file).
 */
export function startRowWorker(
  source: SessionSource,
  minBytes = PARALLEL_PARSE_MIN_BYTES,
): RowWorkerRun | null {
  const { buffer } = source.body;
  if (buffer.length - source.body.start < minBytes) return null;
  const worker = RowWorker.spawn(buffer.length, minBytes);
  worker?.load(buffer);
  return worker?.start(source) ?? null;
}

function toRows(batch: RowColumns, shared: Buffer): NewEntryRow[] {
  const { numbers, strings, codes, names, ranges, texts } = batch;
  const bytes = batch.data === null ? shared : Buffer.from(batch.data);
  const rows: NewEntryRow[] = new Array(numbers.length / 2);
  for (let i = 0; i < rows.length; i++) {
    rows[i] = {
      seq: numbers[2 * i] as number,
      id: strings[3 * i] as string | null,
      parentId: strings[3 * i + 1] as string | null,
      type: names[codes[3 * i] as number] as string,
      role: names[codes[3 * i + 1] as number] as string | null,
      model: names[codes[3 * i + 2] as number] as string | null,
      timestamp: strings[3 * i + 2] as string | null,
      tokens: numbers[2 * i + 1] as number,
      usage: null,
      json: ranges ? bytes.subarray(ranges[2 * i], ranges[2 * i + 1]) : (texts?.[i] as string),
      origin: "file",
    };
  }
  const { usage } = batch;
  for (let at = 0; at < usage.length; at += 6) {
    (rows[usage[at] as number] as NewEntryRow).usage = {
      input: usage[at + 1] as number,
      output: usage[at + 2] as number,
      cacheRead: usage[at + 3] as number,
      cacheWrite: usage[at + 4] as number,
      cost: usage[at + 5] as number,
    };
  }
  return rows;
}

/**
 * Every entry and malformed line of `source` as row batches, in file order; `facts` is complete
 * once the iteration ends. With a started worker (RowWorker.start) its batches are used, its
 * result is set on `run`, and the worker is closed at the end; otherwise (or when the worker
 * never answers) the file is parsed in place.
 */
export function* rowBatches(
  source: SessionSource,
  facts: ContentFacts,
  run: RowWorkerRun | null,
): Generator<RowBatch> {
  const first = run?.worker.receive(START_TIMEOUT_MS) ?? null;
  if (run !== null && first === null) threadStats.unanswered++;
  if (run === null || first === null) {
    run?.worker.close();
    for (const chunk of source.chunks()) yield chunkRows(chunk, facts);
    return;
  }
  const { worker, shared } = run;
  try {
    yield { rows: [], malformed: source.headMalformed };
    for (let message: WorkerMessage | null = first; ; message = worker.receive(BATCH_TIMEOUT_MS)) {
      if (message === null) throw new Error("the import worker stopped responding");
      if (message.kind === "error") throw new Error(message.message);
      if (message.kind === "done") {
        Object.assign(facts, message.facts);
        run.result = { digest: message.digest, treeInOrder: message.treeInOrder };
        return;
      }
      yield { rows: toRows(message, shared), malformed: message.malformed };
    }
  } finally {
    worker.close();
  }
}
