/**
 * Per-connection cache of prepared statements. Repos call `stmt(db, sql)` on hot paths so a
 * query is compiled once per connection, without any module-global connection.
 */
import type { Database, Statement } from "better-sqlite3";

const caches = new WeakMap<Database, Map<string, Statement>>();

export function stmt(db: Database, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}

/** ISO time now; one helper so tests can see every write uses the same format. */
export function nowIso(): string {
  return new Date().toISOString();
}
