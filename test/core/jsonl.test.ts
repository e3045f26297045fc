// File format and migration: SPEC §1.2, §1.8, behaviours 1–7, D1, D2.
import { describe, expect, it } from "vitest";
import { buildSessionContext } from "../../core/session/context.ts";
import type { SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import {
  deterministicEntryId,
  migrateToV3,
  type ParsedEntryLine,
  parseEntryLines,
  parseSessionText,
  SessionMigrator,
  serializeSession,
} from "../../core/session/jsonl.ts";
import { convertToLlm } from "../../core/session/llm-messages.ts";
import { plainTemplates } from "./_builders.ts";

const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const V1_HEADER = '{"type":"session","id":"v1-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const MSG = (id: string, parent: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: parent,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  });
const V1_MSG = (text: string) =>
  JSON.stringify({
    type: "message",
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  });

describe("parsing (SPEC §1.2)", () => {
  it("B1: missing/empty file, a non-header first line or only `not json` give no entries", () => {
    // A missing file is read as empty text by the caller; core sees "".
    for (const text of ["", "\n\n", '{"type":"message","id":"1"}\n', "not json\n", "not json"]) {
      const parsed = parseSessionText(text);
      expect(parsed.header).toBeNull();
      expect(parsed.entries).toEqual([]);
      expect(parsed.notASessionReason).toMatch(/\S/);
    }
    expect(parseSessionText("").notASessionReason).toBe("empty file");
    expect(parseSessionText('{"type":"message","id":"1"}').notASessionReason).toBe(
      "line 1 is not a session header",
    );
  });

  it("B2: header, malformed line, valid message → header + one entry; the bad line is kept", () => {
    const parsed = parseSessionText(`${HEADER}\n{broken\n${MSG("a", null, "hi")}\n`);
    expect(parsed.header?.id).toBe("s1");
    expect(parsed.headerLine).toBe(1);
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.entries[0]).toMatchObject({ line: 3, entry: { id: "a" } });
    expect(parsed.malformed).toHaveLength(1);
    expect(parsed.malformed[0]).toMatchObject({ line: 2, raw: "{broken" });
    expect(parsed.malformed[0]?.error).toMatch(/invalid JSON/);
  });

  it("keeps line numbers across blank lines and CRLF endings", () => {
    const parsed = parseSessionText(`${HEADER}\r\n\r\n${MSG("a", null, "x")}\r\n\n${MSG("b", "a", "y")}`);
    expect(parsed.entries.map((e) => e.line)).toEqual([3, 5]);
    expect(parsed.malformed).toEqual([]);
  });

  it("JSON that is not an object with a string type is malformed, not an entry", () => {
    const parsed = parseSessionText(
      `${HEADER}\n42\n[1,2]\nnull\n{"id":"x"}\n{"type":7}\n${MSG("a", null, "x")}`,
    );
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.malformed.map((m) => m.line)).toEqual([2, 3, 4, 5, 6]);
    expect(parsed.malformed[0]?.error).toMatch(/not a JSON object/);
    expect(parsed.malformed[3]?.error).toMatch(/type/);
  });

  it("invalid lines before the header are kept; a second header line is malformed", () => {
    const parsed = parseSessionText(`garbage\n${HEADER}\n${MSG("a", null, "x")}\n${HEADER}\n`);
    expect(parsed.headerLine).toBe(2);
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.malformed.map((m) => [m.line, m.error])).toEqual([
      [1, expect.stringMatching(/invalid JSON/)],
      [4, "unexpected second session header"],
    ]);
  });

  it("parseEntryLines numbers appended lines from firstLine and keeps bad ones", () => {
    const result = parseEntryLines(`${MSG("c", "b", "x")}\n\nnope\n${MSG("d", "c", "y")}`, 10);
    expect(result.entries.map((e) => [e.line, e.entry.id])).toEqual([
      [10, "c"],
      [13, "d"],
    ]);
    expect(result.malformed).toMatchObject([{ line: 12, raw: "nope" }]);
  });
});

describe("migration (SPEC §1.8)", () => {
  it("B3: v1 list → version 3, 8-char ids, a single chain", () => {
    const parsed = parseSessionText(`${V1_HEADER}\n${V1_MSG("one")}\n${V1_MSG("two")}\n`);
    expect(parsed.header?.version).toBe(3);
    expect(parsed.originalVersion).toBe(1);
    expect(parsed.migrated).toBe(true);
    const [first, second] = parsed.entries.map((e) => e.entry);
    expect(first?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(second?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(first?.parentId).toBeNull();
    expect(second?.parentId).toBe(first?.id);
  });

  it("B4: a v2 list keeps its ids and parents", () => {
    const header = { type: "session", version: 2, id: "s", timestamp: "t", cwd: "/" } as SessionHeader;
    const entries = [
      { line: 2, entry: JSON.parse(MSG("aaaa0001", null, "x")) as SessionEntry },
      { line: 3, entry: JSON.parse(MSG("aaaa0002", "aaaa0001", "y")) as SessionEntry },
    ];
    const migrated = migrateToV3(header, entries);
    expect(migrated.header.version).toBe(3);
    expect(migrated.entries.map((e) => [e.entry.id, e.entry.parentId])).toEqual([
      ["aaaa0001", null],
      ["aaaa0002", "aaaa0001"],
    ]);
    const text = `${JSON.stringify(header)}\n${MSG("aaaa0001", null, "x")}\n${MSG("aaaa0002", "aaaa0001", "y")}`;
    expect(parseSessionText(text).entries.map((e) => e.entry.id)).toEqual(["aaaa0001", "aaaa0002"]);
  });

  it('a version written as text ("3") is that version: a branched v3 file keeps its ids and parents', () => {
    const header = { type: "session", version: "3", id: "s", timestamp: "t", cwd: "/" };
    const lines = [
      JSON.stringify(header),
      MSG("aaaa0001", null, "x"),
      MSG("aaaa0002", "aaaa0001", "y"),
      MSG("aaaa0003", "aaaa0001", "z"),
    ];
    const parsed = parseSessionText(`${lines.join("\n")}\n`);
    expect(parsed.originalVersion).toBe(3);
    expect(parsed.migrated).toBe(false);
    expect(parsed.entries.map((e) => [e.entry.id, e.entry.parentId])).toEqual([
      ["aaaa0001", null],
      ["aaaa0002", "aaaa0001"],
      ["aaaa0003", "aaaa0001"],
    ]);
    const v2 = parseSessionText(
      `${JSON.stringify({ ...header, version: " 2 " })}\n${MSG("aaaa0001", null, "x")}\n`,
    );
    expect(v2.originalVersion).toBe(2);
    expect(v2.entries[0]?.entry.id).toBe("aaaa0001");
  });

  it("B5: v1 firstKeptEntryIndex 2 in [header, m1, m2, compaction] → firstKeptEntryId of m2", () => {
    const compactionLine = JSON.stringify({
      type: "compaction",
      timestamp: "2026-01-01T00:00:03.000Z",
      summary: "s",
      firstKeptEntryIndex: 2,
      tokensBefore: 5,
    });
    const parsed = parseSessionText(`${V1_HEADER}\n${V1_MSG("m1")}\n${V1_MSG("m2")}\n${compactionLine}\n`);
    const [, m2, compaction] = parsed.entries.map((e) => e.entry);
    expect(compaction?.firstKeptEntryId).toBe(m2?.id);
    expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
  });

  it("an index pointing at the header or outside the list leaves firstKeptEntryId unset", () => {
    for (const index of [0, 99, -1, 1.5]) {
      const line = JSON.stringify({
        type: "compaction",
        timestamp: "t",
        summary: "s",
        firstKeptEntryIndex: index,
      });
      const parsed = parseSessionText(`${V1_HEADER}\n${V1_MSG("m1")}\n${line}\n`);
      const compaction = parsed.entries[1]?.entry;
      expect(compaction).not.toHaveProperty("firstKeptEntryId");
      expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
    }
  });

  it("B6: v2 hookMessage role becomes custom and reaches the model as a user message", () => {
    const header = '{"type":"session","version":2,"id":"s","timestamp":"t","cwd":"/"}';
    const hook = JSON.stringify({
      type: "message",
      id: "h1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "hookMessage", customType: "x", content: "hook text", display: true, timestamp: 7 },
    });
    const parsed = parseSessionText(`${header}\n${hook}\n`);
    const entries = parsed.entries.map((e) => e.entry);
    expect((entries[0] as { message: { role: string } }).message.role).toBe("custom");
    const llm = convertToLlm(buildSessionContext(entries).messages, plainTemplates);
    expect(llm).toEqual([{ role: "user", content: [{ type: "text", text: "hook text" }], timestamp: 7 }]);
  });

  it("B7: a legacy model_change with provider/modelId adds nothing to models", () => {
    const entries = [
      { type: "model_change", id: "m", parentId: null, timestamp: "t", provider: "openai", modelId: "gpt-4" },
    ] as SessionEntry[];
    const context = buildSessionContext(entries);
    expect(context.models).toEqual({});
    // pi's own view of the same entry (Canopy shows both).
    expect(context.model).toEqual({ provider: "openai", modelId: "gpt-4" });
  });

  it("a v3 file is untouched (same objects) and migration does not modify its input", () => {
    const text = `${HEADER}\n${MSG("a", null, "x")}\n`;
    const parsed = parseSessionText(text);
    expect(parsed.migrated).toBe(false);
    const header = JSON.parse(V1_HEADER) as SessionHeader;
    const input = [{ line: 2, entry: JSON.parse(V1_MSG("x")) as SessionEntry }];
    const snapshot = JSON.stringify(input);
    migrateToV3(header, input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(header.version).toBeUndefined();
  });
});

describe("SessionMigrator: migration as the lines are read", () => {
  /** The entries of a v1/v2 file's `text`, migrated line by line with their raw lines, as an import does. */
  function migratedWithRaws(text: string): ParsedEntryLine[] {
    const [head = "", ...lines] = text.split("\n");
    const header = JSON.parse(head) as SessionHeader;
    const migrator = new SessionMigrator(header.id, typeof header.version === "number" ? header.version : 1);
    const out: ParsedEntryLine[] = [];
    lines.forEach((raw, i) => {
      out.push(...migrator.push({ line: i + 2, entry: JSON.parse(raw) as SessionEntry }, raw));
    });
    return [...out, ...migrator.finish()];
  }

  it("a migrated entry's json text is its raw line with the new keys appended, and the same value", () => {
    const spaced =
      '{ "type": "message", "timestamp": "t", "message": { "role": "user", "content": "é\\u00e9" } }  ';
    const withId = JSON.stringify({ type: "custom", id: "mine", customType: "x" });
    const compaction = JSON.stringify({
      type: "compaction",
      summary: "s",
      firstKeptEntryIndex: 1,
      tokensBefore: 1,
    });
    const text = [V1_HEADER, spaced, withId, compaction].join("\n");
    const migrated = migratedWithRaws(text);
    const [first, second, third] = migrated;
    expect(first?.json?.startsWith('{ "type": "message", "timestamp": "t"')).toBe(true);
    expect(first?.json?.endsWith(`,"id":"${first?.entry.id}","parentId":null}`)).toBe(true);
    // An entry that had an id of its own, and a compaction whose index became an id, are rewritten.
    expect(second?.json).toBeUndefined();
    expect(third?.json).toBeUndefined();
    for (const item of migrated)
      expect(JSON.parse(item.json ?? JSON.stringify(item.entry))).toEqual(item.entry);
    // The same entries as migrating the parsed file.
    expect(migrated.map((e) => e.entry)).toEqual(parseSessionText(text).entries.map((e) => e.entry));

    const v2 = `{"type":"session","version":2,"id":"s2","timestamp":"t","cwd":"/"}\n${MSG("aaaa0001", null, "x")}\n${JSON.stringify(
      {
        type: "message",
        id: "aaaa0002",
        parentId: "aaaa0001",
        message: { role: "hookMessage", content: "h" },
      },
    )}`;
    const [kept, hook] = migratedWithRaws(v2);
    expect(kept?.json).toBe(MSG("aaaa0001", null, "x"));
    expect(hook?.json).toBeUndefined();
    expect(parseSessionText(`${HEADER}\n${MSG("a", null, "x")}`).entries[0]?.json).toBeUndefined();
  });

  const entry = (o: object) => JSON.parse(JSON.stringify(o)) as SessionEntry;
  const items = [
    { line: 2, entry: entry({ type: "message", message: { role: "user", content: "a" } }) },
    // Points ahead (at the entry on line 5): held back, with the entry after it, until line 5 is in.
    { line: 3, entry: entry({ type: "compaction", summary: "s", firstKeptEntryIndex: 4, tokensBefore: 1 }) },
    { line: 4, entry: entry({ type: "message", message: { role: "user", content: "b" } }) },
    { line: 5, entry: entry({ type: "message", message: { role: "user", content: "c" } }) },
    { line: 6, entry: entry({ type: "compaction", summary: "t", firstKeptEntryIndex: 99, tokensBefore: 1 }) },
  ];

  it("gives what migrating the whole list gives, each entry as soon as the ids it names are drawn", () => {
    const migrator = new SessionMigrator("sess", 1);
    const out = items.map((item) => migrator.push(item).map((e) => e.line));
    expect(out).toEqual([[2], [], [], [3, 4, 5], []]);
    const last = migrator.finish();
    expect(last.map((e) => e.line)).toEqual([6]);
    expect("firstKeptEntryId" in (last[0]?.entry ?? {})).toBe(false);

    const header = { type: "session", id: "sess", timestamp: "t", cwd: "/" } as SessionHeader;
    const whole = migrateToV3(header, items).entries;
    const again = new SessionMigrator("sess", 1);
    const streamed = [...items.flatMap((item) => again.push(item)), ...again.finish()];
    expect(streamed).toEqual(whole);
    expect(whole[1]?.entry).toMatchObject({ type: "compaction", firstKeptEntryId: whole[3]?.entry.id });
  });
});

describe("D1: both dialects, unknown data kept verbatim", () => {
  it("unknown entry types and unknown fields survive parsing and serialization unchanged", () => {
    const unknown =
      '{"type":"future_thing","id":"u1","parentId":"a","timestamp":"t","payload":{"deep":[1,2]}}';
    const extraField =
      '{"type":"message","id":"b","parentId":"u1","timestamp":"t","newField":true,"message":{"role":"user","content":"x","timestamp":1,"extra":"y"}}';
    const omp =
      '{"type":"model_change","id":"c","parentId":"b","timestamp":"t","model":"openai/gpt-5","role":"smol"}';
    const text = `${HEADER}\n${MSG("a", null, "hi")}\n${unknown}\n${extraField}\n${omp}\n`;
    const parsed = parseSessionText(text);
    expect(parsed.entries.map((e) => e.entry)).toEqual(
      text
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => JSON.parse(l)),
    );
    if (!parsed.header) throw new Error("header expected");
    expect(
      serializeSession(
        parsed.header,
        parsed.entries.map((e) => e.entry),
      ),
    ).toBe(text);
    const context = buildSessionContext(parsed.entries.map((e) => e.entry));
    expect(context.models).toEqual({ smol: "openai/gpt-5" });
    expect(context.messageEntryIds).toEqual(["a", "b"]);
  });
});

describe("D2: deterministic migration, nothing lost", () => {
  it("re-parsing a v1 file gives identical ids; different sessions give different ids", () => {
    const text = `${V1_HEADER}\n${V1_MSG("a")}\n${V1_MSG("b")}\n${V1_MSG("c")}\n`;
    const ids = (t: string) => parseSessionText(t).entries.map((e) => e.entry.id);
    expect(ids(text)).toEqual(ids(text));
    expect(ids(text.replace("v1-session", "other"))).not.toEqual(ids(text));
  });

  it("the collision check re-draws an id that is already used", () => {
    const used = new Set<string>();
    const first = deterministicEntryId("s", 2, used);
    const again = deterministicEntryId("s", 2, used);
    expect(again).not.toBe(first);
    expect(again).toMatch(/^[0-9a-f]{8}$/);
    expect(used).toEqual(new Set([first, again]));
  });

  it("ids stay unique across a v1 file with thousands of entries", () => {
    const lines = [V1_HEADER];
    for (let i = 0; i < 5000; i++) lines.push(V1_MSG(`m${i}`));
    const ids = parseSessionText(lines.join("\n")).entries.map((e) => e.entry.id);
    expect(new Set(ids).size).toBe(5000);
  });
});
