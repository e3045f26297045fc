// The LLM view Canopy builds for every fixture leaf equals what the pi agent built (D4), and the
// real v1 sessions migrate deterministically.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildSessionContext } from "../../core/session/context.ts";
import { parseSessionText } from "../../core/session/jsonl.ts";
import { convertToLlm } from "../../core/session/llm-messages.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import { contextTemplatesFrom, loadPromptTemplates } from "../../prompts/index.ts";
import { fixturesDir, readExpectedContexts, readFixture, withoutSummaryFraming } from "../helpers/fixtures.ts";

const templates = contextTemplatesFrom(loadPromptTemplates());

function load(name: string) {
  const parsed = parseSessionText(readFixture(name));
  const entries = parsed.entries.map((e) => e.entry);
  return { parsed, entries, index: buildTreeIndex(entries) };
}

const treeFiles = readdirSync(fixturesDir())
  .filter((f) => /^tree-\d+\.jsonl$/.test(f))
  .sort();

describe("fixture LLM views (pi-written expected files)", () => {
  it("finds the tree fixtures", () => {
    expect(treeFiles.length).toBeGreaterThanOrEqual(4);
  });

  for (const file of treeFiles) {
    const tree = file.replace(/\.jsonl$/, "");
    it(`${tree}: every expected leaf gives the same messages, thinking level and model`, () => {
      const { parsed, entries, index } = load(file);
      expect(parsed.header).not.toBeNull();
      expect(parsed.malformed).toEqual([]);
      expect(index.problems).toEqual([]);
      const expected = readExpectedContexts(tree);
      expect(entries.at(-1)?.id).toBe(expected.leaf);
      const leaves = Object.keys(expected.contexts);
      expect(leaves.length).toBeGreaterThan(0);
      for (const leaf of leaves) {
        const want = expected.contexts[leaf];
        if (!want) throw new Error(`no expected context for ${leaf}`);
        const context = buildSessionContext(entries, leaf, index);
        const got = convertToLlm(context.messages, templates);
        expect(got.map(withoutSummaryFraming), `${tree} leaf ${leaf}`).toEqual(
          want.messages.map(withoutSummaryFraming),
        );
        expect(context.thinkingLevel, `${tree} leaf ${leaf} thinking`).toBe(want.thinkingLevel);
        expect(context.model, `${tree} leaf ${leaf} model`).toEqual(want.model);
      }
    });
  }

  it("tree-01.omp.jsonl gives the same LLM view and model as tree-01.jsonl for every leaf", () => {
    const pi = load("tree-01.jsonl");
    const omp = load("tree-01.omp.jsonl");
    expect(omp.parsed.header?.title).toBeTypeOf("string");
    expect(omp.entries.map((e) => e.id)).toEqual(pi.entries.map((e) => e.id));
    for (const tip of pi.index.tips()) {
      const a = buildSessionContext(pi.entries, tip.id, pi.index);
      const b = buildSessionContext(omp.entries, tip.id, omp.index);
      expect(convertToLlm(b.messages, templates)).toEqual(convertToLlm(a.messages, templates));
      expect(b.model).toEqual(a.model);
      expect(b.thinkingLevel).toBe(a.thinkingLevel);
    }
    // The omp dialect's model_change feeds the role map; pi's provider/modelId form does not.
    const first = buildSessionContext(omp.entries, omp.entries[0]?.id, omp.index);
    expect(first.models).toEqual({ default: "anthropic/claude-x" });
    expect(buildSessionContext(pi.entries, pi.entries[0]?.id, pi.index).models).toEqual({});
  });
});

describe("real v1 sessions", () => {
  for (const file of ["real-large-session.v1.jsonl", "real-before-compaction.v1.jsonl"]) {
    it(`${file} parses and migrates to a single chain with unique ids, deterministically`, () => {
      const text = readFixture(file);
      const a = parseSessionText(text);
      const b = parseSessionText(text);
      expect(a.header?.version).toBe(3);
      expect(a.originalVersion).toBe(1);
      expect(a.migrated).toBe(true);
      expect(a.malformed).toEqual([]);
      const ids = a.entries.map((e) => e.entry.id);
      expect(ids).toEqual(b.entries.map((e) => e.entry.id));
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
      a.entries.forEach(({ entry }, i) => {
        expect(entry.parentId).toBe(i === 0 ? null : ids[i - 1]);
        expect(entry).not.toHaveProperty("firstKeptEntryIndex");
      });
      const index = buildTreeIndex(a.entries.map((e) => e.entry));
      expect(index.problems).toEqual([]);
      expect(index.roots).toHaveLength(1);
      expect(index.tips()).toHaveLength(1);
    });
  }

  it("v1 compactions get firstKeptEntryId = the entry at firstKeptEntryIndex (header = index 0)", () => {
    const text = readFixture("real-before-compaction.v1.jsonl");
    const rawLines = text.split("\n");
    const parsed = parseSessionText(text);
    const compactions = parsed.entries.filter((e) => e.entry.type === "compaction");
    expect(compactions).toHaveLength(2);
    for (const { line, entry } of compactions) {
      const original = JSON.parse(rawLines[line - 1] ?? "") as { firstKeptEntryIndex: number };
      // No blank or malformed lines in this file, so index k is physical line k + 1.
      const target = parsed.entries.find((e) => e.line === original.firstKeptEntryIndex + 1);
      expect(target).toBeDefined();
      expect(entry.firstKeptEntryId).toBe(target?.entry.id);
    }
    const entries = parsed.entries.map((e) => e.entry);
    const context = buildSessionContext(entries);
    expect(context.compaction?.id).toBe(compactions[1]?.entry.id);
    expect(context.firstKeptOnPath).toBe(true);
    expect(context.messages[0]?.role).toBe("compactionSummary");
    expect(context.messageEntryIds[1]).toBe(compactions[1]?.entry.firstKeptEntryId);
  });
});
