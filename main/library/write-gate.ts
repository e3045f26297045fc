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
  "library:delete",
  "library:restore",
  "library:set-folders",
  "settings:set",
]);

export class WriteGate {
  private readonly held = new Set<Promise<void>>();

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
