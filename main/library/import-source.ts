/**
 * A session file as a stream of parsed chunks: decoded and parsed a few MB at a time, so entry
 * objects die young and a 100k-entry file never sits in memory as one string or as objects.
 * v1/v2 files are migrated on the way (SessionMigrator).
 */

import { isUtf8 } from "node:buffer";
import type { SessionHeader } from "../../core/session/entries.ts";
import {
  appendedIdsText,
  type EntryLineVisitor,
  type MalformedLine,
  type ParsedEntryLine,
  parseSessionText,
  SessionMigrator,
  visitEntryLine,
  visitEntryLines,
} from "../../core/session/jsonl.ts";
import { countNewlines, decodeUtf8 } from "./files.ts";
import { lineReader } from "./import-state.ts";
import { toJson } from "../../core/text/json-deep.ts";

export interface Chunk {
  entries: ParsedEntryLine[];
  malformed: MalformedLine[];
  /** The JSON text of `entries[index]`, as it is stored. */
  jsonAt(index: number): string;
  /** The same JSON as it goes into the store: {@link jsonAt}, or its UTF-8 bytes, cut from the file. */
  storedJsonAt(index: number): string | Uint8Array;
}

/** What migrating a v1/v2 file's entries needs: the session id (ids are drawn from it) and the file's version. */
export interface Migration {
  sessionId: string;
  version: number;
}

/** Where a file's entry lines start: they can be parsed from here on, in any thread. */
export interface SourceBody {
  buffer: Buffer;
  start: number;
  firstLine: number;
  /** v1/v2 files: how their entries are migrated; null for v3. */
  migration: Migration | null;
}

export interface SessionSource {
  header: SessionHeader;
  headerLine: number;
  /** What the header line is stored as: verbatim for v3, the migrated header otherwise. */
  headerJson: string;
  originalVersion: number;
  migrated: boolean;
  /** Lines before the header that were not JSON. */
  headMalformed: MalformedLine[];
  /** Every entry and malformed line, in file order (headMalformed first). */
  chunks(): Iterable<Chunk>;
  /** The entry lines after the header, for parsing elsewhere. */
  body: SourceBody;
}

export type OpenedSource = { ok: true; source: SessionSource } | { ok: false; reason: string };

const CHUNK_BYTES = 4 * 1024 * 1024;

/** Byte offset just past the first non-blank line that is valid JSON (0 if none). */
function endOfFirstJsonLine(buffer: Buffer): number {
  let start = 0;
  while (start < buffer.length) {
    const nl = buffer.indexOf(0x0a, start);
    const end = nl === -1 ? buffer.length : nl + 1;
    const raw = decodeUtf8(buffer, start, nl === -1 ? buffer.length : nl);
    if (raw.trim() !== "") {
      try {
        JSON.parse(raw);
        return end;
      } catch (error) {
        // Not JSON: parseSessionText reports it as a malformed line before the header.
        void error;
      }
    }
    start = end;
  }
  return 0;
}

/** Where a few MB of whole lines sit in a file. */
export interface ChunkRange {
  /** Byte range in the buffer (whole lines). */
  start: number;
  end: number;
  /** Line number of the first line. */
  firstLine: number;
}

/** How much of a file being read has arrived (`complete`: all of it). */
export interface Arrival {
  bytes: number;
  complete: boolean;
}

/**
 * `buffer` from byte `start` (line `firstLine`) cut into ranges of whole lines of about
 * `chunkBytes` each (a line longer than that is a range of its own).
 * For a file still being read into `buffer`, `arrived(want)` blocks until at least `want` bytes
 * are in or the file is complete; only bytes that arrived are looked at.
 */
export function* bodyRanges(
  buffer: Buffer,
  start: number,
  firstLine: number,
  arrived: (want: number) => Arrival = () => ({ bytes: buffer.length, complete: true }),
  chunkBytes = CHUNK_BYTES,
): Generator<ChunkRange> {
  let pos = start;
  let line = firstLine;
  for (;;) {
    let { bytes, complete } = arrived(pos + chunkBytes);
    if (pos >= bytes) return;
    const from = Math.min(pos + chunkBytes, bytes) - 1;
    let cut = buffer.subarray(0, bytes).indexOf(0x0a, from);
    // No line ends in what arrived: wait for more (a line longer than a chunk).
    while (cut === -1 && !complete) {
      ({ bytes, complete } = arrived(bytes + chunkBytes));
      cut = buffer.subarray(0, bytes).indexOf(0x0a, from);
    }
    const end = cut === -1 ? bytes : cut + 1;
    yield { start: pos, end, firstLine: line };
    line += countNewlines(buffer.subarray(pos, end));
    pos = end;
  }
}

/** Whether the bytes of `chunk` are valid UTF-8. */
export function isUtf8Chunk(buffer: Buffer, chunk: ChunkRange): boolean {
  return isUtf8(buffer.subarray(chunk.start, chunk.end));
}

/**
 * Parses the entry lines of `chunk` (see visitEntryLines). When `valid` (isUtf8Chunk), each line
 * is decoded from its own bytes: a line of ASCII becomes a one-byte string, which JSON.parse
 * reads faster than a slice of a decoded chunk that holds a wider character anywhere, and no
 * chunk-sized string is made. Returns the byte ranges of the entry lines (each without its "\n"
 * or the "\r" before it), or null when not `valid`: the chunk is then decoded as a whole, bad
 * bytes as U+FFFD, and stored as decoded.
 */
export function visitChunkEntries(
  buffer: Buffer,
  chunk: ChunkRange,
  valid: boolean,
  visitor: EntryLineVisitor,
): Float64Array | null {
  if (!valid) {
    visitEntryLines(buffer.toString("utf8", chunk.start, chunk.end), chunk.firstLine, visitor);
    return null;
  }
  const ranges: number[] = [];
  let line = chunk.firstLine;
  for (let at = chunk.start; at < chunk.end; line++) {
    const nl = buffer.indexOf(0x0a, at);
    const lineEnd = nl === -1 || nl >= chunk.end ? chunk.end : nl;
    let end = lineEnd;
    if (end > at && buffer[end - 1] === 0x0d) end--;
    if (end > at && visitEntryLine(buffer.toString("utf8", at, end), line, visitor)) ranges.push(at, end);
    at = lineEnd + 1;
  }
  return new Float64Array(ranges);
}

/**
 * Where a migrated entry's stored JSON is: the file's bytes [from, to) followed by `tail`
 * (ASCII: the ids v1→v2 migration appended, and the closing brace), or a text (an entry
 * migration rewrote, or one whose line is not among `lines`).
 */
export type MigratedJson = { from: number; to: number; tail: string } | string;

/**
 * What migratedJsons needs of a migrated entry, without the parsed entry itself (kept to the end
 * of a chunk, parsed objects would outlive the young generation and make every scavenge copy them).
 */
export interface MigratedLine {
  line: number;
  id: string;
  parentId: string | null;
  /** Its JSON text when the line's bytes cannot be stored (plus the ids): rewritten, or bytes not at hand. */
  text: string | null;
}

/** The JSON text of a migrated entry: the text migration wrote from its line, or the entry serialised. */
function migratedText(item: ParsedEntryLine): string {
  return item.json ?? toJson(item.entry);
}

/**
 * `item` (from SessionMigrator) as migratedJsons takes it. `bytesAtHand`: its line lies in the
 * chunk being stored and that chunk is valid UTF-8 (the bytes can be stored as they are).
 * `text`: its migratedText, when the caller has it already.
 */
export function migratedLine(item: ParsedEntryLine, bytesAtHand: boolean, text?: string): MigratedLine {
  const { line, entry, json } = item;
  const stored = json !== undefined && bytesAtHand ? null : (text ?? migratedText(item));
  return { line, id: entry.id, parentId: entry.parentId, text: stored };
}

/**
 * The stored JSON of each migrated entry of `items` (of a chunk whose entry lines `lines` lie at
 * `ranges` of `buffer`). An entry whose migration only appended its ids is its line's bytes plus
 * those: neither re-serialised nor re-encoded from the decoded text.
 */
export function migratedJsons(
  buffer: Buffer,
  version: number,
  items: readonly MigratedLine[],
  lines: readonly number[],
  ranges: Float64Array | null,
): MigratedJson[] {
  let k = 0;
  return items.map((item) => {
    if (item.text !== null) return item.text;
    // Items come in line order, each with its bytes at hand: its line is among `lines`.
    while (k < lines.length && (lines[k] as number) < item.line) k++;
    if (ranges === null || lines[k] !== item.line) throw new Error(`line ${item.line} is not in the chunk`);
    const from = ranges[2 * k] as number;
    const to = ranges[2 * k + 1] as number;
    // A v2 line is stored as it is; a v1 line gets its ids before its closing brace.
    if (version >= 2) return { from, to, tail: "" };
    const close = buffer.lastIndexOf(0x7d, to - 1);
    return { from, to: close, tail: `${appendedIdsText(item.id, item.parentId)}}` };
  });
}

/**
 * The bytes of `jsons` (see migratedJsons) one after another, in memory of their own (its own
 * ArrayBuffer, so it can be posted), and where each one is: [ranges[2i], ranges[2i + 1]).
 */
export function migratedBytes(
  buffer: Buffer,
  jsons: readonly MigratedJson[],
): { data: Buffer; ranges: Float64Array } {
  let size = 0;
  for (const json of jsons)
    size += typeof json === "string" ? Buffer.byteLength(json) : json.to - json.from + json.tail.length;
  const data = Buffer.from(new ArrayBuffer(size));
  const ranges = new Float64Array(jsons.length * 2);
  let at = 0;
  jsons.forEach((json, i) => {
    ranges[2 * i] = at;
    if (typeof json === "string") at += data.write(json, at);
    else {
      at += buffer.copy(data, at, json.from, json.to);
      at += data.write(json.tail, at, "latin1");
    }
    ranges[2 * i + 1] = at;
  });
  return { data, ranges };
}

/** A chunk's entries, parsed and (for a v1/v2 file) migrated. */
interface ParsedChunk {
  /** Entries ready to store, in line order (after migration, those it let go of now). */
  entries: ParsedEntryLine[];
  /** Raw lines of `entries` (v3 files), or their JSON texts (migrated). */
  texts: string[];
  malformed: MalformedLine[];
  /** The lines of the entries parsed from this chunk (a migrated file may hold some back). */
  lines: number[];
}

/**
 * Parses the lines of `range` (see visitChunkEntries), migrating with `migrator` when given;
 * `ranges` are those of the chunk's entry lines (null when it is not valid UTF-8).
 */
function parseChunk(
  buffer: Buffer,
  range: ChunkRange,
  migrator: SessionMigrator | null,
): ParsedChunk & { ranges: Float64Array | null } {
  const parsed: ParsedChunk = { entries: [], texts: [], malformed: [], lines: [] };
  // The raw line is what gets stored (verbatim): kept from the parse, not split out again.
  const ranges = visitChunkEntries(buffer, range, isUtf8Chunk(buffer, range), {
    entry(entry, line, raw) {
      parsed.lines.push(line);
      if (migrator === null) {
        parsed.entries.push({ line, entry });
        parsed.texts.push(raw);
      } else for (const item of migrator.push({ line, entry }, raw)) addMigrated(parsed, item);
    },
    malformed: (m) => parsed.malformed.push(m),
  });
  return { ...parsed, ranges };
}

/** Adds an entry migration let go of to `parsed`. */
function addMigrated(parsed: ParsedChunk, item: ParsedEntryLine): void {
  parsed.entries.push(item);
  parsed.texts.push(migratedText(item));
}

/** The entry lines of `body`, a few MB per chunk. */
export function* bodyChunks(body: SourceBody): Generator<Chunk> {
  const { buffer, migration } = body;
  const migrator = migration ? new SessionMigrator(migration.sessionId, migration.version) : null;
  for (const range of bodyRanges(buffer, body.start, body.firstLine)) {
    const parsed = parseChunk(buffer, range, migrator);
    const { entries, texts, malformed, ranges } = parsed;
    const jsonAt = (i: number): string => texts[i] as string;
    if (migration === null) {
      // Valid UTF-8: each line's bytes as they are (no encoding of the decoded text).
      const storedJsonAt = ranges
        ? (i: number): Uint8Array => buffer.subarray(ranges[2 * i], ranges[2 * i + 1])
        : jsonAt;
      yield { entries, malformed, jsonAt, storedJsonAt };
      continue;
    }
    const items = entries.map((e, i) =>
      migratedLine(e, ranges !== null && e.line >= range.firstLine, texts[i]),
    );
    const stored = migratedBytes(
      buffer,
      migratedJsons(buffer, migration.version, items, parsed.lines, ranges),
    );
    const storedJsonAt = (i: number): Uint8Array =>
      stored.data.subarray(stored.ranges[2 * i], stored.ranges[2 * i + 1]);
    yield { entries, malformed, jsonAt, storedJsonAt };
  }
  // Entries held back to the end (an index pointing past them): their texts.
  const rest: ParsedChunk = { entries: [], texts: [], malformed: [], lines: [] };
  for (const item of migrator?.finish() ?? []) addMigrated(rest, item);
  const jsonAt = (i: number): string => rest.texts[i] as string;
  if (rest.entries.length > 0) yield { entries: rest.entries, malformed: [], jsonAt, storedJsonAt: jsonAt };
}

/** What the first bytes of a session file say about how to parse the rest (see peekHead). */
export interface FileHead {
  header: SessionHeader;
  /** Where the entry lines start (just after the header line), and that line's number. */
  start: number;
  firstLine: number;
  /** v1/v2 files: how their entries are migrated; null for v3. */
  migration: Migration | null;
}

/**
 * The header of a session file from its first bytes (the rest may still be being read); null
 * when the header is not among them. openSource agrees.
 */
export function peekHead(head: Buffer): FileHead | null {
  const headEnd = endOfFirstJsonLine(head);
  if (headEnd === 0) return null;
  const parsed = parseSessionText(decodeUtf8(head, 0, headEnd));
  if (parsed.header === null) return null;
  return {
    header: parsed.header,
    start: headEnd,
    firstLine: countNewlines(head.subarray(0, headEnd)) + 1,
    migration: migrationOf(parsed.header, parsed.originalVersion),
  };
}

function migrationOf(header: SessionHeader, originalVersion: number): Migration | null {
  return originalVersion < 3 ? { sessionId: header.id, version: originalVersion } : null;
}

/** Why a file with a UTF-16 byte order mark is no session (an editor saved it so), else null. */
function utf16Reason(buffer: Buffer): string | null {
  const [a, b] = buffer;
  if (!((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff))) return null;
  return "the file is UTF-16 text; session files are UTF-8 (save it as UTF-8 and import it again)";
}

export function openSource(buffer: Buffer): OpenedSource {
  const headEnd = endOfFirstJsonLine(buffer);
  const headText = decodeUtf8(buffer, 0, headEnd === 0 ? buffer.length : headEnd);
  const head = parseSessionText(headText);
  if (head.header === null) {
    return { ok: false, reason: utf16Reason(buffer) ?? head.notASessionReason ?? "not a session file" };
  }
  const headerLine = head.headerLine ?? 1;

  const migration = migrationOf(head.header, head.originalVersion);
  const body: SourceBody = {
    buffer,
    start: headEnd,
    firstLine: countNewlines(buffer.subarray(0, headEnd)) + 1,
    migration,
  };
  return {
    ok: true,
    source: {
      header: head.header,
      headerLine,
      // A migrated header (version 3 now) is written anew; a v3 one is kept as it is.
      headerJson: migration ? toJson(head.header) : lineReader(headText, 1)(headerLine),
      originalVersion: head.originalVersion,
      migrated: migration !== null,
      headMalformed: head.malformed,
      *chunks() {
        yield { entries: [], malformed: head.malformed, jsonAt: () => "", storedJsonAt: () => "" };
        yield* bodyChunks(body);
      },
      body,
    },
  };
}
