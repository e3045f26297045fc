/**
 * A session's entries and malformed lines read one at a time, in seq order, for an export that
 * writes them as it reads (export-lines.ts): only the rows in flight and a few JSON blocks are in
 * memory, never the session's text. While one of these iterations is open the connection reads
 * one snapshot of the library (and cannot write): finish or `return()` it before writing.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";
import type { EntryOrigin, MalformedRow } from "./entries.ts";
import { BlockCache, noStoredJson, ORIGINAL_JSON } from "./entry-blocks.ts";

export interface StreamedEntry {
  seq: number;
  id: string | null;
  parent_id: string | null;
  type: string;
  origin: EntryOrigin;
  /** The entry's JSON text (as first imported when asked for originals and it was changed since). */
  json: string;
}

interface PlacedRow {
  seq: number;
  id: string | null;
  parent_id: string | null;
  type: string;
  origin: EntryOrigin;
  edited: number;
  pk: number;
  json_block: number | null;
  json_at: number | null;
  json_len: number | null;
}

/** Reads entries' JSON text from their block or their entry_json row, one entry at a time. */
class JsonTextReader {
  private readonly blocks: BlockCache;
  private readonly db: Database;
  private readonly originals: boolean;

  constructor(db: Database, originals: boolean) {
    this.db = db;
    this.originals = originals;
    this.blocks = new BlockCache(db);
  }

  text(row: PlacedRow): string {
    if (row.edited) {
      const stored = stmt(
        this.db,
        `SELECT j.json AS json, ${ORIGINAL_JSON} AS original_json
           FROM entry_json AS j JOIN entries AS e ON e.pk = j.pk WHERE j.pk = ?`,
      ).get(row.pk) as
        | { json: string; original_json: string | null }
        | undefined;
      if (stored) return this.originals && stored.original_json !== null ? stored.original_json : stored.json;
    }
    const { json_block: block, json_at: at, json_len: len } = row;
    if (block === null || at === null || len === null) throw noStoredJson();
    return this.blocks.get(block).toString("utf8", at, at + len);
  }
}

const PLACED_ROWS = `SELECT e.seq, e.id, e.parent_id, e.type, e.origin, e.pk, j.pk IS NOT NULL AS edited,
    e.json_block, e.json_at, e.json_len
  FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? ORDER BY e.seq`;

/**
 * Every entry of session `sid` in seq order with its JSON text; `jsonOf` says whose text is read
 * (default all; the others get an empty `json`). `originals`: the text as first imported.
 */
export function* iterateEntries(
  db: Database,
  sid: number,
  options: { originals?: boolean; jsonOf?: (type: string) => boolean } = {},
): Generator<StreamedEntry, void, undefined> {
  const reader = new JsonTextReader(db, options.originals === true);
  // A statement of its own (not the cached one): two exports may be under way at once.
  for (const row of db.prepare(PLACED_ROWS).iterate(sid) as IterableIterator<PlacedRow>) {
    const json = options.jsonOf === undefined || options.jsonOf(row.type) ? reader.text(row) : "";
    yield { seq: row.seq, id: row.id, parent_id: row.parent_id, type: row.type, origin: row.origin, json };
  }
}

/** The malformed lines of session `sid` in seq order. */
export function iterateMalformed(db: Database, sid: number): IterableIterator<MalformedRow> {
  return db
    .prepare("SELECT seq, raw, error FROM malformed_lines WHERE sid = ? ORDER BY seq")
    .iterate(sid) as IterableIterator<MalformedRow>;
}
