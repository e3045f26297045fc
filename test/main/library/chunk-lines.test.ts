// visitChunkEntries splits a chunk's lines from its bytes and decodes each line on its own: it
// must hand over exactly what visitEntryLines gives for the decoded text (entries, raw lines, line
// numbers, malformed lines), with each entry line's byte range, whatever the line endings.
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { type MalformedLine, visitEntryLines } from "../../../core/session/jsonl.ts";
import { type ChunkRange, isUtf8Chunk, visitChunkEntries } from "../../../main/library/import-source.ts";

interface Seen {
  entries: { entry: SessionEntry; line: number; raw: string }[];
  malformed: MalformedLine[];
}

function visitor(seen: Seen) {
  return {
    entry: (entry: SessionEntry, line: number, raw: string) => seen.entries.push({ entry, line, raw }),
    malformed: (m: MalformedLine) => seen.malformed.push(m),
  };
}

function fromBytes(buffer: Buffer, chunk: ChunkRange) {
  const seen: Seen = { entries: [], malformed: [] };
  const ranges = visitChunkEntries(buffer, chunk, isUtf8Chunk(buffer, chunk), visitor(seen));
  return { seen, ranges };
}

function fromText(buffer: Buffer, chunk: ChunkRange): Seen {
  const seen: Seen = { entries: [], malformed: [] };
  visitEntryLines(buffer.toString("utf8", chunk.start, chunk.end), chunk.firstLine, visitor(seen));
  return seen;
}

const entry = (id: string, text: string) =>
  JSON.stringify({ type: "message", id, parentId: null, message: { role: "user", content: text } });

describe("visitChunkEntries", () => {
  it("gives what visitEntryLines gives for the decoded text, with each entry line's bytes (CRLF, blank and odd lines)", () => {
    const text = [
      entry("a", "plain ascii"),
      "",
      "   \t",
      "\u00a0\u3000",
      entry("b", "naïve café 日本語 🌲"),
      "{not json",
      "[1,2]",
      JSON.stringify({ type: "session", id: "again" }),
      `${entry("c", "crlf line")}\r`,
      "\r",
      entry("d", "no newline at the end"),
    ].join("\n");
    const buffer = Buffer.concat([Buffer.from("junk before\n"), Buffer.from(text)]);
    const chunk: ChunkRange = { start: 12, end: buffer.length, firstLine: 2 };
    const { seen, ranges } = fromBytes(buffer, chunk);
    expect(seen).toEqual(fromText(buffer, chunk));
    expect(seen.entries.map((e) => [e.entry.id, e.line])).toEqual([
      ["a", 2],
      ["b", 6],
      ["c", 10],
      ["d", 12],
    ]);
    expect(seen.malformed.map((m) => m.line)).toEqual([7, 8, 9]);
    expect(ranges).not.toBeNull();
    const lines = seen.entries.map((_, i) =>
      buffer.toString("utf8", ranges?.[2 * i] as number, ranges?.[2 * i + 1] as number),
    );
    // Each range is the line without its "\n" or the "\r" before it: the raw line, as bytes.
    expect(lines).toEqual(seen.entries.map((e) => e.raw));
    expect(lines[2]?.endsWith("}")).toBe(true);
  });

  it("a chunk ending inside the buffer stops at its end", () => {
    const buffer = Buffer.from(`${entry("a", "x")}\n${entry("b", "y")}\n${entry("c", "z")}\n`);
    const end = buffer.indexOf("\n", buffer.indexOf("\n") + 1) + 1;
    const { seen, ranges } = fromBytes(buffer, { start: 0, end, firstLine: 5 });
    expect(seen.entries.map((e) => [e.entry.id, e.line])).toEqual([
      ["a", 5],
      ["b", 6],
    ]);
    expect(ranges?.length).toBe(4);
  });

  it("a chunk that is not valid UTF-8 is decoded as a whole (U+FFFD) and has no byte ranges", () => {
    const good = Buffer.from(`${entry("a", "fine")}\n`);
    const bad = Buffer.from(entry("b", "broken here"));
    const cut = bad.indexOf("broken") + 3;
    const buffer = Buffer.concat([
      good,
      bad.subarray(0, cut),
      Buffer.from([0xff, 0xe2, 0x82]),
      bad.subarray(cut),
    ]);
    const chunk: ChunkRange = { start: 0, end: buffer.length, firstLine: 1 };
    expect(isUtf8Chunk(buffer, chunk)).toBe(false);
    const { seen, ranges } = fromBytes(buffer, chunk);
    expect(ranges).toBeNull();
    expect(seen).toEqual(fromText(buffer, chunk));
    expect(seen.entries[1]?.raw).toContain("\ufffd");
  });
});
