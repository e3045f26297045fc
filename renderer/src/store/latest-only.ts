/**
 * Runs only the newest of a stream of asks (the LLM view following arrow moves in the tree): one
 * run at a time, and while asks come less than `settleMs` apart with the last one not done yet
 * (a held arrow key, slow answers) none until they stop. An ask overtaken before its turn never
 * runs; its caller's promise resolves once a newer ask has run, or when the waiting ask is dropped.
 */

export interface LatestOnly<T> {
  /** Asks for `item`; resolves once it, or an item asked after it, has run (or on `drop`). */
  ask(item: T): Promise<void>;
  /** Forgets the item waiting for its turn (a run under way goes on); its callers resolve. */
  drop(): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function latestOnly<T>(run: (item: T) => Promise<void>, settleMs: number): LatestOnly<T> {
  let waiting: { item: T } | null = null;
  let callers: (() => void)[] = [];
  let running = false;
  let lastAskAt = Number.NEGATIVE_INFINITY;
  // Whether the newest ask came less than settleMs after the one before it, which was not done
  // (answers that come quicker than the asks are not held back).
  let burst = false;

  const release = (done: (() => void)[]) => {
    for (const resolve of done) resolve();
  };

  const pump = async () => {
    if (running) return;
    running = true;
    try {
      while (waiting) {
        const quiet = performance.now() - lastAskAt;
        if (burst && quiet < settleMs) {
          await sleep(settleMs - quiet);
          continue;
        }
        const { item } = waiting;
        waiting = null;
        const done = callers;
        callers = [];
        try {
          await run(item);
        } catch {
          // The run reports its own failures; the next ask still gets its turn.
        } finally {
          release(done);
        }
      }
    } finally {
      running = false;
    }
  };

  return {
    ask(item) {
      const now = performance.now();
      burst = (running || waiting !== null) && now - lastAskAt < settleMs;
      lastAskAt = now;
      waiting = { item };
      const answered = new Promise<void>((resolve) => callers.push(resolve));
      void pump();
      return answered;
    },
    drop() {
      waiting = null;
      const done = callers;
      callers = [];
      release(done);
    },
  };
}
