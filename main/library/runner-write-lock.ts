/**
 * The import runner thread's write transactions, told to the serving thread. Before one takes
 * SQLite's write lock the thread asks and waits (at most ASK_WAIT_MS) until the serving thread has
 * closed its write gate (write-gate.ts): a write there then waits asynchronously instead of on the
 * lock, holding every request up. The gate opens again once the thread says the transaction ended.
 */
import type { WriteLockWatch } from "../store/transactions.ts";
import type { WriteGate } from "./write-gate.ts";

/** What the thread posts: it is about to take the write lock (`seq` numbers the ask), or let it go. */
export type WriteLockMessage = { kind: "writing"; seq: number } | { kind: "written" };

/**
 * How long the thread waits for the serving thread's answer (busy with a long request, or gone)
 * before it takes the lock all the same.
 */
export const ASK_WAIT_MS = 1000;

/** The thread's side: `ack` holds the seq the serving thread answered last. */
export function askingWatch(ack: Int32Array, post: (message: WriteLockMessage) => void): WriteLockWatch {
  let seq = 0;
  return {
    taking() {
      seq = (seq % 0x7fffffff) + 1;
      post({ kind: "writing", seq });
      const until = performance.now() + ASK_WAIT_MS;
      for (;;) {
        const seen = Atomics.load(ack, 0);
        const left = until - performance.now();
        if (seen === seq || left <= 0) return;
        Atomics.wait(ack, 0, seen, left);
      }
    },
    released() {
      post({ kind: "written" });
    },
  };
}

/**
 * The serving thread's side: closes `gate` while a thread writes, and answers its asks. `thread`
 * names the thread a message came from: one that ends (or is terminated) in the middle of its
 * transaction lets the gate go with it.
 */
export class ThreadWriteLock {
  private readonly gate: WriteGate | undefined;
  private readonly ack: Int32Array;
  private end: (() => void) | null = null;
  private holder: unknown = null;

  constructor(gate: WriteGate | undefined, ack: Int32Array) {
    this.gate = gate;
    this.ack = ack;
  }

  take(message: WriteLockMessage, thread: unknown): void {
    if (message.kind === "written") {
      if (thread === this.holder) this.release();
      return;
    }
    if (this.end === null && this.gate !== undefined) {
      this.gate.hold(
        new Promise<void>((resolve) => {
          this.end = resolve;
        }),
      );
    }
    this.holder = thread;
    // Answered on this thread's event loop: no write of this thread is under way now.
    Atomics.store(this.ack, 0, message.seq);
    Atomics.notify(this.ack, 0);
  }

  /** `thread` ended: what it held is let go. */
  ended(thread: unknown): void {
    if (thread === this.holder) this.release();
  }

  private release(): void {
    this.end?.();
    this.end = null;
    this.holder = null;
  }
}
