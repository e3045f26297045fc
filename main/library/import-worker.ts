/**
 * The import worker (see parallel-rows.ts), kept between imports: for each file it follows the
 * calling thread's read of the file into shared memory, parses the entry lines as they arrive
 * (migrating those of a v1/v2 file), posts row batches whose JSON is a byte range into that
 * memory (the text is not copied back; migrated lines come in a copy),
 * hashes what it parsed, and last reports what the session figures need. After every message it
 * bumps the shared counter the calling thread waits on. Asked to end ("stop"), it ends on its own.
 */
import { receiveMessageOnPort, workerData } from "node:worker_threads";
import type { SessionEntry } from "../../core/session/entries.ts";
import { type MalformedLine, SessionMigrator } from "../../core/session/jsonl.ts";
import { type ContentFacts, emptyContentFacts, TreeOrderCheck } from "./entry-facts.ts";
import { FileDigester } from "./files.ts";
import {
  type Arrival,
  bodyRanges,
  type ChunkRange,
  isUtf8Chunk,
  type MigratedJson,
  type MigratedLine,
  migratedBytes,
  migratedJsons,
  migratedLine,
  visitChunkEntries,
} from "./import-source.ts";
import {
  type FileJob,
  READ_UNIT,
  type RowColumns,
  type WorkerInit,
  type WorkerJob,
  type WorkerMessage,
} from "./parallel-rows.ts";
import { observedRow } from "./row-batches.ts";

const { signal, port } = workerData as WorkerInit;
const counter = new Int32Array(signal);

/**
 * Bytes of lines per batch posted. Small enough that the calling thread starts storing rows soon
 * and has little left to store once the parse ends (a 2.4 MB v1 file: 26 -> 20 ms to import).
 */
const BATCH_BYTES = 512 * 1024;

function send(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
}

/** Posts a batch; memory of its own (`data`) is handed over, not copied. */
function sendBatch(batch: RowColumns): void {
  send({ kind: "batch", ...batch }, batch.data ? [batch.data] : []);
}

/**
 * Rows of a batch as they are posted (RowColumns without the JSON): numbers, strings, codes.
 * Each row also updates the file's content facts and its tree-order check.
 */
class RowCollector {
  private readonly facts: ContentFacts;
  private readonly order: TreeOrderCheck;
  private readonly numbers: number[] = [];
  private readonly strings: (string | null)[] = [];
  private readonly codes: number[] = [];
  private readonly usage: number[] = [];
  private readonly names: (string | null)[] = [];
  private readonly codeOf = new Map<string | null, number>();

  constructor(facts: ContentFacts, order: TreeOrderCheck) {
    this.facts = facts;
    this.order = order;
  }

  /** Adds the row of `entry` (seq = line). */
  add(entry: SessionEntry, line: number): void {
    const r = observedRow(entry, line, "", this.facts);
    // The parentId as written: the row keeps only a string one.
    this.order.add(r.id, (entry as { parentId?: unknown }).parentId, r.type, r.role);
    this.numbers.push(r.seq, r.tokens);
    this.strings.push(r.id, r.parentId, r.timestamp);
    this.codes.push(this.code(r.type), this.code(r.role), this.code(r.model));
    const u = r.usage;
    if (u !== null)
      this.usage.push(this.numbers.length / 2 - 1, u.input, u.output, u.cacheRead, u.cacheWrite, u.cost);
  }

  columns(): Pick<RowColumns, "numbers" | "strings" | "codes" | "usage" | "names"> {
    return {
      numbers: new Float64Array(this.numbers),
      strings: this.strings,
      codes: new Int32Array(this.codes),
      usage: new Float64Array(this.usage),
      names: this.names,
    };
  }

  private code(name: string | null): number {
    let at = this.codeOf.get(name);
    if (at === undefined) {
      at = this.names.push(name) - 1;
      this.codeOf.set(name, at);
    }
    return at;
  }
}

function chunkBatch(
  buffer: Buffer,
  chunk: ChunkRange,
  facts: ContentFacts,
  order: TreeOrderCheck,
  migrating: { migrator: SessionMigrator; version: number } | null,
): RowColumns {
  const valid = isUtf8Chunk(buffer, chunk);
  const rows = new RowCollector(facts, order);
  const lines: number[] = [];
  const texts: string[] | null = valid ? null : [];
  const malformed: MalformedLine[] = [];
  const migrated: MigratedLine[] = [];
  // Each entry becomes its row at once: parsed objects die young (cheap for the GC).
  const ranges = visitChunkEntries(buffer, chunk, valid, {
    entry(entry, line, raw) {
      lines.push(line);
      if (migrating === null) {
        rows.add(entry, line);
        // Invalid UTF-8 is stored as decoded (with U+FFFD), exactly as the single-thread path does.
        texts?.push(raw);
        return;
      }
      for (const item of migrating.migrator.push({ line, entry }, raw)) {
        rows.add(item.entry, item.line);
        migrated.push(migratedLine(item, valid && item.line >= chunk.firstLine));
      }
    },
    malformed: (m) => malformed.push(m),
  });
  if (migrating === null) return { ...rows.columns(), ranges, data: null, texts, malformed };
  return {
    ...rows.columns(),
    ...migratedData(buffer, migratedJsons(buffer, migrating.version, migrated, lines, ranges)),
    malformed,
  };
}

/**
 * Migrated entries' JSON copied into memory of their own (`data`, posted with the batch): a v1
 * line plus the ids migration appended is no range of the file.
 */
function migratedData(
  buffer: Buffer,
  jsons: readonly MigratedJson[],
): Pick<RowColumns, "ranges" | "data" | "texts"> {
  const { data, ranges } = migratedBytes(buffer, jsons);
  return { ranges, data: data.buffer as ArrayBuffer, texts: null };
}

/** The file being imported: its bytes (shared), its read progress, what the calling thread posted about it. */
interface FileState {
  bytes: Buffer;
  /** Int32 [sequence, bytes read / READ_UNIT]; the sequence changes after every update and message. */
  progress: Int32Array;
  job: (WorkerJob & { kind: "job" }) | null;
  /** The file's length once the calling thread has read it all (its "end" message). */
  length: number | null;
}

/**
 * Messages taken off the port and not handled yet. The calling thread may post the next file
 * (read ahead during a folder import) while this one is parsed: its messages wait here.
 */
const inbox: WorkerJob[] = [];

/** The calling thread asked this one to end (ImportThread.end): it does once it is between files. */
let stopping = false;

/** Takes in what the calling thread posted about the file (the job, the end of the read). */
function poll(file: FileState): void {
  for (let got = receiveMessageOnPort(port); got; got = receiveMessageOnPort(port)) {
    inbox.push(got.message as WorkerJob);
  }
  // This file's messages all come before the next file's "file" message.
  while (inbox.length > 0 && inbox[0]?.kind !== "file") {
    const message = inbox.shift() as WorkerJob;
    if (message.kind === "job") file.job = message;
    else if (message.kind === "end") file.length = message.length;
    else if (message.kind === "stop") stopping = true;
  }
}

/** Bytes read so far (all of them once the read is over). */
function bytesIn(file: FileState): number {
  return file.length ?? Math.min(file.bytes.length, Atomics.load(file.progress, 1) * READ_UNIT);
}

/** Sleeps until the read moves on (or a message comes). */
function idle(file: FileState, seen: number): void {
  Atomics.wait(file.progress, 0, seen, 1000);
}

/** How much of the file has been read, waiting until `want` bytes are in or the read is over. */
function arrived(file: FileState, want: number): Arrival {
  for (;;) {
    // Read the sequence before looking: an update or a message posted after this makes the wait return.
    const seen = Atomics.load(file.progress, 0);
    poll(file);
    const bytes = bytesIn(file);
    if (file.length !== null || bytes >= want) return { bytes, complete: file.length !== null };
    idle(file, seen);
  }
}

/** Waits for the job while the file is read; null when the read ended without one (a file parsed elsewhere). */
function awaitJob(file: FileState): (WorkerJob & { kind: "job" }) | null {
  for (;;) {
    const seen = Atomics.load(file.progress, 0);
    poll(file);
    if (file.job !== null) return file.job;
    if (file.length !== null) return null;
    idle(file, seen);
  }
}

function run(file: FileState, job: WorkerJob & { kind: "job" }): void {
  const facts = emptyContentFacts(job.omp);
  const order = new TreeOrderCheck();
  const digester = new FileDigester();
  const { bytes } = file;
  const { migration } = job;
  const migrating = migration
    ? { migrator: new SessionMigrator(migration.sessionId, migration.version), version: migration.version }
    : null;
  for (const chunk of bodyRanges(
    bytes,
    job.start,
    job.firstLine,
    (want) => arrived(file, want),
    BATCH_BYTES,
  )) {
    sendBatch(chunkBatch(bytes, chunk, facts, order, migrating));
    // Hashed while the chunk is still in the cache: the calling thread only stores rows.
    digester.advance(bytes, chunk.end);
  }
  // Entries a migration held back to the end (an index pointing past them): their texts.
  const rest = migrating?.migrator.finish() ?? [];
  if (migrating !== null && rest.length > 0) {
    const rows = new RowCollector(facts, order);
    for (const item of rest) rows.add(item.entry, item.line);
    const jsons = migratedJsons(
      bytes,
      migrating.version,
      rest.map((item) => migratedLine(item, false)),
      [],
      null,
    );
    sendBatch({ ...rows.columns(), ...migratedData(bytes, jsons), malformed: [] });
  }
  const digest = digester.finish(bytes.subarray(0, file.length ?? bytes.length));
  send({ kind: "done", facts, digest, treeInOrder: order.healthy });
}

/** One file, from its "file" message to its "done" (or "error") message; nothing for a file without a job. */
function importFile(message: FileJob): void {
  const file: FileState = {
    bytes: Buffer.from(message.shared, 0, message.size),
    progress: new Int32Array(message.progress),
    job: null,
    length: null,
  };
  try {
    const job = awaitJob(file);
    if (job !== null) run(file, job);
  } catch (error) {
    send({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Handles the files in the order they were posted. Once asked to end it closes its port: with
 * nothing left to wait for, the thread ends on its own (it is not terminated).
 */
function drain(): void {
  while (inbox.length > 0 && !stopping) {
    const message = inbox.shift() as WorkerJob;
    if (message.kind === "file") importFile(message);
    else if (message.kind === "stop") stopping = true;
  }
  if (stopping) port.close();
}

port.on("message", (message: WorkerJob) => {
  inbox.push(message);
  drain();
});
