/**
 * The import worker (see parallel-rows.ts): parses a v3 session file's entry lines from a
 * shared buffer and posts row batches whose JSON is a byte range into that buffer (the text
 * is not copied back). After every message it bumps the shared counter the main thread waits on.
 */
import { isUtf8 } from "node:buffer";
import { type MessagePort, workerData } from "node:worker_threads";
import { emptyContentFacts } from "./entry-facts.ts";
import { bodyChunks } from "./import-source.ts";
import type { WorkerInput, WorkerMessage } from "./parallel-rows.ts";
import { chunkRows } from "./row-batches.ts";

const { shared, start, firstLine, omp, signal, port } = workerData as WorkerInput & { port: MessagePort };
const counter = new Int32Array(signal);

function send(message: WorkerMessage): void {
  port.postMessage(message);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
}

/** Byte ranges of the lines the rows came from ("\r" before "\n" excluded, as the parser does). */
function lineRanges(buffer: Buffer, from: number, to: number, firstLine: number, lines: number[]): number[] {
  const starts: number[] = [];
  for (let at = from; at < to; ) {
    starts.push(at);
    const nl = buffer.indexOf(0x0a, at);
    if (nl === -1 || nl >= to) break;
    at = nl + 1;
  }
  const ranges = new Array<number>(lines.length * 2);
  for (let i = 0; i < lines.length; i++) {
    const begin = starts[(lines[i] as number) - firstLine] as number;
    const nl = buffer.indexOf(0x0a, begin);
    let end = nl === -1 || nl >= to ? to : nl;
    if (end > begin && buffer[end - 1] === 0x0d) end--;
    ranges[2 * i] = begin;
    ranges[2 * i + 1] = end;
  }
  return ranges;
}

try {
  send({ kind: "ready" });
  const buffer = Buffer.from(shared);
  const facts = emptyContentFacts(omp);
  for (const chunk of bodyChunks(buffer, start, firstLine)) {
    const { rows, malformed } = chunkRows(chunk, facts);
    const columns: (string | number | null)[] = [];
    for (const r of rows)
      columns.push(r.seq, r.id, r.parentId, r.type, r.role, r.model, r.timestamp, r.tokens);
    // Invalid UTF-8 is stored as decoded (with U+FFFD), exactly as the single-thread path does.
    const valid = isUtf8(buffer.subarray(chunk.start, chunk.end));
    send({
      kind: "batch",
      columns,
      ranges: valid
        ? lineRanges(
            buffer,
            chunk.start,
            chunk.end,
            chunk.firstLine,
            rows.map((r) => r.seq),
          )
        : null,
      texts: valid ? null : rows.map((r) => r.json as string),
      malformed,
    });
  }
  send({ kind: "done", facts });
} catch (error) {
  send({ kind: "error", message: error instanceof Error ? error.message : String(error) });
}
