/**
 * Groups the files of a folder import into shared transactions: each file's own transaction
 * becomes a savepoint inside one. A commit writes every page it changed (64 KB each, a dozen
 * B-trees per session), so a commit per file writes ~0.7 MB of WAL on top of the file's own data.
 */
import { type Database, resumeForeignKeyChecks, suspendForeignKeyChecks } from "../store/open.ts";
import { beginWrite, endedWrite } from "../store/transactions.ts";
import { reasonOf } from "./files.ts";

/** Files of known sessions up to this size (parsed in place) share a transaction. */
export const BATCH_FILE_BYTES = 1024 * 1024;
/** A batch is committed after this many files, or this many bytes read. */
const BATCH_FILES = 100;
const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Which transaction a file's writes join. "new": files that become new sessions, stored without
 * per-row foreign-key lookups (their keys hold by construction, as in newSession). "checked":
 * small files of known sessions (merges may delete rows: the checks and their cascades stay on).
 * null: the file commits on its own.
 */
export type BatchGroup = "new" | "checked" | null;

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
  private group: BatchGroup = null;
  /** The open batch turned foreign-key enforcement off: it is turned back on when the batch ends. */
  private checksOff = false;
  private files: { key: number; bytes: number }[] = [];
  private bytes = 0;

  constructor(db: Database) {
    this.db = db;
    this.nested = db.inTransaction;
  }

  /**
   * Call before importing a file of `bytes` bytes (`key` names it in a LostBatch): it joins the
   * open batch of its group (or opens one, after committing a batch of the other group); a file
   * of no group first commits the open batch, and gets its own transaction.
   */
  before(key: number, bytes: number, group: BatchGroup): LostBatch | null {
    return this.join(key, bytes, group, Number.POSITIVE_INFINITY);
  }

  /** Call after the file's import: a batch SQLite rolled back is lost; a full one is committed. */
  after(): LostBatch | null {
    if (this.group !== null && !this.db.inTransaction) return this.lost("the library rolled the write back");
    if (this.files.length >= BATCH_FILES || this.bytes >= BATCH_BYTES) return this.commit();
    return null;
  }

  /**
   * File `key` (`bytes`, of `group`), begun before other files and with nothing stored yet, is
   * about to store its rows: they go to the open batch of its group, with the file among its
   * files. What the other files stored is committed first once it comes to `commitAtBytes`. A
   * folder import calls this while the import thread parses that file: the commit costs no
   * waiting, and the commit at the end of the import holds little more than the last file.
   */
  beforeRows(key: number, bytes: number, group: BatchGroup, commitAtBytes: number): LostBatch | null {
    if (group === null) return null;
    const at = this.files.findIndex((f) => f.key === key);
    if (at !== -1) {
      this.files.splice(at, 1);
      this.bytes -= bytes;
    }
    return this.join(key, bytes, group, commitAtBytes);
  }

  /**
   * Adds file `key` to the open batch of `group`, opening one if needed. The open batch is
   * committed first when it is of another group, holds `commitAtBytes`, or was rolled back by
   * SQLite (then it is lost, not joined). A file of no group only commits it.
   */
  private join(key: number, bytes: number, group: BatchGroup, commitAtBytes: number): LostBatch | null {
    if (this.nested) return null;
    const commit =
      this.group !== null && (this.group !== group || !this.db.inTransaction || this.bytes >= commitAtBytes);
    const lost = commit ? this.commit() : null;
    if (group === null) return lost;
    if (this.group === null) this.begin(group);
    this.files.push({ key, bytes });
    this.bytes += bytes;
    return lost;
  }

  /** Commits the open batch, if any (also at the end of the folder). */
  commit(): LostBatch | null {
    if (this.group === null) return null;
    if (!this.db.inTransaction) return this.lost("the library rolled the write back");
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      const keys = this.files.map((f) => f.key);
      try {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
      } finally {
        this.end();
      }
      return { keys, reason: `the library could not store it: ${reasonOf(error)}` };
    }
    this.end();
    return null;
  }

  private begin(group: "new" | "checked"): void {
    // Set before the batch begins: the pragma cannot change inside a transaction.
    this.checksOff = group === "new" && suspendForeignKeyChecks(this.db);
    try {
      beginWrite(this.db);
    } catch (error) {
      this.end();
      throw error;
    }
    this.group = group;
  }

  private lost(reason: string): LostBatch {
    const keys = this.files.map((f) => f.key);
    this.end();
    return { keys, reason };
  }

  private end(): void {
    if (this.group !== null) endedWrite(this.db);
    if (this.checksOff) resumeForeignKeyChecks(this.db);
    this.checksOff = false;
    this.group = null;
    this.files = [];
    this.bytes = 0;
  }
}
