/**
 * JSONL codec for agent session files (SPEC §1.2, §1.8, D2): lenient line parsing that never
 * loses a line (malformed lines are returned verbatim with their line number), header
 * detection, and v1→v2→v3 migration with deterministic ids so re-importing gives the same ids.
 */
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./entries.ts";
import { toJson } from "../text/json-deep.ts";

export interface ParsedEntryLine {
  /** 1-based physical line number in the file. */
  line: number;
  entry: SessionEntry;
  /**
   * The migrated entry's JSON text, when SessionMigrator was given the raw line and could write it
   * from that (the line as it was, or with the `id` and `parentId` it assigned appended) instead
   * of re-serialising `entry`. Same JSON value as `JSON.stringify(entry)`; absent otherwise.
   */
  json?: string;
}

/** A line that could not be used as an entry, kept verbatim (D2). */
export interface MalformedLine {
  line: number;
  raw: string;
  error: string;
}

export interface ParsedSessionFile {
  /** null → not a session (the caller reports and skips the file). */
  header: SessionHeader | null;
  headerLine: number | null;
  /** One-line human reason when header is null. */
  notASessionReason: string | null;
  /** After migration to v3, in file order. */
  entries: ParsedEntryLine[];
  /** Unparseable lines and lines that are JSON but not objects with a string `type`. */
  malformed: MalformedLine[];
  /** Header version before migration (absent → 1). */
  originalVersion: number;
  migrated: boolean;
}

type JsonObject = { [key: string]: unknown };

type LineResult =
  | { kind: "object"; line: number; raw: string; value: JsonObject & { type: string } }
  | { kind: "invalid"; malformed: MalformedLine }
  | { kind: "malformed"; malformed: MalformedLine };

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Splits text into physical lines and calls `visit` for every non-blank one (a trailing "\r"
 * is stripped). `visit` returns false to stop early.
 */
function forEachLine(text: string, firstLine: number, visit: (raw: string, line: number) => boolean): void {
  let start = 0;
  let line = firstLine;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    let raw = text.slice(start, end);
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    // A regex test stops at the first non-blank char: no copy of a huge line.
    if (/\S/.test(raw) && !visit(raw, line)) return;
    start = end + 1;
    line++;
  }
}

function parseLine(raw: string, line: number): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { kind: "invalid", malformed: { line, raw, error: `invalid JSON: ${errorText(error)}` } };
  }
  if (!isJsonObject(value)) {
    const what = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
    return { kind: "malformed", malformed: { line, raw, error: `not a JSON object (${what})` } };
  }
  if (typeof value.type !== "string") {
    return { kind: "malformed", malformed: { line, raw, error: 'object has no string "type"' } };
  }
  return { kind: "object", line, raw, value: value as JsonObject & { type: string } };
}

function isHeader(value: JsonObject): boolean {
  return value.type === "session" && typeof value.id === "string";
}

/**
 * The header's version (SPEC §1.8: absent → 1). A number written as text ("3") is that number, as
 * the agents' comparisons (`version < 3`) read it: taken as absent, a v3 file was migrated as v1,
 * its ids replaced and its branches made one chain.
 */
function versionOf(header: SessionHeader): number {
  const version: unknown = header.version;
  if (typeof version === "number") return version;
  if (typeof version === "string" && version.trim() !== "" && Number.isFinite(Number(version))) return Number(version);
  return 1;
}

function notASession(reason: string): ParsedSessionFile {
  return {
    header: null,
    headerLine: null,
    notASessionReason: reason,
    entries: [],
    malformed: [],
    originalVersion: 1,
    migrated: false,
  };
}

/**
 * Parse a whole session file. Never throws, whatever the input. The first line that is valid
 * JSON must be a header (`type: "session"`, string `id`); invalid-JSON lines before it are kept
 * as malformed lines (the anchor skips them too).
 */
export function parseSessionText(text: string): ParsedSessionFile {
  let header: SessionHeader | null = null;
  let headerLine: number | null = null;
  let reason: string | null = null;
  let sawLine = false;
  const entries: ParsedEntryLine[] = [];
  const malformed: MalformedLine[] = [];

  forEachLine(text, 1, (raw, line) => {
    sawLine = true;
    const result = parseLine(raw, line);
    if (header === null) {
      if (result.kind === "invalid") {
        malformed.push(result.malformed);
        return true;
      }
      if (result.kind === "malformed" || !isHeader(result.value)) {
        reason = `line ${line} is not a session header`;
        return false;
      }
      header = result.value as SessionHeader;
      headerLine = line;
      return true;
    }
    if (result.kind !== "object") malformed.push(result.malformed);
    else if (result.value.type === "session") {
      malformed.push({ line, raw, error: "unexpected second session header" });
    } else entries.push({ line, entry: result.value as unknown as SessionEntry });
    return true;
  });

  if (!sawLine) return notASession("empty file");
  if (header === null) return notASession(reason ?? "no line of the file is valid JSON");
  const found: SessionHeader = header;
  const originalVersion = versionOf(found);
  const base = { headerLine, notASessionReason: null, malformed, originalVersion };
  if (originalVersion >= CURRENT_SESSION_VERSION) {
    return { ...base, header: found, entries, migrated: false };
  }
  const migrated = migrateToV3(found, entries);
  return { ...base, header: migrated.header, entries: migrated.entries, migrated: true };
}

/** Receives the lines of {@link visitEntryLines}: entries with their raw text, or malformed lines. */
export interface EntryLineVisitor {
  entry(entry: SessionEntry, line: number, raw: string): void;
  malformed(malformed: MalformedLine): void;
}

/**
 * Parses the lines of a v3 file after its header (no header expected), handing each entry over
 * with its raw line ("\r" stripped) so a caller can store it verbatim without splitting again.
 */
export function visitEntryLines(text: string, firstLine: number, visitor: EntryLineVisitor): void {
  forEachLine(text, firstLine, (raw, line) => {
    visitNonBlankLine(raw, line, visitor);
    return true;
  });
}

/**
 * One line of a v3 file after its header ("\r" already stripped), as visitEntryLines hands it
 * over; blank lines are skipped. Returns whether it was an entry. For callers that split lines
 * themselves (e.g. from bytes).
 */
export function visitEntryLine(raw: string, line: number, visitor: EntryLineVisitor): boolean {
  return /\S/.test(raw) && visitNonBlankLine(raw, line, visitor);
}

function visitNonBlankLine(raw: string, line: number, visitor: EntryLineVisitor): boolean {
  const result = parseLine(raw, line);
  if (result.kind !== "object") visitor.malformed(result.malformed);
  else if (result.value.type === "session") {
    visitor.malformed({ line, raw, error: "unexpected second session header" });
  } else {
    visitor.entry(result.value as unknown as SessionEntry, line, raw);
    return true;
  }
  return false;
}

/** Parse appended lines of an already-imported v3 file (no header expected). */
export function parseEntryLines(
  text: string,
  firstLine: number,
): { entries: ParsedEntryLine[]; malformed: MalformedLine[] } {
  const entries: ParsedEntryLine[] = [];
  const malformed: MalformedLine[] = [];
  visitEntryLines(text, firstLine, {
    entry: (entry, line) => entries.push({ line, entry }),
    malformed: (m) => malformed.push(m),
  });
  return { entries, malformed };
}

// ── migration ────────────────────────────────────────────────────────────────

/** 32-bit FNV-1a over UTF-16 code units, as 8 lowercase hex chars. */
function fnv1a(input: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < input.length; i++) {
    hash ^= input.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** Deterministic 8-hex id for the entry at `line` of session `sessionId`, unique within `used`. */
export function deterministicEntryId(sessionId: string, line: number, used: Set<string>): string {
  for (let salt = 0; ; salt++) {
    const id = fnv1a(salt === 0 ? `${sessionId}:${line}` : `${sessionId}:${line}:${salt}`);
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

/**
 * v1→v2 (ids, linear chain, firstKeptEntryIndex → firstKeptEntryId) and v2→v3 (role
 * hookMessage → custom). Returns new objects; the inputs are not modified. A v3 header is
 * returned untouched together with the same entries. (An import, which stores each entry's
 * JSON, migrates with SessionMigrator and the raw lines instead: see ParsedEntryLine.json.)
 */
export function migrateToV3(
  header: SessionHeader,
  entries: ParsedEntryLine[],
): { header: SessionHeader; entries: ParsedEntryLine[] } {
  const version = versionOf(header);
  if (version >= CURRENT_SESSION_VERSION) return { header, entries };
  const migrator = new SessionMigrator(header.id, version);
  const out: ParsedEntryLine[] = [];
  for (const item of entries) for (const done of migrator.push(item)) out.push(done);
  for (const done of migrator.finish()) out.push(done);
  return { header: { ...header, version: CURRENT_SESSION_VERSION }, entries: out };
}

/**
 * Migrates the entries of a v1/v2 file to v3 as they are read, in file order (see migrateToV3):
 * ids are drawn line by line and a compaction's firstKeptEntryIndex names an entry before it, so
 * entries come out while the file is still being parsed. An index that points ahead holds its
 * entry (and those after it, to keep the order) back until that entry is seen or the file ends.
 */
export class SessionMigrator {
  private readonly sessionId: string;
  private readonly version: number;
  private readonly used = new Set<string>();
  /** Ids drawn so far (v1), by entry index. */
  private readonly ids: string[] = [];
  /** Migrated entries waiting for the id their firstKeptEntryIndex names. */
  private readonly held: { item: ParsedEntryLine; target: number | null }[] = [];

  /** `version`: the file's header version (below 3). */
  constructor(sessionId: string, version: number) {
    this.sessionId = sessionId;
    this.version = version;
  }

  /**
   * Takes the next entry, with its raw line when its JSON text is wanted (ParsedEntryLine.json);
   * returns the entries migrated now, in file order.
   */
  push(item: ParsedEntryLine, raw?: string): ParsedEntryLine[] {
    if (this.version >= 2) return [this.toV3({ line: item.line, entry: item.entry, json: raw })];
    const source = item.entry as unknown as JsonObject;
    const id = deterministicEntryId(this.sessionId, item.line, this.used);
    const parentId = this.ids.at(-1) ?? null;
    this.ids.push(id);
    const next: JsonObject = { ...source, id, parentId };
    let target: number | null = null;
    const hasIndex = source.type === "compaction" && "firstKeptEntryIndex" in source;
    // An id of its own is overwritten, an index replaced: the line is written anew.
    const rewritten = hasIndex || "id" in source || "parentId" in source;
    if (hasIndex) {
      const index = source.firstKeptEntryIndex;
      // The index counts the header as element 0 (SPEC §1.8); the header itself is no target.
      if (typeof index === "number" && Number.isInteger(index) && index >= 1) target = index - 1;
      delete next.firstKeptEntryIndex;
    }
    const json =
      rewritten || raw === undefined ? undefined : withMembersAppended(raw, appendedIdsText(id, parentId));
    this.held.push({ item: { line: item.line, entry: next as unknown as SessionEntry, json }, target });
    return this.release(false);
  }

  /** The entries still held back (an index beyond the last entry leaves firstKeptEntryId unset). */
  finish(): ParsedEntryLine[] {
    return this.release(true);
  }

  /** Held entries whose target id is known (all of them at the end), in order. */
  private release(all: boolean): ParsedEntryLine[] {
    let n = 0;
    while (n < this.held.length) {
      const { target } = this.held[n] as (typeof this.held)[number];
      if (!all && target !== null && target >= this.ids.length) break;
      n++;
    }
    return this.held.splice(0, n).map(({ item, target }) => {
      const targetId = target === null ? undefined : this.ids[target];
      if (targetId !== undefined) (item.entry as unknown as JsonObject).firstKeptEntryId = targetId;
      return this.toV3(item);
    });
  }

  /** v2→v3: a changed role is a change inside the line, so its text is written anew. */
  private toV3(item: ParsedEntryLine): ParsedEntryLine {
    const entry = migrateV2EntryToV3(item.entry);
    if (entry !== item.entry) return { line: item.line, entry };
    return item.json === undefined ? { line: item.line, entry } : item;
  }
}

/**
 * The members v1→v2 migration appends to an entry's line, before its closing brace (with the
 * leading comma): `,"id":…,"parentId":…`.
 */
export function appendedIdsText(id: string, parentId: string | null): string {
  return `,"id":${toJson(id)},"parentId":${toJson(parentId)}`;
}

/** A JSON object's text with `members` (see {@link appendedIdsText}) put after its last member. */
function withMembersAppended(objectText: string, members: string): string {
  return `${objectText.slice(0, objectText.lastIndexOf("}"))}${members}}`;
}

function migrateV2EntryToV3(entry: SessionEntry): SessionEntry {
  if (entry.type !== "message") return entry;
  const message = (entry as { message?: unknown }).message;
  if (!isJsonObject(message) || message.role !== "hookMessage") return entry;
  return { ...entry, message: { ...message, role: "custom" } } as SessionEntry;
}

/** JSONL text of a header and its entries (one object per line, trailing newline). */
export function serializeSession(header: SessionHeader, entries: readonly SessionEntry[]): string {
  const lines = [toJson(header)];
  for (const entry of entries) lines.push(toJson(entry));
  return `${lines.join("\n")}\n`;
}
