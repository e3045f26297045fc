/**
 * Parses large v3 session files on a worker thread while the calling thread inserts the rows
 * (import throughput, issue 2). importPath stays synchronous: batches are received with
 * receiveMessageOnPort, waiting on a shared counter with Atomics.wait. Rows carry their JSON as
 * a view of the shared file buffer (bound as a BLOB and CAST to TEXT: no copy, no re-encode).
 * When the worker cannot start, the file is parsed on the calling thread as before.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { MalformedLine } from "../../core/session/jsonl.ts";
import type { NewEntryRow } from "../store/repos/entries.ts";
import type { ContentFacts } from "./entry-facts.ts";
import { isOmpHeader } from "./entry-rows.ts";
import type { SessionSource } from "./import-source.ts";
import { chunkRows, type RowBatch } from "./row-batches.ts";

/** Entry lines below this size are parsed in place: a worker takes ~50–100 ms to start. */
export const PARALLEL_PARSE_MIN_BYTES = 8 * 1024 * 1024;
/** How long the worker may take to start before the file is parsed in place instead. */
const START_TIMEOUT_MS = 10_000;
/** How long one batch (a few MB of lines) may take before the import is given up. */
const BATCH_TIMEOUT_MS = 120_000;

export interface WorkerInput {
  shared: SharedArrayBuffer;
  start: number;
  firstLine: number;
  omp: boolean;
  /** Int32 counter bumped after every message. */
  signal: SharedArrayBuffer;
}

export type WorkerMessage =
  | { kind: "ready" }
  | {
      kind: "batch";
      /** 8 columns per row: seq, id, parentId, type, role, model, timestamp, tokens. */
      columns: (string | number | null)[];
      /** [begin, end) byte range of each row's JSON in the shared buffer; null → `texts`. */
      ranges: number[] | null;
      texts: string[] | null;
      malformed: MalformedLine[];
    }
  | { kind: "done"; facts: ContentFacts }
  | { kind: "error"; message: string };

/** The worker script next to this module: the .ts source, or the bundled .js of a build. */
function workerUrl(): URL {
  return new URL(
    import.meta.url.endsWith(".ts") ? "./import-worker.ts" : "./import-worker.js",
    import.meta.url,
  );
}

/** `buffer`'s bytes in shared memory (a view when they already are, else one copy). */
function sharedBytes(buffer: Buffer): SharedArrayBuffer {
  if (
    buffer.buffer instanceof SharedArrayBuffer &&
    buffer.byteOffset === 0 &&
    buffer.length === buffer.buffer.byteLength
  ) {
    return buffer.buffer;
  }
  const shared = new SharedArrayBuffer(buffer.length);
  buffer.copy(Buffer.from(shared));
  return shared;
}

export class RowWorker {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly counter: Int32Array;

  constructor(worker: Worker, port: MessagePort, signal: SharedArrayBuffer) {
    this.worker = worker;
    this.port = port;
    this.counter = new Int32Array(signal);
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

/** A worker already parsing a source's entry lines (its batches queue up until read). */
export interface RowWorkerRun {
  worker: RowWorker;
  shared: Buffer;
}

/**
 * Starts parsing `source`'s entry lines on a worker, so they are ready by the time the rows
 * are inserted. Null for small files, migrated files, and when the worker cannot start.
 */
export function startRowWorker(source: SessionSource): RowWorkerRun | null {
  const { body } = source;
  if (body === null || body.buffer.length - body.start < PARALLEL_PARSE_MIN_BYTES) return null;
  const script = fileURLToPath(workerUrl());
  if (!fs.existsSync(script)) return null;
  const signal = new SharedArrayBuffer(4);
  const shared = sharedBytes(body.buffer);
  const { port1, port2 } = new MessageChannel();
  let thread: Worker;
  try {
    const input: WorkerInput = {
      shared,
      start: body.start,
      firstLine: body.firstLine,
      omp: isOmpHeader(source.header),
      signal,
    };
    thread = new Worker(script, { workerData: { ...input, port: port2 }, transferList: [port2] });
  } catch (error) {
    void error;
    port1.close();
    return null;
  }
  // The thread must not keep the process alive, nor report asynchronously to nobody.
  thread.unref();
  thread.on("error", () => {});
  const worker = new RowWorker(thread, port1, signal);
  const first = worker.receive(START_TIMEOUT_MS);
  if (first?.kind !== "ready") {
    worker.close();
    return null;
  }
  return { worker, shared: Buffer.from(shared) };
}

function toRows(message: Extract<WorkerMessage, { kind: "batch" }>, shared: Buffer): NewEntryRow[] {
  const { columns, ranges, texts } = message;
  const rows: NewEntryRow[] = new Array(columns.length / 8);
  for (let i = 0, c = 0; i < rows.length; i++, c += 8) {
    rows[i] = {
      seq: columns[c] as number,
      id: columns[c + 1] as string | null,
      parentId: columns[c + 2] as string | null,
      type: columns[c + 3] as string,
      role: columns[c + 4] as string | null,
      model: columns[c + 5] as string | null,
      timestamp: columns[c + 6] as string | null,
      tokens: columns[c + 7] as number,
      json: ranges ? shared.subarray(ranges[2 * i], ranges[2 * i + 1]) : (texts?.[i] as string),
      origin: "file",
    };
  }
  return rows;
}

/**
 * Every entry and malformed line of `source` as row batches, in file order; `facts` is complete
 * once the iteration ends. With a started worker (startRowWorker) its batches are used and the
 * worker is closed at the end; otherwise the file is parsed in place.
 */
export function* rowBatches(
  source: SessionSource,
  facts: ContentFacts,
  run: RowWorkerRun | null,
): Generator<RowBatch> {
  if (run === null) {
    for (const chunk of source.chunks()) yield chunkRows(chunk, facts);
    return;
  }
  const { worker, shared } = run;
  try {
    yield { rows: [], malformed: source.headMalformed };
    for (;;) {
      const message = worker.receive(BATCH_TIMEOUT_MS);
      if (message === null) throw new Error("the import worker stopped responding");
      if (message.kind === "error") throw new Error(message.message);
      if (message.kind === "done") {
        Object.assign(facts, message.facts);
        return;
      }
      if (message.kind === "batch") yield { rows: toRows(message, shared), malformed: message.malformed };
    }
  } finally {
    worker.close();
  }
}
