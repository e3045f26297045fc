/**
 * What tree nodes take from their entries' JSON, kept in memory for the sessions whose tree was
 * made last, by entry pk: reloading a tree (after an append, an edit, a leaf move, or opening it
 * again) reads and parses only entries it has not seen. Sound because the JSON stored with an
 * entry never changes for its pk (pks are never reused; a rewrite goes to entry_json, and the
 * caller never keeps or takes facts of a rewritten entry).
 */
import type { Database } from "../store/open.ts";

/** Sessions whose facts are kept (each about as big in memory as its session:tree answer). */
export const CACHED_SESSIONS = 2;

const byDatabase = new WeakMap<Database, Map<number, Map<number, unknown>>>();

export interface SessionFacts<T> {
  /** The facts kept for this pk, if any. */
  get(pk: number): T | undefined;
  /** Keeps `facts` for this pk (an entry whose JSON was never rewritten). */
  keep(pk: number, facts: T): void;
  /** Ends the walk: only the pks kept or taken during it stay. */
  done(): void;
}

/** The kept facts of session `sid` in `db`, for one walk over all its entries. */
export function sessionFacts<T>(db: Database, sid: number): SessionFacts<T> {
  let sessions = byDatabase.get(db);
  if (!sessions) {
    sessions = new Map();
    byDatabase.set(db, sessions);
  }
  const previous = (sessions.get(sid) ?? new Map()) as Map<number, T>;
  const next = new Map<number, T>();
  const all = sessions;
  return {
    get(pk) {
      const facts = previous.get(pk);
      if (facts !== undefined) next.set(pk, facts);
      return facts;
    },
    keep(pk, facts) {
      next.set(pk, facts);
    },
    done() {
      // Most recently walked last; the oldest session beyond the limit is dropped.
      all.delete(sid);
      all.set(sid, next);
      while (all.size > CACHED_SESSIONS) all.delete(all.keys().next().value as number);
    },
  };
}
