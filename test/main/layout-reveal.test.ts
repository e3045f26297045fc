// A selection that reveals an entry of a collapsed chain (an arrow key, a click, a search hit)
// lays the canvas out from per-list facts (layout-facts.ts) and the cached structure: on a
// generated session it must draw exactly what a fresh layout of a fresh list draws (positions,
// edges, chains, marks), for every chain and filter, and read no entry's fields to do it.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGeneratedSession } from "../../bench/generate-session.ts";
import type { SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import type { TreeFilter } from "../../renderer/src/features/tree/filter.ts";
import {
  fullLayoutsMade,
  type LayoutOptions,
  layoutTree,
  type TreeLayout,
} from "../../renderer/src/features/tree/layout.ts";
import { computeMarks, layoutNodeMarks } from "../../renderer/src/features/tree/marks.ts";

let api: Api;
let dir: string;
let tree: SessionTreeDto;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-layout-reveal-"));
  api = createApi(
    createAppContext({ dbPath: path.join(dir, "library.db"), seedDemo: false, loadUserHooks: false }),
  );
  const generated = writeGeneratedSession(path.join(dir, "generated.jsonl"), 3000);
  const report = await api.call("library:import", { path: generated.file });
  if (!report.ok) throw new Error(report.error.message);
  const sessionId = report.value.files[0]?.sessionId as string;
  const loaded = await api.call("session:tree", { sessionId });
  if (!loaded.ok) throw new Error(loaded.error.message);
  tree = loaded.value;
}, 120_000);

afterAll(() => {
  api?.ctx.db.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the canvas draws from a layout: every node with its place and marks, every edge. */
function drawn(layout: TreeLayout, leafId: string) {
  const marks = computeMarks({ layout, leafId, plan: null, branchPreview: null, dropTargetId: null });
  return {
    nodes: layout.nodes.map((node) => ({
      ...(node.kind === "entry" ? { ...node, entry: node.entry.id } : node),
      marks: layoutNodeMarks(marks, layout, node.id),
    })),
    edges: layout.edges,
    bounds: layout.bounds,
    counts: [layout.totalCount, layout.shownCount, layout.chainCount],
    firstKeptBy: [...layout.firstKeptBy],
    nodeOfEntry: layout.entries.map((entry) => layout.nodeOfEntry(entry.id) ?? null),
  };
}

/** Entries of the chains of a layout: each chain's first, middle and last entry, and a hidden one. */
function entriesInChains(layout: TreeLayout): string[] {
  const picked: string[] = [];
  for (const node of layout.nodes) {
    if (node.kind !== "chain") continue;
    const ids = node.entryIds;
    picked.push(node.firstId, ids[Math.floor(ids.length / 2)] as string, node.lastId);
    const hidden = ids.find((id) => layout.nodeOfEntry(id) === node.id && !layout.byId.has(id));
    if (hidden) picked.push(hidden);
  }
  return [...new Set(picked)];
}

describe("revealing an entry of a collapsed chain", () => {
  const cases: { filter: TreeFilter; showArchived?: boolean; expand?: boolean }[] = [
    { filter: "default" },
    { filter: "no-tools", showArchived: true },
    { filter: "all", expand: true },
    { filter: "user-only" },
  ];
  for (const { filter, showArchived, expand } of cases) {
    it(`draws what a fresh layout draws (${filter}${showArchived ? ", archived shown" : ""}${expand ? ", a chain expanded" : ""})`, () => {
      const base: LayoutOptions = { filter, viewLeafId: tree.viewLeafId, showArchived };
      const first = layoutTree(tree.nodes, base);
      const expanded = expand ? first.nodes.find((node) => node.kind === "chain") : undefined;
      const options: LayoutOptions = {
        ...base,
        expandedIds: new Set(expanded?.kind === "chain" ? [expanded.firstId] : []),
      };
      const pins = entriesInChains(layoutTree(tree.nodes, options)).filter((_, i) => i % 3 === 0);
      expect(pins.length).toBeGreaterThan(5);
      layoutTree(tree.nodes, { ...options, revealedId: pins[0] });
      let fast = 0;
      for (const pin of pins) {
        const before = fullLayoutsMade();
        const revealed = layoutTree(tree.nodes, { ...options, revealedId: pin });
        if (fullLayoutsMade() === before) fast++;
        const fresh = layoutTree([...tree.nodes], { ...options, pinnedIds: [pin] });
        expect(revealed.byId.get(pin)?.kind, pin).toBe("entry");
        expect(drawn(revealed, pin), pin).toEqual(drawn(fresh, pin));
      }
      // Every pin but the hidden entries (shown only once pinned) took the fast path.
      expect(fast).toBeGreaterThan(pins.length / 2);
    });
  }

  it("reads no entry's fields once the list was laid out", () => {
    let reads = 0;
    const counted = tree.nodes.map(
      (entry) =>
        new Proxy(entry, {
          get(target, key, receiver) {
            reads++;
            return Reflect.get(target, key, receiver);
          },
        }),
    ) as TreeNodeDto[];
    const options: LayoutOptions = { filter: "default", viewLeafId: tree.viewLeafId };
    const first = layoutTree(counted, options);
    const pins = entriesInChains(first).slice(0, 20);
    expect(pins.length).toBe(20);
    reads = 0;
    for (const pin of pins)
      expect(layoutTree(counted, { ...options, revealedId: pin }).byId.has(pin)).toBe(true);
    expect(reads).toBe(0);
  });
});
