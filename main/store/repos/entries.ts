/**
 * Entry rows (structural columns in `entries`, the JSON text in blocks, see entry-blocks.ts) and malformed
 * lines. `seq` orders everything of a session: the physical line for file entries (shifted only
 * after a rewritten file or Canopy's own appends), so export can put every line back in place.
 * Functions take the session's internal key `sid` (SessionRow.sid).
 */
import type { Database } from "better-sqlite3";
import type { UsageAmounts } from "../../../core/session/usage-totals.ts";
import { stmt } from "../statements.ts";
import { insertEntryUsage } from "./entry-usage.ts";
import {
  EntryJsonReader,
  type JsonPlace,
  jsonTexts,
  ORIGINAL_JSON,
  STORED_JSON_COLUMNS,
  type StoredJson,
  withJsonText,
  writeJsonBlocks,
} from "./entry-blocks.ts";

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
  /** What the entry adds to the session's usage statistics (a reply's usage), kept in entry_usage. */
  usage: UsageAmounts | null;
  /** The entry's JSON: text, or its UTF-8 bytes (stored as TEXT all the same). */
  json: string | Uint8Array;
  origin: EntryOrigin;
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
  origin: EntryOrigin;
  json: string;
  original_json: string | null;
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
  origin: EntryOrigin,
];

export interface MalformedRow {
  seq: number;
  raw: string;
  error: string;
}

const NEXT_PK = "entries.next_pk";

/**
 * Inserts rows; returns their pks. Call inside the caller's transaction (one per import).
 * pks come from a counter in store_meta (never below max(pk) + 1), so they only ever grow, even
 * when the newest entry was deleted: the search-index watermark relies on that.
 */
export function insertEntries(db: Database, sid: number, rows: readonly NewEntryRow[]): number[] {
  if (rows.length === 0) return [];
  const insert = stmt(
    db,
    `INSERT INTO entries (pk, sid, seq, id, parent_id, type, role, model, timestamp, tokens, origin, json_block, json_at, json_len)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const first = stmt(
    db,
    `SELECT max(coalesce((SELECT value FROM store_meta WHERE key = ?), 1),
                coalesce((SELECT max(pk) FROM entries), 0) + 1)`,
  )
    .pluck(true)
    .get(NEXT_PK) as number;
  const places = writeJsonBlocks(
    db,
    sid,
    rows.map((r) => r.json),
  );
  const pks: number[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as NewEntryRow;
    const p = places[i] as JsonPlace;
    const pk = first + i;
    insert.run(
      pk,
      sid,
      r.seq,
      r.id,
      r.parentId,
      r.type,
      r.role,
      r.model,
      r.timestamp,
      r.tokens,
      r.origin,
      p.block,
      p.at,
      p.len,
    );
    pks[i] = pk;
    if (r.usage !== null) insertEntryUsage(db, pk, r.usage);
  }
  stmt(
    db,
    "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(NEXT_PK, first + rows.length);
  return pks;
}

const ROW_COLUMNS = `e.pk, e.seq, e.id, e.parent_id, e.type, e.role, e.model, e.timestamp, e.tokens, e.origin,
  ${ORIGINAL_JSON} AS original_json, ${STORED_JSON_COLUMNS}`;

type StoredEntryRow = Omit<EntryRow, "json"> & StoredJson;

/** Every entry of a session in seq order, with its JSON. */
export function listEntryRows(db: Database, sid: number): EntryRow[] {
  const rows = stmt(
    db,
    `SELECT ${ROW_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? ORDER BY e.seq`,
  ).all(sid) as StoredEntryRow[];
  return withJsonText(db, rows);
}

/**
 * Every entry of a session in seq order, each one's JSON text read as it is visited: a caller
 * that keeps only what it derives never holds the whole session's text at once.
 */
export function forEachEntryRow(db: Database, sid: number, visit: (row: EntryRow, index: number) => void): void {
  const rows = stmt(
    db,
    `SELECT ${ROW_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? ORDER BY e.seq`,
  ).all(sid) as StoredEntryRow[];
  const reader = new EntryJsonReader(db, rows);
  rows.forEach((row, index) => {
    const { json_block, json_at, json_len, json, ...rest } = row;
    visit({ ...rest, json: reader.text({ json, json_block, json_at, json_len }) }, index);
  });
}

/** What a tree node is made from: an entry's structural columns its node shows, and its JSON. */
export interface EntryNodeSource {
  pk: number;
  id: string | null;
  seq: number;
  type: string;
  tokens: number;
  /**
   * The JSON was rewritten (pruning, an agent's id migration: an entry_json row). Else it is the
   * text stored with the entry when it was inserted, which never changes for that pk.
   */
  rewritten: boolean;
  /** Reads the entry's JSON (a caller that already knows what it needs from it skips this). */
  json(): string;
}

type NodeSourceRow = StoredJson & Omit<EntryNodeSource, "json" | "rewritten">;

/**
 * forEachEntryRow with only what a tree node needs: no original_json (a pruned tool output's
 * original can be megabytes), no per-row copy of the row object, and the JSON read only when
 * asked for.
 */
export function forEachEntryNodeSource(
  db: Database,
  sid: number,
  visit: (source: EntryNodeSource, index: number) => void,
): void {
  const rows = stmt(
    db,
    `SELECT e.pk, e.id, e.seq, e.type, e.tokens, ${STORED_JSON_COLUMNS}
     FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? ORDER BY e.seq`,
  ).all(sid) as NodeSourceRow[];
  visitNodeSources(db, rows, visit);
}

/** An entry's node source with its stored parent link (the tail a grown tree is extended by). */
export type EntryTailSource = EntryNodeSource & { parentId: string | null };

/** forEachEntryNodeSource over the entries after line `afterSeq` only, with their parent_id. */
export function forEachEntryNodeSourceAfter(
  db: Database,
  sid: number,
  afterSeq: number,
  visit: (source: EntryTailSource, index: number) => void,
): void {
  const rows = stmt(
    db,
    `SELECT e.pk, e.id, e.seq, e.type, e.tokens, e.parent_id AS parentId, ${STORED_JSON_COLUMNS}
     FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? AND e.seq > ? ORDER BY e.seq`,
  ).all(sid, afterSeq) as (NodeSourceRow & { parentId: string | null })[];
  visitNodeSources(db, rows, (source, index) => {
    (source as EntryTailSource).parentId = (rows[index] as { parentId: string | null }).parentId;
    visit(source as EntryTailSource, index);
  });
}

/**
 * The entries before line `upToSeq` of a session: how many, and the highest pk among them. pks
 * are never reused and always grow, so a row removed or put in among them changes one of the two.
 */
export function entryRowsUpTo(db: Database, sid: number, upToSeq: number): { count: number; maxPk: number } {
  const row = stmt(
    db,
    "SELECT count(*) AS count, coalesce(max(pk), 0) AS maxPk FROM entries WHERE sid = ? AND seq <= ?",
  ).get(sid, upToSeq) as { count: number; maxPk: number };
  return row;
}

/** How many entries of a session have a pk above `pk` (pks only grow: the rows added since). */
export function countEntriesAbovePk(db: Database, sid: number, pk: number): number {
  return (stmt(db, "SELECT count(*) AS n FROM entries WHERE sid = ? AND pk > ?").get(sid, pk) as { n: number }).n;
}

/**
 * Every rewritten entry of a session (an entry_json row): pk, token estimate and JSON text. The
 * few entry_json rows lead (CROSS JOIN), not the session's every entry.
 */
export function rewrittenEntries(db: Database, sid: number): { pk: number; tokens: number; json: string }[] {
  return stmt(
    db,
    `SELECT j.pk AS pk, e.tokens AS tokens, j.json AS json
       FROM entry_json AS j CROSS JOIN entries AS e ON e.pk = j.pk WHERE e.sid = ? ORDER BY j.pk`,
  ).all(sid) as { pk: number; tokens: number; json: string }[];
}

function visitNodeSources(
  db: Database,
  rows: NodeSourceRow[],
  visit: (source: EntryNodeSource, index: number) => void,
): void {
  const load = (index: number, source: EntryNodeSource): StoredJson => {
    const row = rows[index] as NodeSourceRow;
    source.pk = row.pk;
    source.id = row.id;
    source.seq = row.seq;
    source.type = row.type;
    source.tokens = row.tokens;
    source.rewritten = row.json !== null;
    return row;
  };
  visitSources(new EntryJsonReader(db, rows), rows.length, load, visit);
}

/**
 * Visits `count` rows through one source object, reused: `load` fills it with row `index` and
 * says where that row's JSON is, which `json()` reads only when asked.
 */
function visitSources(
  reader: EntryJsonReader,
  count: number,
  load: (index: number, source: EntryNodeSource) => StoredJson,
  visit: (source: EntryNodeSource, index: number) => void,
): void {
  let place: StoredJson | undefined;
  const source: EntryNodeSource = {
    pk: 0,
    id: null,
    seq: 0,
    type: "",
    tokens: 0,
    rewritten: false,
    json: () => reader.text(place as StoredJson),
  };
  for (let index = 0; index < count; index++) {
    place = load(index, source);
    visit(source, index);
  }
}

/**
 * An entry's place in the tree (the first five columns of EntryShape: what structure-index.ts
 * reads), then what its node needs: its token estimate and where its JSON is (StoredJson).
 */
export type EntryTreeRow = [
  pk: number,
  seq: number,
  id: string | null,
  parentId: string | null,
  type: string,
  tokens: number,
  json: string | null,
  jsonBlock: number | null,
  jsonAt: number | null,
  jsonLen: number | null,
];

/**
 * Every entry of a session in seq order as EntryTreeRow: one read (positional rows, no object per
 * row) for both the structural index and the nodes of session:tree; no original_json.
 */
export function listEntryTreeRows(db: Database, sid: number): EntryTreeRow[] {
  return stmt(
    db,
    `SELECT e.pk, e.seq, e.id, e.parent_id, e.type, e.tokens, ${STORED_JSON_COLUMNS}
     FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.sid = ? ORDER BY e.seq`,
  )
    .raw(true)
    .all(sid) as EntryTreeRow[];
}

/** forEachEntryNodeSource over rows read by listEntryTreeRows. */
export function forEachTreeRowSource(
  db: Database,
  rows: readonly EntryTreeRow[],
  visit: (source: EntryNodeSource, index: number) => void,
): void {
  const reader = new EntryJsonReader(db);
  for (const row of rows) if (row[6] === null && row[7] !== null) reader.willRead(row[7]);
  const place: StoredJson = { json: null, json_block: null, json_at: null, json_len: null };
  const load = (index: number, source: EntryNodeSource): StoredJson => {
    const row = rows[index] as EntryTreeRow;
    source.pk = row[0];
    source.seq = row[1];
    source.id = row[2];
    source.type = row[4];
    source.tokens = row[5];
    source.rewritten = row[6] !== null;
    place.json = row[6];
    place.json_block = row[7];
    place.json_at = row[8];
    place.json_len = row[9];
    return place;
  };
  visitSources(reader, rows.length, load, visit);
}

export function listEntryShapes(db: Database, sid: number): EntryShape[] {
  return stmt(
    db,
    "SELECT pk, seq, id, parent_id, type, role, model, origin FROM entries WHERE sid = ? ORDER BY seq",
  )
    .raw(true)
    .all(sid) as EntryShape[];
}

export function entryJson(db: Database, pk: number): string | null {
  const row = stmt(
    db,
    `SELECT ${STORED_JSON_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk WHERE e.pk = ?`,
  ).get(pk) as StoredJson | undefined;
  return row ? new EntryJsonReader(db).text(row) : null;
}

/** The label entries of a session, in seq order: through the partial index entries_labels (v7). */
export const LABEL_PKS_SQL = "SELECT pk FROM entries WHERE sid = ? AND type = 'label' ORDER BY seq";

/** The pks of a session's label entries in seq order, without a walk over its other rows. */
export function labelEntryPks(db: Database, sid: number): number[] {
  return stmt(db, LABEL_PKS_SQL).pluck(true).all(sid) as number[];
}

/** [pk, id, parentId, type, role] of every entry in seq order: the least a path walk needs. */
export type EntryLink = [
  pk: number,
  id: string | null,
  parentId: string | null,
  type: string,
  role: string | null,
];

export function listEntryLinks(db: Database, sid: number): EntryLink[] {
  return stmt(db, "SELECT pk, id, parent_id, type, role FROM entries WHERE sid = ? ORDER BY seq")
    .raw(true)
    .all(sid) as EntryLink[];
}

/** The EntryLink of the LAST entry with this id (as the agents' byId resolves it), through the id index. */
export function entryLinkById(db: Database, sid: number, id: string): EntryLink | undefined {
  return stmt(
    db,
    "SELECT pk, id, parent_id, type, role FROM entries WHERE sid = ? AND id = ? ORDER BY seq DESC LIMIT 1",
  )
    .raw(true)
    .get(sid, id) as EntryLink | undefined;
}

/** The JSON of the given entries (by pk), in the order of `pks`. */
export function entryJsonByPk(db: Database, pks: readonly number[]): string[] {
  const rows = stmt(
    db,
    `SELECT ${STORED_JSON_COLUMNS}
       FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value LEFT JOIN entry_json AS j ON j.pk = e.pk
      ORDER BY k.key`,
  ).all(JSON.stringify(pks)) as StoredJson[];
  return jsonTexts(db, rows);
}

/** The JSON and stored token estimate of the given entries (by pk), in the order of `pks`. */
export function entryJsonAndTokensByPk(db: Database, pks: readonly number[]): { json: string; tokens: number }[] {
  const rows = stmt(
    db,
    `SELECT e.tokens AS tokens, ${STORED_JSON_COLUMNS}
       FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value LEFT JOIN entry_json AS j ON j.pk = e.pk
      ORDER BY k.key`,
  ).all(JSON.stringify(pks)) as (StoredJson & { tokens: number })[];
  const texts = jsonTexts(db, rows);
  return rows.map((row, i) => ({ json: texts[i] as string, tokens: row.tokens }));
}

/** The entry a lookup by id resolves to: the LAST one in file order, as the agents' byId does. */
export function getEntryRowById(db: Database, sid: number, id: string): EntryRow | undefined {
  const row = stmt(
    db,
    `SELECT ${ROW_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
     WHERE e.sid = ? AND e.id = ? ORDER BY e.seq DESC LIMIT 1`,
  ).get(sid, id) as StoredEntryRow | undefined;
  return row ? withJsonText(db, [row])[0] : undefined;
}

export function entryIdExists(db: Database, sid: number, id: string): boolean {
  return stmt(db, "SELECT 1 FROM entries WHERE sid = ? AND id = ? LIMIT 1").get(sid, id) !== undefined;
}

/**
 * The ids a session already has, asked one at a time of the (sid, id) index, plus the ids
 * `add`ed since: what a new entry's id must avoid, without reading every id of the session.
 */
export class StoredEntryIds {
  private readonly added = new Set<string>();
  private readonly db: Database;
  private readonly sid: number;

  constructor(db: Database, sid: number) {
    this.db = db;
    this.sid = sid;
  }

  has(id: string): boolean {
    return this.added.has(id) || entryIdExists(this.db, this.sid, id);
  }

  add(id: string): this {
    this.added.add(id);
    return this;
  }
}

/** Every id of a session at once: for callers that go through the whole session anyway. */
export function storedEntryIds(db: Database, sid: number): Set<string> {
  const ids = stmt(db, "SELECT id FROM entries WHERE sid = ? AND id IS NOT NULL")
    .pluck(true)
    .all(sid) as string[];
  return new Set(ids);
}

/** pk of the session's first user message by seq, if it has one. */
export function firstUserMessagePk(db: Database, sid: number): number | undefined {
  return stmt(
    db,
    "SELECT pk FROM entries WHERE sid = ? AND type = 'message' AND role = 'user' ORDER BY seq LIMIT 1",
  )
    .pluck(true)
    .get(sid) as number | undefined;
}

/** JSON of stored entries that have no id (they can only be matched by their text). */
export function storedIdlessJson(db: Database, sid: number): Set<string> {
  const rows = stmt(
    db,
    `SELECT ${STORED_JSON_COLUMNS} FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
      WHERE e.sid = ? AND e.id IS NULL`,
  ).all(sid) as StoredJson[];
  return new Set(jsonTexts(db, rows));
}

/** Id of the last entry by seq (optionally only among `origin`), or null. */
export function lastEntryId(db: Database, sid: number, origin?: EntryOrigin): string | null {
  const row = origin
    ? stmt(db, "SELECT id FROM entries WHERE sid = ? AND origin = ? ORDER BY seq DESC LIMIT 1").get(
        sid,
        origin,
      )
    : stmt(db, "SELECT id FROM entries WHERE sid = ? ORDER BY seq DESC LIMIT 1").get(sid);
  return (row as { id: string | null } | undefined)?.id ?? null;
}

/** Highest seq used by an entry or a malformed line (0 when empty). */
export function maxSeq(db: Database, sid: number): number {
  const row = stmt(
    db,
    `SELECT max(coalesce((SELECT max(seq) FROM entries WHERE sid = ?), 0),
                coalesce((SELECT max(seq) FROM malformed_lines WHERE sid = ?), 0)) AS m`,
  ).get(sid, sid) as { m: number };
  return row.m;
}

export function deleteEntryAtSeq(db: Database, sid: number, seq: number): boolean {
  return stmt(db, "DELETE FROM entries WHERE sid = ? AND seq = ?").run(sid, seq).changes > 0;
}

export function insertMalformed(db: Database, sid: number, rows: readonly MalformedRow[]): void {
  const insert = stmt(db, "INSERT INTO malformed_lines (sid, seq, raw, error) VALUES (?, ?, ?, ?)");
  for (const r of rows) insert.run(sid, r.seq, r.raw, r.error);
}

export function listMalformed(db: Database, sid: number): MalformedRow[] {
  return stmt(db, "SELECT seq, raw, error FROM malformed_lines WHERE sid = ? ORDER BY seq").all(
    sid,
  ) as MalformedRow[];
}

export function storedMalformedRaw(db: Database, sid: number): Set<string> {
  const raws = stmt(db, "SELECT raw FROM malformed_lines WHERE sid = ?").pluck(true).all(sid) as string[];
  return new Set(raws);
}

export function deleteMalformedAtSeq(db: Database, sid: number, seq: number): boolean {
  return stmt(db, "DELETE FROM malformed_lines WHERE sid = ? AND seq = ?").run(sid, seq).changes > 0;
}

export function countMalformed(db: Database, sid: number): number {
  return stmt(db, "SELECT count(*) FROM malformed_lines WHERE sid = ?").pluck(true).get(sid) as number;
}
