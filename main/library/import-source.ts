/**
 * A session file as a stream of parsed chunks. v3 files (nearly all) are parsed a few MB at a
 * time, so entry objects die young and a 100k-entry file never sits in memory as objects;
 * v1/v2 files need the whole list to migrate and come as one chunk.
 */
import type { SessionHeader } from "../../core/session/entries.ts";
import {
  type MalformedLine,
  type ParsedEntryLine,
  parseSessionText,
  visitEntryLines,
} from "../../core/session/jsonl.ts";
import { lineReader } from "./import-state.ts";

export interface Chunk {
  entries: ParsedEntryLine[];
  malformed: MalformedLine[];
  /** The JSON text to store for `entries[index]`. */
  jsonAt(index: number): string;
}

export interface SessionSource {
  header: SessionHeader;
  headerLine: number;
  /** What the header line is stored as: verbatim for v3, the migrated header otherwise. */
  headerJson: string;
  originalVersion: number;
  migrated: boolean;
  chunks(): Iterable<Chunk>;
}

export type OpenedSource = { ok: true; source: SessionSource } | { ok: false; reason: string };

const CHUNK_CHARS = 4 * 1024 * 1024;

/** Character offset just past the first non-blank line that is valid JSON (0 if none). */
function endOfFirstJsonLine(text: string): number {
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl + 1;
    const raw = text.slice(start, nl === -1 ? text.length : nl);
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

function countNewlinesIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

export function openSource(text: string): OpenedSource {
  const headEnd = endOfFirstJsonLine(text);
  const head = parseSessionText(headEnd === 0 ? text : text.slice(0, headEnd));
  if (head.header === null) return { ok: false, reason: head.notASessionReason ?? "not a session file" };
  const headerLine = head.headerLine ?? 1;
  const rawHeader = lineReader(text.slice(0, headEnd), 1)(headerLine);

  if (head.originalVersion < 3) {
    // Migration assigns ids along the whole file: parse it in one go.
    const full = parseSessionText(text);
    const header = full.header ?? head.header;
    return {
      ok: true,
      source: {
        header,
        headerLine,
        headerJson: JSON.stringify(header),
        originalVersion: full.originalVersion,
        migrated: full.migrated,
        chunks: () => [
          {
            entries: full.entries,
            malformed: full.malformed,
            jsonAt: (i) => JSON.stringify(full.entries[i]?.entry),
          },
        ],
      },
    };
  }

  const header = head.header;
  function* chunks(): Generator<Chunk> {
    // Lines before the header that were not JSON.
    yield { entries: [], malformed: head.malformed, jsonAt: () => "" };
    let pos = headEnd;
    let line = countNewlinesIn(text.slice(0, headEnd)) + 1;
    while (pos < text.length) {
      const cut = text.indexOf("\n", Math.min(pos + CHUNK_CHARS, text.length) - 1);
      const end = cut === -1 ? text.length : cut + 1;
      const part = text.slice(pos, end);
      const entries: ParsedEntryLine[] = [];
      const raws: string[] = [];
      const malformed: MalformedLine[] = [];
      // The raw line is what gets stored (verbatim): kept from the parse, not split out again.
      visitEntryLines(part, line, {
        entry(entry, at, raw) {
          entries.push({ line: at, entry });
          raws.push(raw);
        },
        malformed: (m) => malformed.push(m),
      });
      yield { entries, malformed, jsonAt: (i) => raws[i] as string };
      line += countNewlinesIn(part);
      pos = end;
    }
  }
  return {
    ok: true,
    source: {
      header,
      headerLine,
      headerJson: rawHeader,
      originalVersion: head.originalVersion,
      migrated: false,
      chunks,
    },
  };
}
