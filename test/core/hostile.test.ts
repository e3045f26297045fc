// Hostile input: nothing throws, every problem is reported, no line is lost (D2, D3).
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../core/compaction/tokens.ts";
import { buildSessionContext } from "../../core/session/context.ts";
import { parseSessionText } from "../../core/session/jsonl.ts";
import { convertToLlm } from "../../core/session/llm-messages.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import { plainTemplates } from "./_builders.ts";

const HEADER = '{"type":"session","version":3,"id":"h","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomText(seed: number, bytes: number): string {
  const next = prng(seed);
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) data[i] = Math.floor(next() * 256);
  return new TextDecoder("utf-8").decode(data);
}

function nonBlankLines(text: string): number {
  return text.split("\n").filter((l) => l.replace(/\r$/, "").trim() !== "").length;
}

/** Every line is the header, an entry or a malformed row. */
function expectNothingLost(text: string): void {
  const parsed = parseSessionText(text);
  expect(parsed.header).not.toBeNull();
  expect(1 + parsed.entries.length + parsed.malformed.length).toBe(nonBlankLines(text));
}

describe("hostile input", () => {
  it("random bytes never throw, as a whole file or after a valid header", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const noise = randomText(seed, 20000);
      expect(() => parseSessionText(noise)).not.toThrow();
      const text = `${HEADER}\n${noise}`;
      expectNothingLost(text);
      const parsed = parseSessionText(text);
      for (const m of parsed.malformed) expect(m.error).toMatch(/\S/);
      const entries = parsed.entries.map((e) => e.entry);
      const index = buildTreeIndex(entries);
      expect(() =>
        convertToLlm(buildSessionContext(entries, undefined, index).messages, plainTemplates),
      ).not.toThrow();
    }
  });

  it("random JSON-shaped objects never break the tree, context, conversion or estimates", () => {
    const next = prng(99);
    const values: unknown[] = [null, 1, "s", [], {}, [{ type: "text" }], { role: "user" }, true, "a", "b"];
    const pick = () => values[Math.floor(next() * values.length)];
    const types = [
      "message",
      "compaction",
      "branch_summary",
      "custom_message",
      "label",
      "model_change",
      "ttsr_injection",
      "mode_change",
      "x",
    ];
    const lines = [HEADER];
    for (let i = 0; i < 2000; i++) {
      lines.push(
        JSON.stringify({
          type: types[Math.floor(next() * types.length)],
          id: next() < 0.9 ? String(Math.floor(next() * 300)) : pick(),
          parentId: next() < 0.8 ? String(Math.floor(next() * 300)) : pick(),
          timestamp: pick(),
          message: next() < 0.5 ? { role: pick(), content: pick(), usage: pick() } : pick(),
          summary: pick(),
          firstKeptEntryId: String(Math.floor(next() * 300)),
          content: pick(),
          targetId: pick(),
          label: pick(),
          injectedRules: pick(),
          model: pick(),
        }),
      );
    }
    const text = lines.join("\n");
    expectNothingLost(text);
    const entries = parseSessionText(text).entries.map((e) => e.entry);
    const index = buildTreeIndex(entries);
    expect(index.problems.length).toBeGreaterThan(0);
    for (const tip of index.tips()) {
      const context = buildSessionContext(entries, tip.id, index);
      const llm = convertToLlm(context.messages, plainTemplates);
      expect(Array.isArray(llm)).toBe(true);
      for (const m of context.messages) expect(Number.isFinite(estimateTokens(m))).toBe(true);
    }
  });

  it("a 50 MB single line parses (as an entry, or as a malformed row when cut)", () => {
    const big = "x".repeat(50 * 1024 * 1024);
    const line = JSON.stringify({
      type: "message",
      id: "big",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: big, timestamp: 1 },
    });
    const parsed = parseSessionText(`${HEADER}\n${line}\n`);
    expect(parsed.entries).toHaveLength(1);
    const only = parsed.entries[0]?.entry as { message?: { content?: string } } | undefined;
    expect(only?.message?.content?.length).toBe(big.length);
    const cut = parseSessionText(`${HEADER}\n${line.slice(0, -10)}`);
    expect(cut.entries).toEqual([]);
    expect(cut.malformed).toHaveLength(1);
    expect(cut.malformed[0]?.line).toBe(2);
    expect(cut.malformed[0]?.raw.length).toBe(line.length - 10);
  });

  it("a truncated last line (no newline) is a malformed row; earlier entries are intact", () => {
    const good =
      '{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}';
    const partial = '{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assi';
    const parsed = parseSessionText(`${HEADER}\n${good}\n${partial}`);
    expect(parsed.entries.map((e) => e.entry.id)).toEqual(["a"]);
    expect(parsed.malformed).toEqual([
      { line: 3, raw: partial, error: expect.stringMatching(/invalid JSON/) },
    ]);
  });

  it("cycles (incl. self-parent), duplicates and unknown types: reported, nothing lost, no loop", () => {
    const lines = [
      HEADER,
      '{"type":"message","id":"a","parentId":"c","timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}',
      '{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"b","timestamp":1}}',
      '{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"user","content":"c","timestamp":1}}',
      '{"type":"message","id":"s","parentId":"s","timestamp":"t","message":{"role":"user","content":"s","timestamp":1}}',
      '{"type":"message","id":"b","parentId":"s","timestamp":"t","message":{"role":"user","content":"b2","timestamp":1}}',
      '{"type":"hologram","id":"h1","parentId":"b","timestamp":"t","data":42}',
    ];
    const text = lines.join("\n");
    expectNothingLost(text);
    const parsed = parseSessionText(text);
    const entries = parsed.entries.map((e) => e.entry);
    const index = buildTreeIndex(entries, { lines: parsed.entries.map((e) => e.line) });
    expect(index.problems.map((p) => [p.kind, p.entryId, p.line])).toEqual([
      ["duplicate_id", "b", 6],
      ["unknown_type", "h1", 7],
      ["cycle", "s", 5],
    ]);
    // With the later "b" winning, a → c → b(s) → s: no cycle left among a, b, c.
    expect(index.pathTo("a").map((e) => e.id)).toEqual(["s", "b", "c", "a"]);
    for (const e of entries) {
      const context = buildSessionContext(entries, e.id, index);
      expect(context.path.length).toBeLessThanOrEqual(entries.length);
    }
    // The unknown entry is on the path but never sent: s, b2.
    const llm = convertToLlm(buildSessionContext(entries, "h1", index).messages, plainTemplates);
    expect(llm.map((m) => m.content)).toEqual(["s", "b2"]);
  });
});
