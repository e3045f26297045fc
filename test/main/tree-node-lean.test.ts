// session:tree reads a large message lean (core/text/lean-json.ts): a 20 MB tool output's node is
// made without parsing the whole entry, and every fixture's nodes (snippets included) are the
// same whether each message is read lean or parsed whole.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TREE_SNIPPET_CHARS } from "../../core/api/dto.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import { importPath } from "../../main/library/import.ts";
import { loadSessionTree } from "../../main/library/tree-nodes.ts";
import { listSessionRows } from "../../main/store/repos/sessions.ts";
import { bigToolResultSession } from "../helpers/big-session.ts";
import { fixturesDir } from "../helpers/fixtures.ts";
import { copyFixture, fixtureNames, type Library, makeLibrary } from "./library/helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => {
  vi.restoreAllMocks();
  lib.cleanup();
});

/** Parses whole (the tree as it was made before), every message lean, and as the app does. */
const WHOLE = { leanFromChars: Number.POSITIVE_INFINITY };
const ALL_LEAN = { leanFromChars: 0 };

describe("session:tree nodes of large messages", () => {
  it("gives every fixture the same nodes, snippets included, when every message is read lean", () => {
    const folder = path.join(lib.dir, "fixtures");
    const names = fixtureNames(fixturesDir());
    for (const name of names) copyFixture(name, folder);
    importPath(lib.db, folder);
    const ids = listSessionRows(lib.db).map((row) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(names.length);
    let nodes = 0;
    for (const id of ids) {
      const whole = loadSessionTree(lib.db, id, WHOLE);
      expect(loadSessionTree(lib.db, id, ALL_LEAN)).toEqual(whole);
      expect(loadSessionTree(lib.db, id)).toEqual(whole);
      nodes += whole.nodes.length;
    }
    expect(nodes).toBeGreaterThan(1000);
  });

  it("makes a 20 MB tool result's node without parsing the whole entry, with the same snippet", () => {
    const file = path.join(lib.dir, "big.jsonl");
    fs.writeFileSync(file, bigToolResultSession("big", 20 * 1024 * 1024));
    importPath(lib.db, file);
    const whole = loadSessionTree(lib.db, "big", WHOLE);
    const parse = vi.spyOn(JSON, "parse");
    const started = performance.now();
    const tree = loadSessionTree(lib.db, "big");
    const leanMs = performance.now() - started;
    const longest = Math.max(...parse.mock.calls.map(([text]) => text.length));
    parse.mockRestore();
    // Nothing near the entry's size was handed to JSON.parse (the full parse takes 20 MB).
    expect(longest).toBeLessThan(64 * 1024);
    expect(tree).toEqual(whole);
    const node = tree.nodes.find((n) => n.id === "b0000003");
    expect(node?.text.startsWith("read: 00000000 INFO worker-0")).toBe(true);
    expect(node?.text.length).toBe(TREE_SNIPPET_CHARS);
    expect(node?.cut).toBe(true);
    const wholeStarted = performance.now();
    loadSessionTree(lib.db, "big", WHOLE);
    const wholeMs = performance.now() - wholeStarted;
    console.log(
      `tree of a ${fs.statSync(file).size}-byte session: lean ${leanMs.toFixed(0)} ms, whole ${wholeMs.toFixed(0)} ms`,
    );
  }, 120_000);

  it("parseLean cuts only long strings, never inside an escape, and keeps a mostly blank one whole", () => {
    const escaped = 'a\\b "q" \u00e9\n\t'.repeat(3000);
    const blank = `${" ".repeat(10_000)}x`;
    const value = { short: 's"t', long: escaped, blank, list: [1, true, null, { k: escaped }] };
    for (let keep = 4090; keep <= 4100; keep++) {
      const lean = parseLean(JSON.stringify(value), keep) as typeof value;
      expect(lean.short).toBe(value.short);
      expect(lean.blank).toBe(blank);
      expect(lean.list.slice(0, 3)).toEqual([1, true, null]);
      for (const cut of [lean.long, (lean.list[3] as { k: string }).k]) {
        expect(cut.length).toBeLessThan(escaped.length);
        expect(escaped.startsWith(cut)).toBe(true);
        expect(cut.length).toBeGreaterThan(2000);
      }
    }
  });
});
