/**
 * Parses large v3 session files on a worker thread while the calling thread inserts the rows
 * (import throughput, issue 2); the worker also hashes the file. importPath stays synchronous:
 * batches are received with receiveMessageOnPort, waiting on a shared counter with Atomics.wait.
 * Rows carry their JSON as a view of the shared file buffer (bound as a BLOB and CAST to TEXT).
 * When the worker cannot start or does not answer, the file is parsed on the calling thread.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { MalformedLine } from "../../core/session/jsonl.ts";
import type { NewEntryRow } from "../store/repos/entries.ts";
import type { ContentFacts } from "./entry-facts.ts";
import { isOmpHeader } from "./entry-rows.ts";
import type { FileDigest } from "./files.ts";
import type { SessionSource } from "./import-source.ts";
import { chunkRows, type RowBatch } from "./row-batches.ts";

/** Entry lines below this size are parsed in place: a worker takes ~50–100 ms to start. */
export const PARALLEL_PARSE_MIN_BYTES = 8 * 1024 * 1024;
/** How long the worker may take to start and send its first batch before the file is parsed in place instead. */
const START_TIMEOUT_MS = 10_000;
/** How long one batch (a few MB of lines) may take before the import is given up. */
const BATCH_TIMEOUT_MS = 120_000;

/** What the worker is started with (workerData). */
export interface WorkerInit {
  /** Int32 counter bumped after every message. */
  signal: SharedArrayBuffer;
  port: MessagePort;
}

/** The one job a worker gets, once the file is read: its bytes and where the entry lines start. */
export interface WorkerJob {
  shared: SharedArrayBuffer;
  length: number;
  start: number;
  firstLine: number;
  omp: boolean;
}

export type WorkerMessage =
  | ({ kind: "batch" } & RowColumns)
  | { kind: "done"; facts: ContentFacts; digest: FileDigest; treeHealthy: boolean }
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
  names: (string | null)[];
  /** [begin, end) byte range of each row's JSON in the shared buffer; null → `texts`. */
  ranges: Float64Array | null;
  texts: string[] | null;
  malformed: MalformedLine[];
}

/** What the worker found besides the rows, once it is done. */
export interface WorkerResult {
  digest: FileDigest;
  /** The rows were in an obviously healthy tree order (TreeOrderCheck). */
  treeHealthy: boolean;
}

/** The worker script next to this module: the .ts source, or the bundled .js of a build. */
function workerUrl(): URL {
  return new URL(
    import.meta.url.endsWith(".ts") ? "./import-worker.ts" : "./import-worker.js",
    import.meta.url,
  );
}

/** `buffer`'s bytes in shared memory (a view when they already are, else one copy). */
function sharedBytes(buffer: Buffer): SharedArrayBuffer {
  if (buffer.buffer instanceof SharedArrayBuffer && buffer.byteOffset === 0) return buffer.buffer;
  const shared = new SharedArrayBuffer(buffer.length);
  buffer.copy(Buffer.from(shared));
  return shared;
}

/**
 * A worker thread for one large file. It is started before the file is read, so it boots while
 * the file is read; `start` then hands it the bytes (or `close` drops it, e.g. for a v1 file).
 */
export class RowWorker {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly counter: Int32Array;

  private constructor(worker: Worker, port: MessagePort, signal: SharedArrayBuffer) {
    this.worker = worker;
    this.port = port;
    this.counter = new Int32Array(signal);
  }

  /** Starts a thread (without waiting for it); null when it cannot be started. */
  static spawn(): RowWorker | null {
    const script = fileURLToPath(workerUrl());
    if (!fs.existsSync(script)) return null;
    const signal = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    let thread: Worker;
    try {
      const init: WorkerInit = { signal, port: port2 };
      thread = new Worker(script, { workerData: init, transferList: [port2] });
    } catch (error) {
      void error;
      port1.close();
      return null;
    }
    // The thread must not keep the process alive, nor report asynchronously to nobody.
    thread.unref();
    thread.on("error", () => {});
    return new RowWorker(thread, port1, signal);
  }

  /**
   * Hands `source`'s entry lines to the thread. Null (and the thread closed) for small files
   * and migrated files, which are parsed in place.
   */
  start(source: SessionSource): RowWorkerRun | null {
    const { body } = source;
    if (body === null || body.buffer.length - body.start < PARALLEL_PARSE_MIN_BYTES) {
      this.close();
      return null;
    }
    const shared = sharedBytes(body.buffer);
    const job: WorkerJob = {
      shared,
      length: body.buffer.length,
      start: body.start,
      firstLine: body.firstLine,
      omp: isOmpHeader(source.header),
    };
    this.port.postMessage(job);
    return { worker: this, shared: Buffer.from(shared, 0, body.buffer.length), result: null };
  }

  /** The next message, or null after `timeoutMs`. */
  receive(timeoutMs: number): WorkerMessage | null {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      // Read the counter before looking: a message posted after this makes the wait return.
      const seen = Atomics.load(this.counter, 0);
      const got = receiveMessageOnPort(this.port);
      if (got) return got.message as WorkerMessage;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      Atomics.wait(this.counter, 0, seen, left);
    }
  }

  /** Stops the thread; safe to call more than once. */
  close(): void {
    this.port.close();
    void this.worker.terminate();
  }
}

/** A worker parsing a source's entry lines (its batches queue up until read). */
export interface RowWorkerRun {
  worker: RowWorker;
  shared: Buffer;
  /** Set once the worker has sent its last batch; null when the file was parsed in place. */
  result: WorkerResult | null;
}

/** Starts a worker on `source` right away (tests; importFile starts it before reading the file). */
export function startRowWorker(source: SessionSource): RowWorkerRun | null {
  const { body } = source;
  if (body === null || body.buffer.length - body.start < PARALLEL_PARSE_MIN_BYTES) return null;
  return RowWorker.spawn()?.start(source) ?? null;
}

function toRows(batch: RowColumns, shared: Buffer): NewEntryRow[] {
  const { numbers, strings, codes, names, ranges, texts } = batch;
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
      json: ranges ? shared.subarray(ranges[2 * i], ranges[2 * i + 1]) : (texts?.[i] as string),
      origin: "file",
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
        run.result = { digest: message.digest, treeHealthy: message.treeHealthy };
        return;
      }
      yield { rows: toRows(message, shared), malformed: message.malformed };
    }
  } finally {
    worker.close();
  }
}
