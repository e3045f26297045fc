/**
 * Requests that write the library wait here, asynchronously, while the import runner's thread
 * holds the write lock (runner-write-lock.ts: a large file is stored in one transaction of seconds,
 * 196 MB: ~4 s); else they wait for SQLite's lock on the serving thread (busy_timeout), holding
 * every other request up. Reads go on.
 */
import type { Channel } from "../../core/api/contract.ts";

/**
 * Channels whose handler writes the library when called. A job (chat, compaction) writes after
 * its model call: it waits then, in its pipeline, not at its start.
 */
export const LIBRARY_WRITES: ReadonlySet<Channel> = new Set<Channel>([
  "edits:edit-message",
  "edits:fork",
  "edits:undo-summary",
  "edits:rename",
  "edits:label",
  "edits:archive",
  "edits:unarchive",
  "edits:undo",
  "edits:redo",
  "session:set-view-leaf",
  "navigation:navigate",
  "pruning:apply",
  "pruning:restore",
  "library:import",
  "library:import-default-folders",
  "library:delete",
  "library:restore",
  "library:keep-copy",
  "library:set-folders",
  "settings:set",
]);

/**
 * Channels that write the library but do not wait at their start: each keeps clear of the runner's
 * write lock itself. A job (chat turn, compaction) waits for the gate right before it stores what
 * its model call gave; an export re-imports its grown source first, waiting for the gate then
 * (reimportLive); a search catches the index up only while the runner neither imports nor indexes
 * and the gate is open;
 * a prune preview stores the tool facts it read only when it need not wait for the lock
 * (storeToolFacts), and the usage statistics the usage of entries they read from JSON (writeIfFree).
 * test/main/api/library-writes.test.ts checks that every channel in neither list
 * writes nothing.
 */
export const WRITES_ON_THEIR_OWN: ReadonlySet<Channel> = new Set<Channel>([
  "chat:send",
  "chat:continue",
  "compaction:run",
  "session:export",
  "library:search",
  "pruning:preview",
  "session:usage",
]);

export class WriteGate {
  private readonly held = new Set<Promise<void>>();

  /**
   * How long a LIBRARY_WRITES request waits for another process's write lock (the CLI, a second
   * app) before it is refused saying so: an edit is a click the user watches, and a lock held
   * longer than this is a long import or prune, not a moment's write.
   */
  otherWriterLimitMs = 30_000;

  /** True while nothing holds writes. */
  get open(): boolean {
    return this.held.size === 0;
  }

  /** Holds writes until `work` settles; returns `work`. */
  hold<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.held.add(settled);
    void settled.then(() => this.held.delete(settled));
    return work;
  }

  /** Resolves once nothing holds writes (the holds taken meanwhile too). */
  async passed(): Promise<void> {
    while (this.held.size > 0) await Promise.all(this.held);
  }
}
