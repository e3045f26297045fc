/**
 * Reads the session change log (migration 5): the newest seq, and the sessions written after a
 * given seq, found through the seq index (never a scan of the library); and whether another
 * connection committed at all (data_version), which is asked first.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";

export interface SessionChange {
  sid: number;
  seq: number;
  /** Process id of the Canopy that wrote it last; null for another program. */
  writer: number | null;
  /** The session's id; null when its row is gone for good. */
  id: string | null;
}

/**
 * SQLite's `PRAGMA data_version` of this connection: it changes only when another connection
 * (another process, or another thread's connection) commits, and costs no read of the library.
 */
export function dataVersion(db: Database): number {
  return (stmt(db, "PRAGMA data_version").get() as { data_version: number }).data_version;
}

/** The seq of the newest write (0 when nothing has been written since migration 5). */
export function latestChangeSeq(db: Database): number {
  const row = stmt(db, "SELECT max(seq) AS seq FROM session_changes").get() as { seq: number | null };
  return row.seq ?? 0;
}

/** The poll's query (exported for the test of its query plan). */
export const CHANGES_SINCE_SQL = `SELECT c.sid, c.seq, c.writer, s.id FROM session_changes AS c
  LEFT JOIN sessions AS s ON s.sid = c.sid
  WHERE c.seq > ? ORDER BY c.seq`;

/** The sessions written after `seq`, oldest write first. */
export function changesSince(db: Database, seq: number): SessionChange[] {
  return stmt(db, CHANGES_SINCE_SQL).all(seq) as SessionChange[];
}
