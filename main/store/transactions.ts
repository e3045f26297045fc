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

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * `fn` as a write transaction when the write lock is free now, without waiting for it: `{ value }`,
 * or null when another connection holds it (an import on its thread, the CLI). For a read that
 * stores what it found on the way, which must never hold a request up for busy_timeout.
 */
export function writeIfFree<R>(db: Database, fn: () => R): { value: R } | null {
  const timeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma("busy_timeout = 0");
  try {
    return { value: writeTransaction(db, fn)() };
  } catch (error) {
    if (!isBusy(error)) throw error;
    return null;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
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
