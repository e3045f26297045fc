/**
 * Entry JSON in blocks (schema v4): the JSON texts of consecutive new entries are stored as one
 * BLOB and each entry keeps the place of its bytes; reading slices them back out. An entry's
 * `entry_json` row, when it has one (edited, or stored before v4), takes precedence.
 */
import type { Database } from "better-sqlite3";
import { StoreError } from "../errors.ts";
import { stmt } from "../statements.ts";

/**
 * Size a block is filled up to; an entry larger than this gets a block of its own. Small enough
 * to sit on one 64 KB page with others (reading one entry loads no overflow pages), large enough
 * to hold ~8 typical entries (a row per block, not per entry, is what makes inserting cheap).
 */
export const BLOCK_BYTES = 16 * 1024;

/** Where an entry's JSON bytes are: [at, at + len) of `block`. */
export interface JsonPlace {
  block: number;
  at: number;
  len: number;
}

function asBuffer(json: string | Uint8Array): Buffer {
  if (typeof json === "string") return Buffer.from(json, "utf8");
  return Buffer.isBuffer(json) ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
}

/**
 * The bytes of one block holding `parts`, and where each part starts in it. Parts that lie one
 * line apart in one buffer (rows read from a file) become a view of that buffer, not a copy;
 * whatever separates them (a line break) is stored too and never read.
 */
function packBlock(parts: readonly Buffer[]): { data: Buffer; at: number[] } {
  const first = parts[0] as Buffer;
  let end = first.byteOffset + first.length;
  let adjacent = true;
  for (let i = 1; i < parts.length && adjacent; i++) {
    const p = parts[i] as Buffer;
    adjacent = p.buffer === first.buffer && p.byteOffset >= end && p.byteOffset - end <= 2;
    end = p.byteOffset + p.length;
  }
  if (adjacent) {
    const data = Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
    return { data, at: parts.map((p) => p.byteOffset - first.byteOffset) };
  }
  const at: number[] = [];
  let offset = 0;
  for (const p of parts) {
    at.push(offset);
    offset += p.length;
  }
  return { data: Buffer.concat(parts, offset), at };
}

/** Stores `jsons` (in order) in new blocks of session `sid`; the place of each. */
export function writeJsonBlocks(
  db: Database,
  sid: number,
  jsons: readonly (string | Uint8Array)[],
): JsonPlace[] {
  const insert = stmt(db, "INSERT INTO entry_blocks (sid, data) VALUES (?, ?)");
  const places: JsonPlace[] = new Array(jsons.length);
  const bytes = jsons.map(asBuffer);
  for (let from = 0; from < bytes.length; ) {
    const parts: Buffer[] = [];
    let size = 0;
    while (from + parts.length < bytes.length && size < BLOCK_BYTES) {
      const part = bytes[from + parts.length] as Buffer;
      // A big entry is kept apart: reading its neighbours does not load it, nor it them.
      if (parts.length > 0 && part.length >= BLOCK_BYTES) break;
      parts.push(part);
      size += part.length;
    }
    const { data, at } = packBlock(parts);
    const block = Number(insert.run(sid, data).lastInsertRowid);
    for (let i = 0; i < parts.length; i++) {
      places[from + i] = { block, at: at[i] as number, len: (parts[i] as Buffer).length };
    }
    from += parts.length;
  }
  return places;
}

/** The columns a query selects so an entry's JSON can be read (see StoredJson). */
export const STORED_JSON_COLUMNS =
  "j.json AS json, e.json_block AS json_block, e.json_at AS json_at, e.json_len AS json_len";

/**
 * The entry's original text (schema 8): `entry_json.original_json`, or, when `original_in_block`,
 * the text of its block, cut out by SQLite as pruning used to copy it. Over `entries AS e` joined
 * with `entry_json AS j`; NULL when the entry was not changed.
 */
export const ORIGINAL_JSON = `CASE WHEN j.original_in_block = 1
    THEN (SELECT CAST(substr(ob.data, e.json_at + 1, e.json_len) AS TEXT) FROM entry_blocks AS ob WHERE ob.block = e.json_block)
    ELSE j.original_json END`;

/** An entry's JSON as stored: its text (entry_json), or its place in a block. */
export interface StoredJson {
  json: string | null;
  json_block: number | null;
  json_at: number | null;
  json_len: number | null;
}

/** Blocks kept in memory by a reader: reads in file order need one or two at a time. */
const CACHED_BLOCKS = 4;

/** A reader's whole blocks, loaded when first asked for; the last CACHED_BLOCKS loaded are kept. */
export class BlockCache {
  private readonly blocks = new Map<number, Buffer>();
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  get(block: number): Buffer {
    const cached = this.blocks.get(block);
    if (cached) return cached;
    const data = stmt(this.db, "SELECT data FROM entry_blocks WHERE block = ?").pluck(true).get(block) as
      | Buffer
      | undefined;
    if (data === undefined) throw missingBlock(block);
    if (this.blocks.size >= CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
    this.blocks.set(block, data);
    return data;
  }
}

/**
 * Reads entries' JSON text. A block that several of the rows to read need is loaded once (and
 * cached while they come); an entry that is alone in its block among them is cut out by SQLite,
 * so a sparse read (the LLM view's settings entries along a long path) copies no whole blocks.
 */
export class EntryJsonReader {
  private readonly blocks: BlockCache;
  private readonly db: Database;
  /** How many of the rows to read are in each block (absent: one). */
  private readonly uses = new Map<number, number>();

  /** A reader for `rows` (all of them, before the first is read). */
  constructor(db: Database, rows: readonly StoredJson[] = []) {
    this.db = db;
    this.blocks = new BlockCache(db);
    for (const row of rows) {
      if (row.json === null && row.json_block !== null) this.willRead(row.json_block);
    }
  }

  /** Counts one more row to read in `block` (rows not given to the constructor, before the first read). */
  willRead(block: number): void {
    this.uses.set(block, (this.uses.get(block) ?? 0) + 1);
  }

  text(row: StoredJson): string {
    if (row.json !== null) return row.json;
    const { json_block: block, json_at: at, json_len: len } = row;
    if (block === null || at === null || len === null) throw noStoredJson();
    if ((this.uses.get(block) ?? 1) > 1) return this.blocks.get(block).toString("utf8", at, at + len);
    const text = stmt(this.db, "SELECT CAST(substr(data, ?, ?) AS TEXT) FROM entry_blocks WHERE block = ?")
      .pluck(true)
      .get(at + 1, len, block) as string | undefined;
    if (text === undefined) throw missingBlock(block);
    return text;
  }
}

function missingBlock(block: number): StoreError {
  return new StoreError("not_found", `Block ${block} of the library is missing; the database is damaged.`);
}

/** An entry with neither its own JSON row nor a place in a block. */
export function noStoredJson(): StoreError {
  return new StoreError("not_found", "An entry in the library has no stored JSON; the database is damaged.");
}

/** The JSON text of each row, in order. */
export function jsonTexts(db: Database, rows: readonly StoredJson[]): string[] {
  const reader = new EntryJsonReader(db, rows);
  return rows.map((row) => reader.text(row));
}

/** An entry row with its JSON text in place of where it is stored. */
export type WithJsonText<T extends StoredJson> = Omit<T, keyof StoredJson> & { json: string };

/** Each row with its JSON text in place of where it is stored. */
export function withJsonText<T extends StoredJson>(db: Database, rows: readonly T[]): WithJsonText<T>[] {
  const reader = new EntryJsonReader(db, rows);
  return rows.map((row) => {
    const { json_block, json_at, json_len, json, ...rest } = row;
    return { ...rest, json: reader.text({ json, json_block, json_at, json_len }) } as WithJsonText<T>;
  });
}
