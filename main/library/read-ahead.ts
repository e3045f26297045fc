/**
 * The files of a folder import read ahead for the import thread. While the thread parses one
 * file, the next files large enough for it are read and queued behind it, so that the thread
 * never waits for this thread to reach them. Smaller files in between are parsed here meanwhile.
 */
import type { RowWorker } from "./parallel-rows.ts";

/** New files of at least this size are read ahead (smaller ones are parsed in place). */
export const READ_AHEAD_MIN_BYTES = 256 * 1024;
/** At most this many files wait on the thread behind the one being stored… */
export const READ_AHEAD_FILES = 3;
/** …and, past the first, no more bytes than this (each waits in memory of its own). */
export const READ_AHEAD_BYTES = 64 * 1024 * 1024;

export interface ReadAheadPlan<R> {
  /** Each file's size when it is new to the library, else 0 (see newFileSizes). */
  sizes: readonly number[];
  /** Reads file `at`, its parse queued behind `behind` on the thread. */
  read(at: number, behind: RowWorker): R;
  /** The worker that got the read file, if it went to the thread. */
  workerOf(read: R): RowWorker | null;
}

export class ReadAhead<R> {
  private readonly plan: ReadAheadPlan<R>;
  private readonly queue: { at: number; read: R; size: number }[] = [];

  constructor(plan: ReadAheadPlan<R>) {
    this.plan = plan;
  }

  /** File `at`'s read, when it was read ahead. */
  take(at: number): R | undefined {
    if (this.queue[0]?.at !== at) return undefined;
    return this.queue.shift()?.read;
  }

  /** File `at`'s read, when it is read ahead (it stays queued). */
  peek(at: number): R | undefined {
    return this.queue.find((q) => q.at === at)?.read;
  }

  /** The bytes of the files queued. */
  queuedBytes(): number {
    return this.queue.reduce((sum, q) => sum + q.size, 0);
  }

  /** File `at` is being parsed on the thread by `worker`: reads the next files for it. */
  fill(at: number, worker: RowWorker): void {
    let last = this.queue.at(-1)?.at ?? at;
    let behind = this.lastWorker() ?? worker;
    let bytes = this.queuedBytes();
    const { sizes } = this.plan;
    while (this.queue.length < READ_AHEAD_FILES) {
      const next = sizes.findIndex((size, j) => j > last && size >= READ_AHEAD_MIN_BYTES);
      if (next === -1) return;
      const size = sizes[next] as number;
      if (this.queue.length > 0 && bytes + size > READ_AHEAD_BYTES) return;
      const read = this.plan.read(next, behind);
      this.queue.push({ at: next, read, size });
      bytes += size;
      last = next;
      behind = this.plan.workerOf(read) ?? behind;
    }
  }

  /** The reads whose turn never came (the import stopped early); the queue is emptied. */
  drain(): R[] {
    return this.queue.splice(0).map((q) => q.read);
  }

  private lastWorker(): RowWorker | null {
    const last = this.queue.at(-1);
    return last === undefined ? null : this.plan.workerOf(last.read);
  }
}
