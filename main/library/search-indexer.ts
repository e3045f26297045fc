/**
 * Fills the full-text index in the background on the serving thread (app and browser mode):
 * after imports, at start-up and after any change, in slices that stop after about SLICE_MS
 * (indexSearchSlice's budget), one transaction each, with a WAL checkpoint as a step of its own
 * every few slices, one step per turn of the event loop and only once requests have been quiet
 * for a moment and every answer is out. A request that arrives meanwhile waits at most for the
 * step that is running.
 */
import { checkpointWal, type Database, withoutAutoCheckpoint } from "../store/open.ts";
import { hasPendingText } from "../store/repos/search.ts";
import type { ImportRunner } from "./import-runner.ts";
import { indexSearchSlice, type SliceResult } from "./search.ts";

/** What one slice should take: short enough not to be noticed by a request that waits for it. */
export const SLICE_MS = 20;
/** The most entries one slice indexes, however fast they go. */
export const MAX_SLICE_ROWS = 2000;
/** No slice starts until requests have been quiet this long (a burst is answered without one). */
export const QUIET_MS = 25;
/**
 * Slices between two WAL checkpoints, each run as a step of its own. Left to SQLite, a commit
 * that finds the WAL past 1000 pages (64 MB here) copies them all into the file: one slice in
 * ~60 would take 100–300 ms instead of 20.
 */
export const CHECKPOINT_EVERY_SLICES = 8;
/** After a failed slice (e.g. another program held the library's write lock), retry this much later. */
const RETRY_MS = 1000;

export interface IndexerStats {
  /** Steps run so far: slices, and the WAL checkpoints between them. */
  slices: number;
  /** Entries indexed so far. */
  rows: number;
  /** The longest step so far (ms), and how many entries it indexed (0: a checkpoint). */
  maxSliceMs: number;
  maxSliceRows: number;
}

export class SearchIndexer {
  private readonly db: Database;
  private readonly imports: ImportRunner;
  private readonly targetMs: number;
  private readonly checkpointEvery: number;
  private timer: { cancel(): void } | null = null;
  private lastRequest = Number.NEGATIVE_INFINITY;
  /** Answers still being written out (browser mode's server, beginAnswer). */
  private answering = 0;
  /** Slices since the last checkpoint step. */
  private unchecked = 0;
  private closed = false;
  private waiters: (() => void)[] = [];
  readonly stats: IndexerStats = { slices: 0, rows: 0, maxSliceMs: 0, maxSliceRows: 0 };

  /**
   * `imports`: while it imports or indexes on its own thread, this one waits for it.
   * `checkpointEverySlices`: Infinity leaves checkpoints to SQLite (the bench's baseline).
   */
  constructor(
    db: Database,
    imports: ImportRunner,
    options: { sliceMs?: number; checkpointEverySlices?: number } = {},
  ) {
    this.db = db;
    this.imports = imports;
    this.targetMs = options.sliceMs ?? SLICE_MS;
    this.checkpointEvery = options.checkpointEverySlices ?? CHECKPOINT_EVERY_SLICES;
  }

  /** True while entries wait and a slice is scheduled (or waits for imports). */
  get running(): boolean {
    return this.timer !== null;
  }

  /** Starts indexing when entries wait (cheap when none do). */
  kick(): void {
    if (this.closed || this.timer !== null || !this.db.open) return;
    if (!hasPendingText(this.db)) {
      this.settle();
      return;
    }
    this.schedule(0);
  }

  /** A request is being answered: slices hold off until requests have been quiet for QUIET_MS. */
  noteRequest(): void {
    this.lastRequest = performance.now();
  }

  /**
   * A request's answer is being written until the function returned is called (once it is out):
   * no slice starts meanwhile, nor for QUIET_MS after. A large answer (a 100k-entry session's
   * tree, 30 MB) leaves its socket over many turns of the event loop; a slice in each made it
   * arrive seconds later.
   */
  beginAnswer(): () => void {
    this.answering++;
    this.noteRequest();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.answering--;
      this.noteRequest();
    };
  }

  /** Resolves once nothing waits to be indexed (or the indexer is closed). */
  whenIndexed(): Promise<void> {
    if (this.closed || (this.timer === null && !hasPendingText(this.db))) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.kick();
    });
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    this.settle();
  }

  private schedule(delayMs: number): void {
    // Not unref'd: an unref'd immediate waits for other work to wake the event loop up.
    if (delayMs > 0) {
      const handle = setTimeout(() => this.step(), delayMs);
      this.timer = { cancel: () => clearTimeout(handle) };
    } else {
      // setImmediate: the I/O that came during a slice (a request) is taken before the next one.
      const handle = setImmediate(() => this.step());
      this.timer = { cancel: () => clearImmediate(handle) };
    }
  }

  /** Waits for `done`, then looks again (an import or the import thread's own indexing). */
  private after(done: Promise<unknown>): void {
    this.timer = { cancel: () => {} };
    void done.finally(() => {
      if (this.closed) return;
      this.timer = null;
      this.kick();
    });
  }

  private step(): void {
    this.timer = null;
    if (this.closed || !this.db.open) return;
    // An import thread writes (its batches, or its own indexing): a slice here would wait for its lock.
    if (this.imports.busy) {
      this.after(this.imports.idle());
      return;
    }
    if (this.imports.indexingSearch) {
      this.after(this.imports.searchIndexed());
      return;
    }
    const quiet = performance.now() - this.lastRequest;
    if (this.answering > 0 || quiet < QUIET_MS) {
      this.schedule(this.answering > 0 ? QUIET_MS : QUIET_MS - quiet);
      return;
    }
    const started = performance.now();
    let slice: SliceResult | null = null;
    try {
      const index = () => indexSearchSlice(this.db, MAX_SLICE_ROWS, { budgetMs: this.targetMs });
      if (!Number.isFinite(this.checkpointEvery)) slice = index();
      else if (this.unchecked >= this.checkpointEvery) {
        checkpointWal(this.db);
        this.unchecked = 0;
      } else {
        slice = withoutAutoCheckpoint(this.db, index);
        this.unchecked++;
      }
    } catch (error) {
      if (!this.db.open) return;
      // Not silent, not fatal: a search still answers (and says how far indexing is).
      console.error(`canopy: search indexing paused: ${(error as Error).message}`);
      this.schedule(RETRY_MS);
      return;
    }
    const elapsed = performance.now() - started;
    const { stats } = this;
    stats.slices++;
    stats.rows += slice?.indexed ?? 0;
    if (elapsed > stats.maxSliceMs) {
      stats.maxSliceMs = elapsed;
      stats.maxSliceRows = slice?.indexed ?? 0;
    }
    if (slice === null) {
      // After a checkpoint step: go on while entries wait (more may have come meanwhile).
      if (hasPendingText(this.db)) this.schedule(0);
      else this.settle();
    } else {
      if (slice.more) this.schedule(0);
      else if (!Number.isFinite(this.checkpointEvery)) this.settle();
      else {
        // Done: one more step copies what the last slices left in the WAL.
        this.unchecked = this.checkpointEvery;
        this.schedule(0);
      }
    }
  }

  private settle(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
