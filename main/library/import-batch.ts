/**
 * Groups the imports of small files in a folder into one transaction: each file's own
 * transaction becomes a savepoint inside it. A commit writes every page it changed (64 KB each,
 * a dozen B-trees per session), so a commit per 50 KB file would write ~0.8 MB of WAL.
 */
import type { Database } from "../store/open.ts";
import { reasonOf } from "./files.ts";

/** Files up to this size (parsed in place) share a transaction. */
export const BATCH_FILE_BYTES = 1024 * 1024;
/** A batch is committed after this many files, or this many bytes read. */
const BATCH_FILES = 100;
const BATCH_BYTES = 16 * 1024 * 1024;

/** Files of a batch whose writes did not reach the library (its commit failed, or SQLite rolled it back). */
export interface LostBatch {
  /** The keys given to `before` for those files. */
  keys: number[];
  reason: string;
}

export class ImportBatch {
  private readonly db: Database;
  /** The caller already holds a transaction: nothing to group (its commit decides). */
  private readonly nested: boolean;
  private open = false;
  private keys: number[] = [];
  private bytes = 0;

  constructor(db: Database) {
    this.db = db;
    this.nested = db.inTransaction;
  }

  /**
   * Call before importing a file of `bytes` bytes (`key` names it in a LostBatch): a small file
   * joins the open batch (or opens one); any other file first commits the batch, and gets its
   * own transaction (e.g. to import without per-row foreign-key lookups).
   */
  before(key: number, bytes: number, small: boolean): LostBatch | null {
    if (this.nested) return null;
    if (!small) return this.commit();
    if (!this.open) {
      this.db.exec("BEGIN");
      this.open = true;
    }
    this.keys.push(key);
    this.bytes += bytes;
    return null;
  }

  /** Call after the file's import: commits a full batch. */
  after(): LostBatch | null {
    if (this.open && !this.db.inTransaction) return this.lost("the library rolled the write back");
    if (this.keys.length >= BATCH_FILES || this.bytes >= BATCH_BYTES) return this.commit();
    return null;
  }

  /** Commits the open batch, if any (also at the end of the folder). */
  commit(): LostBatch | null {
    if (!this.open) return null;
    if (!this.db.inTransaction) return this.lost("the library rolled the write back");
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      return this.lost(`the library could not store it: ${reasonOf(error)}`);
    }
    this.reset();
    return null;
  }

  private lost(reason: string): LostBatch {
    const keys = this.keys;
    this.reset();
    return { keys, reason };
  }

  private reset(): void {
    this.open = false;
    this.keys = [];
    this.bytes = 0;
  }
}
