/**
 * Write transactions on the library. Each takes SQLite's write lock as it begins (BEGIN
 * IMMEDIATE): the library has more than one connection (the app's import thread, the CLI), and
 * a transaction that reads first and writes later fails at once ("database is locked") when
 * another connection committed in between, where an immediate one waits its turn (busy_timeout).
 */
import type { Database } from "better-sqlite3";

/**
 * Told before a connection's outermost write transaction takes the lock, and once it has ended
 * (committed, rolled back, or failed to begin). The import runner's thread tells the serving
 * thread through it, so that writes there wait for it asynchronously (write-gate.ts).
 */
export interface WriteLockWatch {
  taking(): void;
  released(): void;
}

const watches = new WeakMap<Database, WriteLockWatch>();

/** Tells `watch` about the write transactions of `db` from now on (see WriteLockWatch). */
export function watchWriteLocks(db: Database, watch: WriteLockWatch): void {
  watches.set(db, watch);
}

/** `fn` as a write transaction (nested in an open transaction, a savepoint), as db.transaction does. */
export function writeTransaction<A extends unknown[], R>(
  db: Database,
  fn: (...args: A) => R,
): (...args: A) => R {
  const transaction = db.transaction(fn);
  return (...args: A) => {
    const watch = db.inTransaction ? undefined : watches.get(db);
    watch?.taking();
    try {
      return transaction.immediate(...args);
    } finally {
      watch?.released();
    }
  };
}

/**
 * Begins a write transaction its caller ends itself (COMMIT or ROLLBACK), then calling
 * `endedWrite`: the watch of `db` is told as for writeTransaction.
 */
export function beginWrite(db: Database): void {
  const watch = watches.get(db);
  watch?.taking();
  try {
    db.exec("BEGIN IMMEDIATE");
  } catch (error) {
    watch?.released();
    throw error;
  }
}

/** The transaction begun by beginWrite has ended. */
export function endedWrite(db: Database): void {
  watches.get(db)?.released();
}

/**
 * `fn`'s reads as one snapshot of the library (a deferred transaction: other connections' commits
 * meanwhile are not seen). `fn` must only read: a deferred transaction that starts writing can
 * fail SQLITE_BUSY where an IMMEDIATE one would have waited (use writeTransaction for that).
 */
export function readSnapshot<R>(db: Database, fn: () => R): R {
  return db.transaction(fn)();
}
