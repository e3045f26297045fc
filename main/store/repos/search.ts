/**
 * Full-text search storage (FTS5, contentless, rowid = entry pk). Imports do not tokenize: a
 * watermark (highest pk indexed) lets the library index new entries afterwards, in chunks.
 * User queries become quoted tokens, so any input is a valid FTS query and never throws.
 */
import type { Database } from "better-sqlite3";
import { MAX_SEARCH_HITS } from "../../../core/api/schemas.ts";
import { spaceCjk, splitCjkWord } from "../../../core/text/cjk.ts";
import { stmt } from "../statements.ts";
import { jsonTexts, STORED_JSON_COLUMNS, type StoredJson, withJsonText } from "./entry-blocks.ts";

const WATERMARK = "search.indexed_upto_pk";
/** Written by migration 10: entries indexed before then, to re-check for CJK text. */
const RECHECK_AFTER = "search.cjk_recheck_after_pk";
const RECHECK_UPTO = "search.cjk_recheck_upto_pk";

/** Every entry with pk ≤ the watermark has been offered to the index. */
export function searchWatermark(db: Database): number {
  const value = stmt(db, "SELECT value FROM store_meta WHERE key = ?").pluck(true).get(WATERMARK) as
    | number
    | undefined;
  return value ?? 0;
}

export function setSearchWatermark(db: Database, pk: number): void {
  stmt(
    db,
    "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(WATERMARK, pk);
}

/**
 * Entries indexed before CJK characters were words of their own (migration 10): pk in
 * (after, upto] still to be looked at; null when none (or the library was indexed since).
 */
export interface RecheckRange {
  after: number;
  upto: number;
}

export function cjkRecheckRange(db: Database): RecheckRange | null {
  const rows = stmt(db, "SELECT key, value FROM store_meta WHERE key IN (?, ?)").all(
    RECHECK_AFTER,
    RECHECK_UPTO,
  ) as { key: string; value: number }[];
  const upto = rows.find((r) => r.key === RECHECK_UPTO)?.value;
  if (upto === undefined) return null;
  return { after: rows.find((r) => r.key === RECHECK_AFTER)?.value ?? 0, upto };
}

/** Records how far the re-check got; past `upto` it is over and forgotten. */
export function setCjkRecheckAfter(db: Database, range: RecheckRange): void {
  if (range.after >= range.upto) {
    stmt(db, "DELETE FROM store_meta WHERE key IN (?, ?)").run(RECHECK_AFTER, RECHECK_UPTO);
    return;
  }
  stmt(
    db,
    "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(RECHECK_AFTER, range.after);
}

/** Entries of a re-check range, oldest first: [pk, json]. */
export function recheckTextRows(
  db: Database,
  range: RecheckRange,
  limit: number,
): [pk: number, json: string][] {
  const rows = stmt(
    db,
    `SELECT e.pk AS pk, ${STORED_JSON_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
      WHERE e.pk > ? AND e.pk <= ? ORDER BY e.pk LIMIT ?`,
  ).all(range.after, range.upto, limit) as (StoredJson & { pk: number })[];
  const texts = jsonTexts(db, rows);
  return rows.map((row, i) => [row.pk, texts[i] as string]);
}

function countRecheck(db: Database, limit: number): number {
  const range = cjkRecheckRange(db);
  if (range === null) return 0;
  return stmt(db, "SELECT count(*) FROM (SELECT 1 FROM entries WHERE pk > ? AND pk <= ? LIMIT ?)")
    .pluck(true)
    .get(range.after, range.upto, limit) as number;
}

/** Entries above the watermark, oldest first: [pk, json]. */
export function pendingTextRows(db: Database, afterPk: number, limit: number): [pk: number, json: string][] {
  const rows = stmt(
    db,
    `SELECT e.pk AS pk, ${STORED_JSON_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
      WHERE e.pk > ? ORDER BY e.pk LIMIT ?`,
  ).all(afterPk, limit) as (StoredJson & { pk: number })[];
  const texts = jsonTexts(db, rows);
  return rows.map((row, i) => [row.pk, texts[i] as string]);
}

/** Entries waiting to be indexed, and those waiting for the CJK re-check. */
export function countPendingText(db: Database): number {
  const { fresh, recheck } = countPendingParts(db);
  return fresh + recheck;
}

/** Entries waiting to be indexed (`fresh`) and those waiting for the CJK re-check, apart. */
export function countPendingParts(db: Database): { fresh: number; recheck: number } {
  const fresh = stmt(db, "SELECT count(*) FROM entries WHERE pk > ?")
    .pluck(true)
    .get(searchWatermark(db)) as number;
  return { fresh, recheck: countRecheck(db, Number.MAX_SAFE_INTEGER) };
}

/** True when an entry waits to be indexed or re-checked (an index probe or two, however many wait). */
export function hasPendingText(db: Database): boolean {
  return (
    stmt(db, "SELECT 1 FROM entries WHERE pk > ? LIMIT 1").get(searchWatermark(db)) !== undefined ||
    countRecheck(db, 1) > 0
  );
}

/** Entries waiting to be indexed, counted up to `limit` (a bounded count for "is it little?"). */
export function countPendingTextUpTo(db: Database, limit: number): number {
  const above = stmt(db, "SELECT count(*) FROM (SELECT 1 FROM entries WHERE pk > ? LIMIT ?)")
    .pluck(true)
    .get(searchWatermark(db), limit) as number;
  return above >= limit ? above : above + countRecheck(db, limit - above);
}

/** Every entry of the library (deleted sessions' too: their text is indexed as well). */
export function countEntries(db: Database): number {
  return stmt(db, "SELECT count(*) FROM entries").pluck(true).get() as number;
}

/** Adds the searchable text of a not yet indexed entry (CJK characters as words: core/text/cjk.ts). */
export function insertEntryText(db: Database, pk: number, text: string): void {
  stmt(db, "INSERT INTO entry_text (rowid, text) VALUES (?, ?)").run(pk, spaceCjk(text));
}

/** Takes an entry's text out of the index (nothing happens when it has none there). */
export function deleteEntryText(db: Database, pk: number): void {
  stmt(db, "DELETE FROM entry_text WHERE rowid = ?").run(pk);
}

/** Replaces the searchable text of an entry whose JSON changed (e.g. after pruning). */
export function replaceEntryText(db: Database, pk: number, text: string): void {
  deleteEntryText(db, pk);
  if (text !== "") insertEntryText(db, pk, text);
}

/**
 * Words of free text, as FTS5 sees them: runs of letters and digits. A token like
 * "coding-agent" becomes two words that must both match (and stay adjacent, as a phrase).
 * A run of CJK characters stays whole here (snippets mark it whole); toFtsQuery splits it.
 */
export function queryWords(input: string): string[][] {
  return input
    .split(/\s+/u)
    .map((token) => token.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [])
    .filter((words) => words.length > 0)
    .slice(0, 32);
}

/**
 * Turns free text into an FTS5 query: each whitespace-separated token is a quoted phrase, all
 * must match; the last one also matches as a prefix so results show while typing. CJK
 * characters are words of their own, so "検索" is the phrase "検 索". Returns null when nothing
 * searchable is left.
 */
export function toFtsQuery(input: string): string | null {
  const tokens = queryWords(input);
  if (tokens.length === 0) return null;
  return tokens
    .map((words, i) => `"${words.flatMap(splitCjkWord).join(" ")}"${i === tokens.length - 1 ? "*" : ""}`)
    .join(" ");
}

export interface SearchRow {
  pk: number;
  session_id: string;
  entry_id: string | null;
  type: string;
  role: string | null;
  json: string;
  session_title: string | null;
  first_message: string | null;
}

/** Best matches first (bm25), deleted sessions left out. Never throws on user input. */
export function searchEntryText(
  db: Database,
  query: string,
  options: { limit?: number; sessionId?: string } = {},
): SearchRow[] {
  const fts = toFtsQuery(query);
  if (fts === null) return [];
  // As many as the API and the CLI let a caller ask for (a cap of 500 cut `--limit 1000` silently).
  const limit = Math.max(1, Math.min(MAX_SEARCH_HITS, Math.floor(options.limit ?? 50)));
  const sessionFilter = options.sessionId === undefined ? "" : "AND s.id = ?";
  const sql = `
    SELECT e.pk AS pk, s.id AS session_id, e.id AS entry_id, e.type AS type, e.role AS role, ${STORED_JSON_COLUMNS},
           coalesce(s.canopy_title, s.title, s.display_name, s.compaction_title) AS session_title,
           s.first_message AS first_message
    FROM entry_text AS t
    JOIN entries AS e ON e.pk = t.rowid
    LEFT JOIN entry_json AS j ON j.pk = e.pk
    JOIN sessions AS s ON s.sid = e.sid
    WHERE entry_text MATCH ? AND s.deleted_at IS NULL ${sessionFilter}
    ORDER BY t.rank
    LIMIT ?`;
  const params: unknown[] = [fts];
  if (options.sessionId !== undefined) params.push(options.sessionId);
  params.push(limit);
  const rows = stmt(db, sql).all(...params) as (Omit<SearchRow, "json"> & StoredJson)[];
  return withJsonText(db, rows);
}
