/**
 * The import worker (see parallel-rows.ts), kept between imports: for each file it follows the
 * calling thread's read of the file into shared memory, parses the entry lines as they arrive
 * (a v1/v2 file once it is all read, migrating it), posts row batches whose JSON is a byte
 * range into that memory (the text is not copied back; migrated lines come in a copy),
 * hashes what it parsed, and last reports what the session figures need. After every message it
 * bumps the shared counter the calling thread waits on.
 */
import { receiveMessageOnPort, workerData } from "node:worker_threads";
import type { SessionEntry } from "../../core/session/entries.ts";
import { type MalformedLine, visitEntryLines } from "../../core/session/jsonl.ts";
import type { NewEntryRow } from "../store/repos/entries.ts";
import { type ContentFacts, emptyContentFacts, TreeOrderCheck } from "./entry-facts.ts";
import { FileDigester } from "./files.ts";
import {
  type Arrival,
  bodyRanges,
  type ChunkRange,
  type MigratedJson,
  parseMigrated,
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

function send(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
}

/** Byte ranges of the lines the rows came from ("\r" before "\n" excluded, as the parser does). */
function lineRanges(buffer: Buffer, chunk: ChunkRange, lines: number[]): Float64Array {
  const starts: number[] = [];
  for (let at = chunk.start; at < chunk.end; ) {
    starts.push(at);
    const nl = buffer.indexOf(0x0a, at);
    if (nl === -1 || nl >= chunk.end) break;
    at = nl + 1;
  }
  const ranges = new Float64Array(lines.length * 2);
  for (let i = 0; i < lines.length; i++) {
    const begin = starts[(lines[i] as number) - chunk.firstLine] as number;
    const nl = buffer.indexOf(0x0a, begin);
    let end = nl === -1 || nl >= chunk.end ? chunk.end : nl;
    if (end > begin && buffer[end - 1] === 0x0d) end--;
    ranges[2 * i] = begin;
    ranges[2 * i + 1] = end;
  }
  return ranges;
}

/** Fails on invalid UTF-8: one pass that both checks and decodes. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The chunk's text, and whether its bytes were valid UTF-8 (else decoded with U+FFFD). */
function decodeChunk(buffer: Buffer, chunk: ChunkRange): { text: string; valid: boolean } {
  const bytes = buffer.subarray(chunk.start, chunk.end);
  try {
    return { text: strictUtf8.decode(bytes), valid: true };
  } catch {
    return { text: bytes.toString("utf8"), valid: false };
  }
}

/** Rows of a batch as they are posted (RowColumns without the JSON): numbers, strings, codes. */
class RowCollector {
  private readonly numbers: number[] = [];
  private readonly strings: (string | null)[] = [];
  private readonly codes: number[] = [];
  private readonly names: (string | null)[] = [];
  private readonly codeOf = new Map<string | null, number>();

  /** Adds the row of `entry` (seq = line), updating `facts`; the row. */
  add(entry: SessionEntry, line: number, facts: ContentFacts): NewEntryRow {
    const r = observedRow(entry, line, "", facts);
    this.numbers.push(r.seq, r.tokens);
    this.strings.push(r.id, r.parentId, r.timestamp);
    this.codes.push(this.code(r.type), this.code(r.role), this.code(r.model));
    return r;
  }

  columns(): Pick<RowColumns, "numbers" | "strings" | "codes" | "names"> {
    return {
      numbers: new Float64Array(this.numbers),
      strings: this.strings,
      codes: new Int32Array(this.codes),
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
): RowColumns {
  const { text, valid } = decodeChunk(buffer, chunk);
  const rows = new RowCollector();
  const lines: number[] = [];
  const texts: string[] | null = valid ? null : [];
  const malformed: MalformedLine[] = [];
  // Each entry becomes its row at once: parsed objects die young (cheap for the GC).
  visitEntryLines(text, chunk.firstLine, {
    entry(entry, line, raw) {
      const r = rows.add(entry, line, facts);
      order.add(r.id, r.parentId, r.type);
      lines.push(line);
      // Invalid UTF-8 is stored as decoded (with U+FFFD), exactly as the single-thread path does.
      texts?.push(raw);
    },
    malformed: (m) => malformed.push(m),
  });
  return {
    ...rows.columns(),
    ranges: valid ? lineRanges(buffer, chunk, lines) : null,
    data: null,
    texts,
    malformed,
  };
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
  if (job.migrate) {
    // Migration assigns ids along the whole file: it is parsed once it is all read.
    const { bytes: length } = arrived(file, Number.POSITIVE_INFINITY);
    for (const batch of migratedBatches(bytes.subarray(0, length), job.firstLine, facts, order)) {
      send({ kind: "batch", ...batch }, batch.data ? [batch.data] : []);
    }
  } else {
    for (const chunk of bodyRanges(bytes, job.start, job.firstLine, (want) => arrived(file, want))) {
      send({ kind: "batch", ...chunkBatch(bytes, chunk, facts, order) });
      // Hashed while the chunk is still in the cache: the calling thread only stores rows.
      digester.advance(bytes, chunk.end);
    }
  }
  const digest = digester.finish(bytes.subarray(0, file.length ?? bytes.length));
  send({ kind: "done", facts, digest, treeInOrder: order.healthy });
}

/** Entries of a migrated file per batch (it comes as one chunk, its rows are stored a batch at a time). */
const MIGRATED_BATCH_ENTRIES = 1000;

/**
 * The rows of a v1/v2 file (`buffer`, all of it), migrated, in batches whose JSON bytes are
 * copied into memory of their own (`data`, posted with the batch): a v1 line plus its new ids
 * is no range of the file. Malformed lines before the header (line `firstLine - 1` at the
 * latest) are the calling thread's (SessionSource.headMalformed).
 */
function* migratedBatches(
  buffer: Buffer,
  firstLine: number,
  facts: ContentFacts,
  order: TreeOrderCheck,
): Generator<RowColumns & { data: ArrayBuffer }> {
  const file = parseMigrated(buffer);
  const { entries } = file;
  let malformed = file.malformed.filter((m) => m.line >= firstLine);
  for (let from = 0; from < entries.length || malformed.length > 0; from += MIGRATED_BATCH_ENTRIES) {
    const to = Math.min(entries.length, from + MIGRATED_BATCH_ENTRIES);
    const rows = new RowCollector();
    const jsons: MigratedJson[] = [];
    let size = 0;
    for (let i = from; i < to; i++) {
      const { entry, line } = entries[i] as (typeof entries)[number];
      const r = rows.add(entry, line, facts);
      order.add(r.id, r.parentId, r.type);
      const json = file.jsonOf(i);
      jsons.push(json);
      size += typeof json === "string" ? Buffer.byteLength(json) : json.to - json.from + json.tail.length;
    }
    const data = Buffer.from(new ArrayBuffer(size));
    const ranges = new Float64Array(jsons.length * 2);
    let at = 0;
    jsons.forEach((json, i) => {
      ranges[2 * i] = at;
      if (typeof json === "string") at += data.write(json, at);
      else {
        at += buffer.copy(data, at, json.from, json.to);
        at += data.write(json.tail, at, "latin1");
      }
      ranges[2 * i + 1] = at;
    });
    yield { ...rows.columns(), ranges, data: data.buffer as ArrayBuffer, texts: null, malformed };
    malformed = [];
  }
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

/** Handles the files in the order they were posted. */
function drain(): void {
  for (let message = inbox.shift(); message !== undefined; message = inbox.shift()) {
    if (message.kind === "file") importFile(message);
  }
}

port.on("message", (message: WorkerJob) => {
  inbox.push(message);
  drain();
});
