// loadContextEntries: the partial, path-only load must give exactly the context that
// buildSessionContext computes from every entry, for every leaf of the fixtures.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildSessionContext, type SessionContext } from "../../../core/session/context.ts";
import { convertToLlm } from "../../../core/session/llm-messages.ts";
import { loadContextEntries } from "../../../main/library/context-path.ts";
import { importPath } from "../../../main/library/import.ts";
import { loadSessionEntries, setViewLeaf } from "../../../main/library/load.ts";
import { contextTemplatesFrom, loadPromptTemplates } from "../../../prompts/index.ts";
import { BIG_TEXT_END_MARKER, bigSummarySession } from "../../helpers/big-session.ts";
import { fixturePath, readExpectedContexts, withoutSummaryFraming } from "../../helpers/fixtures.ts";
import { type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

/** Everything but `path`, which is the reduced path for a partial load. */
function comparable(context: SessionContext) {
  const { path, ...rest } = context;
  void path;
  return rest;
}

describe("loadContextEntries", () => {
  const fixtures = [
    "tree-00.jsonl",
    "tree-01.jsonl",
    "tree-01.omp.jsonl",
    "tree-02.jsonl",
    "tree-03.jsonl",
    "real-before-compaction.v1.jsonl",
  ];
  for (const name of fixtures) {
    it(`${name}: same context as from all entries, for ~150 leaves`, () => {
      const id = importPath(lib.db, fixturePath(name)).files[0]?.sessionId ?? "";
      const all = loadSessionEntries(lib.db, id);
      const step = Math.max(1, Math.floor(all.length / 150));
      let reduced = 0;
      for (let i = 0; i < all.length; i += step) {
        const leaf = all[i]?.id ?? "";
        const loaded = loadContextEntries(lib.db, id, leaf);
        expect(loaded.pathOnly).toBe(true);
        const expected = buildSessionContext(all, leaf);
        const got = buildSessionContext(loaded.entries, loaded.leafId, loaded.index);
        expect(comparable(got)).toEqual(comparable(expected));
        // The reduced path is a subsequence of the real one, ending at the same leaf.
        const real = expected.path.map((e) => e.id);
        let at = 0;
        for (const e of got.path) at = real.indexOf(e.id, at) + 1;
        expect(at).toBeGreaterThan(0);
        expect(got.path.at(-1)?.id).toBe(real.at(-1));
        if (got.path.length < real.length) reduced++;
      }
      // Leaves past its compactions load only part of their path.
      if (name.startsWith("real-before-compaction")) expect(reduced).toBeGreaterThan(0);
    });
  }

  it("from the database, the LLM view of every expected leaf equals what the pi agent built (D4)", () => {
    const templates = contextTemplatesFrom(loadPromptTemplates());
    for (const tree of ["tree-00", "tree-01", "tree-02", "tree-03"]) {
      const id = importPath(lib.db, fixturePath(`${tree}.jsonl`)).files[0]?.sessionId ?? "";
      const expected = readExpectedContexts(tree);
      for (const [leaf, want] of Object.entries(expected.contexts)) {
        const loaded = loadContextEntries(lib.db, id, leaf);
        const context = buildSessionContext(loaded.entries, loaded.leafId, loaded.index);
        const got = convertToLlm(context.messages, templates);
        expect(got.map(withoutSummaryFraming), `${tree} ${leaf}`).toEqual(
          want.messages.map(withoutSummaryFraming),
        );
        expect(context.thinkingLevel).toBe(want.thinkingLevel);
        expect(context.model).toEqual(want.model);
      }
    }
  });

  it("reads and parses the compaction in effect once, though a summary may be megabytes long", () => {
    const file = `${lib.dir}/big.jsonl`;
    fs.writeFileSync(file, bigSummarySession("big", 2_000_000));
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const parse = vi.spyOn(JSON, "parse");
    try {
      const loaded = loadContextEntries(lib.db, id);
      const summaryParses = parse.mock.calls.filter(([text]) => text.includes(BIG_TEXT_END_MARKER));
      expect(summaryParses).toHaveLength(1);
      const compaction = loaded.entries.find((entry) => entry.type === "compaction") as { summary?: string };
      expect(compaction?.summary?.endsWith(BIG_TEXT_END_MARKER)).toBe(true);
      // The reply that set the model, then the kept part from the first kept entry on.
      expect(loaded.entries.map((entry) => entry.id)).toEqual([
        "a0000002",
        "a0000003",
        "a0000004",
        "a0000005",
        "a0000006",
        "a0000007",
      ]);
    } finally {
      parse.mockRestore();
    }
  });

  it("uses the view leaf by default, null gives the empty context, unknown ids fall back to the last entry", () => {
    const id = importPath(lib.db, fixturePath("tree-02.jsonl")).files[0]?.sessionId ?? "";
    const all = loadSessionEntries(lib.db, id);
    const chosen = all[100]?.id ?? "";
    setViewLeaf(lib.db, id, chosen);
    expect(loadContextEntries(lib.db, id).leafId).toBe(chosen);
    expect(loadContextEntries(lib.db, id, null)).toEqual({
      entries: [],
      leafId: null,
      pathOnly: true,
      parsed: 0,
    });
    const unknown = loadContextEntries(lib.db, id, "nope");
    expect(comparable(buildSessionContext(unknown.entries, unknown.leafId, unknown.index))).toEqual(
      comparable(buildSessionContext(all, "nope")),
    );
  });

  it("a session with tree problems is loaded whole, so core's repair rules apply", () => {
    const path = `${lib.dir}/odd.jsonl`;
    const lines = [
      { type: "session", version: 3, id: "odd", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" },
      {
        type: "message",
        id: "a",
        parentId: "b",
        timestamp: "t",
        message: { role: "user", content: "x", timestamp: 1 },
      },
      {
        type: "message",
        id: "b",
        parentId: "a",
        timestamp: "t",
        message: { role: "user", content: "y", timestamp: 1 },
      },
    ];
    fs.writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    importPath(lib.db, path);
    const loaded = loadContextEntries(lib.db, "odd", "b");
    expect(loaded.pathOnly).toBe(false);
    expect(loaded.entries).toHaveLength(2);
  });
});

describe("loadContextEntries on a file whose parent comes after its child", () => {
  it("still finds the path (map walk) and matches the full build", () => {
    const lib2 = makeLibrary();
    try {
      const lines = [
        { type: "session", version: 3, id: "late", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" },
        {
          type: "message",
          id: "c",
          parentId: "p",
          timestamp: "t",
          message: { role: "user", content: "child", timestamp: 1 },
        },
        {
          type: "message",
          id: "p",
          parentId: null,
          timestamp: "t",
          message: { role: "user", content: "parent", timestamp: 1 },
        },
      ];
      const file = `${lib2.dir}/late.jsonl`;
      fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
      importPath(lib2.db, file);
      const loaded = loadContextEntries(lib2.db, "late", "c");
      expect(loaded.pathOnly).toBe(true);
      const all = loadSessionEntries(lib2.db, "late");
      expect(comparable(buildSessionContext(loaded.entries, loaded.leafId, loaded.index))).toEqual(
        comparable(buildSessionContext(all, "c")),
      );
      expect(loaded.entries.map((e) => e.id)).toEqual(["p", "c"]);
    } finally {
      lib2.cleanup();
    }
  });
});
