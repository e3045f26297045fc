/**
 * Entry rows (original JSON verbatim + the columns queries need) and malformed-line rows.
 * `seq` orders everything of a session: the physical line for file entries (shifted only after
 * a rewritten file or Canopy's own appends), so export can put every line back in place.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";
import { indexEntryText } from "./search.ts";

export type EntryOrigin = "file" | "canopy";

export interface NewEntryRow {
  seq: number;
  id: string | null;
  parentId: string | null;
  type: string;
  role: string | null;
  /** `provider/model` of an assistant message (lets a path be summarised without its JSON). */
  model: string | null;
  timestamp: string | null;
  tokens: number;
  json: string;
  origin: EntryOrigin;
  /** Text for full-text search; empty or null = not indexed. */
  text?: string | null;
  /** Role shown with a search hit (defaults to `role`; the entry type for summaries). */
  searchRole?: string | null;
}

export interface EntryRow {
  pk: number;
  seq: number;
  id: string | null;
  parent_id: string | null;
  type: string;
  role: string | null;
  model: string | null;
  timestamp: string | null;
  tokens: number;
  json: string;
  original_json: string | null;
  origin: EntryOrigin;
}

/** Structural columns only, as positional arrays (cheap to read for 100k-entry sessions). */
export type EntryShape = [
  pk: number,
  seq: number,
  id: string | null,
  parentId: string | null,
  type: string,
  role: string | null,
  model: string | null,
];

export interface MalformedRow {
  seq: number;
  raw: string;
  error: string;
}

/** Inserts rows (and their search text). Call inside the caller's transaction for speed. */
export function insertEntries(db: Database, sessionId: string, rows: readonly NewEntryRow[]): void {
  const insert = stmt(
    db,
    `INSERT INTO entries (session_id, seq, id, parent_id, type, role, model, timestamp, tokens, json, origin)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of rows) {
    const result = insert.run(
      sessionId,
      r.seq,
      r.id,
      r.parentId,
      r.type,
      r.role,
      r.model,
      r.timestamp,
      r.tokens,
      r.json,
      r.origin,
    );
    if (r.text) {
      indexEntryText(db, Number(result.lastInsertRowid), sessionId, r.id, r.searchRole ?? r.role, r.text);
    }
  }
}

/** Every entry of a session in seq order. */
export function listEntryRows(db: Database, sessionId: string): EntryRow[] {
  return stmt(db, "SELECT * FROM entries WHERE session_id = ? ORDER BY seq").all(sessionId) as EntryRow[];
}

export function listEntryShapes(db: Database, sessionId: string): EntryShape[] {
  return stmt(
    db,
    "SELECT pk, seq, id, parent_id, type, role, model FROM entries WHERE session_id = ? ORDER BY seq",
  )
    .raw(true)
    .all(sessionId) as EntryShape[];
}

/** The JSON of the given entries (by pk), in the order of `pks`. */
export function entryJsonByPk(db: Database, pks: readonly number[]): string[] {
  const rows = stmt(
    db,
    "SELECT e.json FROM json_each(?) AS j JOIN entries AS e ON e.pk = j.value ORDER BY j.key",
  )
    .pluck(true)
    .all(JSON.stringify(pks)) as string[];
  return rows;
}

/** The entry a lookup by id resolves to: the LAST one in file order, as the agents' byId does. */
export function getEntryRowById(db: Database, sessionId: string, id: string): EntryRow | undefined {
  return stmt(db, "SELECT * FROM entries WHERE session_id = ? AND id = ? ORDER BY seq DESC LIMIT 1").get(
    sessionId,
    id,
  ) as EntryRow | undefined;
}

export function entryIdExists(db: Database, sessionId: string, id: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM entries WHERE session_id = ? AND id = ? LIMIT 1").get(sessionId, id) !== undefined
  );
}

export function storedEntryIds(db: Database, sessionId: string): Set<string> {
  const ids = stmt(db, "SELECT id FROM entries WHERE session_id = ? AND id IS NOT NULL")
    .pluck(true)
    .all(sessionId) as string[];
  return new Set(ids);
}

/** JSON of stored entries that have no id (they can only be matched by their text). */
export function storedIdlessJson(db: Database, sessionId: string): Set<string> {
  const jsons = stmt(db, "SELECT json FROM entries WHERE session_id = ? AND id IS NULL")
    .pluck(true)
    .all(sessionId) as string[];
  return new Set(jsons);
}

/** Id of the last entry by seq (optionally only among `origin`), or null. */
export function lastEntryId(db: Database, sessionId: string, origin?: EntryOrigin): string | null {
  const row = origin
    ? stmt(db, "SELECT id FROM entries WHERE session_id = ? AND origin = ? ORDER BY seq DESC LIMIT 1").get(
        sessionId,
        origin,
      )
    : stmt(db, "SELECT id FROM entries WHERE session_id = ? ORDER BY seq DESC LIMIT 1").get(sessionId);
  return (row as { id: string | null } | undefined)?.id ?? null;
}

/** Highest seq used by an entry or a malformed line (0 when empty). */
export function maxSeq(db: Database, sessionId: string): number {
  const row = stmt(
    db,
    `SELECT max(coalesce((SELECT max(seq) FROM entries WHERE session_id = ?), 0),
                coalesce((SELECT max(seq) FROM malformed_lines WHERE session_id = ?), 0)) AS m`,
  ).get(sessionId, sessionId) as { m: number };
  return row.m;
}

export function deleteEntryAtSeq(db: Database, sessionId: string, seq: number): boolean {
  return stmt(db, "DELETE FROM entries WHERE session_id = ? AND seq = ?").run(sessionId, seq).changes > 0;
}

/** Counts per (type, role) for the summary figures. */
export function countEntriesByType(
  db: Database,
  sessionId: string,
): { type: string; role: string | null; n: number }[] {
  return stmt(
    db,
    "SELECT type, role, count(*) AS n FROM entries WHERE session_id = ? GROUP BY type, role",
  ).all(sessionId) as { type: string; role: string | null; n: number }[];
}

/** JSON of the entries of one type, in seq order (or newest first with `desc`). */
export function entryJsonOfType(db: Database, sessionId: string, type: string, desc = false): string[] {
  const sql = `SELECT json FROM entries WHERE session_id = ? AND type = ? ORDER BY seq ${desc ? "DESC" : "ASC"}`;
  return stmt(db, sql).pluck(true).all(sessionId, type) as string[];
}

/** JSON of the first entry with the given type and role, in seq order. */
export function firstEntryJson(db: Database, sessionId: string, type: string, role: string): string | null {
  const json = stmt(
    db,
    "SELECT json FROM entries WHERE session_id = ? AND type = ? AND role = ? ORDER BY seq LIMIT 1",
  )
    .pluck(true)
    .get(sessionId, type, role) as string | undefined;
  return json ?? null;
}

export function insertMalformed(db: Database, sessionId: string, rows: readonly MalformedRow[]): void {
  const insert = stmt(db, "INSERT INTO malformed_lines (session_id, seq, raw, error) VALUES (?, ?, ?, ?)");
  for (const r of rows) insert.run(sessionId, r.seq, r.raw, r.error);
}

export function listMalformed(db: Database, sessionId: string): MalformedRow[] {
  return stmt(db, "SELECT seq, raw, error FROM malformed_lines WHERE session_id = ? ORDER BY seq").all(
    sessionId,
  ) as MalformedRow[];
}

export function storedMalformedRaw(db: Database, sessionId: string): Set<string> {
  const raws = stmt(db, "SELECT raw FROM malformed_lines WHERE session_id = ?")
    .pluck(true)
    .all(sessionId) as string[];
  return new Set(raws);
}

export function deleteMalformedAtSeq(db: Database, sessionId: string, seq: number): boolean {
  return (
    stmt(db, "DELETE FROM malformed_lines WHERE session_id = ? AND seq = ?").run(sessionId, seq).changes > 0
  );
}

export function countMalformed(db: Database, sessionId: string): number {
  return stmt(db, "SELECT count(*) FROM malformed_lines WHERE session_id = ?")
    .pluck(true)
    .get(sessionId) as number;
}
