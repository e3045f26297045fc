/**
 * A session file as a stream of parsed chunks. v3 files (nearly all) are decoded and parsed a
 * few MB at a time, so entry objects die young and a 100k-entry file never sits in memory as
 * one string or as objects; v1/v2 files need the whole list to migrate and come as one chunk.
 */

import { isUtf8 } from "node:buffer";
import type { SessionHeader } from "../../core/session/entries.ts";
import {
  appendedIdsText,
  type MalformedLine,
  type ParsedEntryLine,
  parseSessionText,
  visitEntryLines,
} from "../../core/session/jsonl.ts";
import { countNewlines, decodeUtf8 } from "./files.ts";
import { lineReader } from "./import-state.ts";

export interface Chunk {
  entries: ParsedEntryLine[];
  malformed: MalformedLine[];
  /** The JSON text of `entries[index]`, as it is stored. */
  jsonAt(index: number): string;
  /** The same JSON as it goes into the store: {@link jsonAt}, or its UTF-8 bytes, cut from the file. */
  storedJsonAt(index: number): string | Uint8Array;
}

/** A chunk of a v3 file's entry lines and where it sits in the file. */
export interface BodyChunk extends Chunk, ChunkRange {}

/** Where a v3 file's entry lines start: they can be parsed from here on, in any thread. */
export interface SourceBody {
  buffer: Buffer;
  start: number;
  firstLine: number;
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
  /** v3 files: the entry lines after the header, for parsing elsewhere; null after migration. */
  body: SourceBody | null;
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
 * `buffer` from byte `start` (line `firstLine`) cut into ranges of whole lines, a few MB each.
 * For a file still being read into `buffer`, `arrived(want)` blocks until at least `want` bytes
 * are in or the file is complete; only bytes that arrived are looked at.
 */
export function* bodyRanges(
  buffer: Buffer,
  start: number,
  firstLine: number,
  arrived: (want: number) => Arrival = () => ({ bytes: buffer.length, complete: true }),
): Generator<ChunkRange> {
  let pos = start;
  let line = firstLine;
  for (;;) {
    let { bytes, complete } = arrived(pos + CHUNK_BYTES);
    if (pos >= bytes) return;
    const from = Math.min(pos + CHUNK_BYTES, bytes) - 1;
    let cut = buffer.subarray(0, bytes).indexOf(0x0a, from);
    // No line ends in what arrived: wait for more (a line longer than a chunk).
    while (cut === -1 && !complete) {
      ({ bytes, complete } = arrived(bytes + CHUNK_BYTES));
      cut = buffer.subarray(0, bytes).indexOf(0x0a, from);
    }
    const end = cut === -1 ? bytes : cut + 1;
    yield { start: pos, end, firstLine: line };
    line += countNewlines(buffer.subarray(pos, end));
    pos = end;
  }
}

/** The entry lines of `buffer` from byte `start` (line `firstLine`), a few MB per chunk. */
export function* bodyChunks(buffer: Buffer, start: number, firstLine: number): Generator<BodyChunk> {
  for (const range of bodyRanges(buffer, start, firstLine)) {
    const entries: ParsedEntryLine[] = [];
    const raws: string[] = [];
    const malformed: MalformedLine[] = [];
    // The raw line is what gets stored (verbatim): kept from the parse, not split out again.
    visitEntryLines(buffer.toString("utf8", range.start, range.end), range.firstLine, {
      entry(entry, at, raw) {
        entries.push({ line: at, entry });
        raws.push(raw);
      },
      malformed: (m) => malformed.push(m),
    });
    const jsonAt = (i: number): string => raws[i] as string;
    yield { entries, malformed, jsonAt, storedJsonAt: jsonAt, ...range };
  }
}

/** What the first bytes of a session file say about how to parse the rest (see peekHead). */
export interface FileHead {
  header: SessionHeader;
  /** Where the entry lines start (just after the header line), and that line's number. */
  start: number;
  firstLine: number;
  /** A v1/v2 file: its entries are parsed and migrated as a whole (parseMigrated). */
  migrated: boolean;
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
    migrated: parsed.originalVersion < 3,
  };
}

/**
 * Where a migrated entry's stored JSON comes from: the file's bytes [from, to) followed by
 * `tail` (ASCII: the ids v1→v2 migration appended), or a text (an entry migration rewrote, or
 * any entry of a file that is not valid UTF-8, stored as decoded as in v3 files).
 */
export type MigratedJson = { from: number; to: number; tail: string } | string;

/** A v1/v2 file parsed whole and migrated to v3 (migration assigns ids along the whole file). */
export interface MigratedFile {
  entries: ParsedEntryLine[];
  /** Every malformed line, those before the header too. */
  malformed: MalformedLine[];
  /** The stored JSON of `entries[index]`, cut from the file where it can be (see MigratedJson). */
  jsonOf(index: number): MigratedJson;
}

/**
 * Parses and migrates a v1/v2 file. An entry whose migration only appended its ids (see
 * ParsedEntryLine.json) is stored as its line's bytes plus those: no re-serialising, and no
 * encoding of a slice of the decoded text either (slow for text with any non-Latin-1 character).
 */
export function parseMigrated(buffer: Buffer): MigratedFile {
  const full = parseSessionText(decodeUtf8(buffer));
  const { entries } = full;
  const starts = isUtf8(buffer) ? lineStarts(buffer) : null;
  const jsonOf = (i: number): MigratedJson => {
    const item = entries[i] as ParsedEntryLine;
    if (item.json === undefined) return JSON.stringify(item.entry);
    if (starts === null) return item.json;
    const from = starts[item.line - 1] as number;
    let to = (starts[item.line] ?? buffer.length + 1) - 1;
    if (to > from && buffer[to - 1] === 0x0d) to--;
    // A v2 line is stored as it is; a v1 line gets its ids before its closing brace.
    if (full.originalVersion >= 2) return { from, to, tail: "" };
    const close = buffer.lastIndexOf(0x7d, to - 1);
    return { from, to: close, tail: `${appendedIdsText(item.entry.id, item.entry.parentId)}}` };
  };
  return { entries, malformed: full.malformed, jsonOf };
}

/** Where each physical line of `buffer` starts: [0] is line 1. */
function lineStarts(buffer: Buffer): number[] {
  const starts = [0];
  for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) starts.push(at + 1);
  return starts;
}

/** The one chunk of a migrated file, parsed when asked for. */
function migratedChunk(buffer: Buffer): Chunk {
  const file = parseMigrated(buffer);
  const jsonAt = (i: number): string => {
    const item = file.entries[i] as ParsedEntryLine;
    return item.json ?? JSON.stringify(item.entry);
  };
  const storedJsonAt = (i: number): string | Uint8Array => {
    const json = file.jsonOf(i);
    if (typeof json === "string") return json;
    const line = buffer.subarray(json.from, json.to);
    return json.tail === "" ? line : Buffer.concat([line, Buffer.from(json.tail, "latin1")]);
  };
  return { entries: file.entries, malformed: file.malformed, jsonAt, storedJsonAt };
}

export function openSource(buffer: Buffer): OpenedSource {
  const headEnd = endOfFirstJsonLine(buffer);
  const headText = decodeUtf8(buffer, 0, headEnd === 0 ? buffer.length : headEnd);
  const head = parseSessionText(headText);
  if (head.header === null) return { ok: false, reason: head.notASessionReason ?? "not a session file" };
  const headerLine = head.headerLine ?? 1;

  if (head.originalVersion < 3) {
    // The header as migrated (the head was parsed as a file of its own); the entries are parsed
    // and migrated when asked for, here or on the import thread.
    return {
      ok: true,
      source: {
        header: head.header,
        headerLine,
        headerJson: JSON.stringify(head.header),
        originalVersion: head.originalVersion,
        migrated: true,
        headMalformed: head.malformed,
        chunks: () => [migratedChunk(buffer)],
        body: null,
      },
    };
  }

  const body: SourceBody = {
    buffer,
    start: headEnd,
    firstLine: countNewlines(buffer.subarray(0, headEnd)) + 1,
  };
  return {
    ok: true,
    source: {
      header: head.header,
      headerLine,
      headerJson: lineReader(headText, 1)(headerLine),
      originalVersion: head.originalVersion,
      migrated: false,
      headMalformed: head.malformed,
      *chunks() {
        yield { entries: [], malformed: head.malformed, jsonAt: () => "", storedJsonAt: () => "" };
        yield* bodyChunks(body.buffer, body.start, body.firstLine);
      },
      body,
    },
  };
}
