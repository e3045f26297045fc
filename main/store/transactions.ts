/**
 * Write transactions on the library. Each takes SQLite's write lock as it begins (BEGIN
 * IMMEDIATE): the library has more than one connection (the app's import thread, the CLI), and
 * a transaction that reads first and writes later fails at once ("database is locked") when
 * another connection committed in between, where an immediate one waits its turn (busy_timeout).
 */
import type { Database } from "better-sqlite3";

/** `fn` as a write transaction (nested in an open transaction, a savepoint), as db.transaction does. */
export function writeTransaction<A extends unknown[], R>(
  db: Database,
  fn: (...args: A) => R,
): (...args: A) => R {
  const transaction = db.transaction(fn);
  return (...args: A) => transaction.immediate(...args);
}
