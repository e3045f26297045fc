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
import { noteGrowth } from "../../renderer/src/features/tree/tree-growth.ts";

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
  const cases: { filter: TreeFilter; showArchived?: boolean; expand?: boolean; cut?: boolean }[] = [
    { filter: "default" },
    { filter: "no-tools", showArchived: true },
    { filter: "all", expand: true },
    { filter: "user-only" },
    { filter: "default", cut: true },
  ];
  for (const { filter, showArchived, expand, cut } of cases) {
    it(`draws what a fresh layout draws (${filter}${showArchived ? ", archived shown" : ""}${expand ? ", a chain expanded" : ""}${cut ? ", a planned cut in a chain" : ""})`, () => {
      const base: LayoutOptions = { filter, viewLeafId: tree.viewLeafId, showArchived };
      const first = layoutTree(tree.nodes, base);
      const expanded = expand ? first.nodes.find((node) => node.kind === "chain") : undefined;
      // A compaction plan pins its cut (as the canvas does, beside the revealed entry).
      const cutChain = cut ? first.nodes.filter((node) => node.kind === "chain")[1] : undefined;
      const cutId =
        cutChain?.kind === "chain" ? cutChain.entryIds[Math.floor(cutChain.count / 2)] : undefined;
      if (cut) expect(cutId).toBeDefined();
      const options: LayoutOptions = {
        ...base,
        expandedIds: new Set(expanded?.kind === "chain" ? [expanded.firstId] : []),
        pinnedIds: [cutId ?? null, null],
      };
      const pins = entriesInChains(layoutTree(tree.nodes, options)).filter((_, i) => i % 3 === 0);
      expect(pins.length).toBeGreaterThan(5);
      layoutTree(tree.nodes, { ...options, revealedId: pins[0] });
      let fast = 0;
      for (const pin of pins) {
        const before = fullLayoutsMade();
        const revealed = layoutTree(tree.nodes, { ...options, revealedId: pin });
        if (fullLayoutsMade() === before) fast++;
        const fresh = layoutTree([...tree.nodes], {
          ...options,
          pinnedIds: [...(options.pinnedIds ?? []), pin],
        });
        expect(revealed.byId.get(pin)?.kind, pin).toBe("entry");
        expect(drawn(revealed, pin), pin).toEqual(drawn(fresh, pin));
      }
      // Every pin but the hidden entries (shown only once pinned) took the fast path.
      expect(fast).toBeGreaterThan(pins.length / 2);
    });
  }

  it("draws what a fresh layout draws after the session grew with a reveal on screen", () => {
    const options: LayoutOptions = {
      filter: "default",
      viewLeafId: tree.viewLeafId,
      pinnedIds: [null, null],
    };
    let nodes: readonly TreeNodeDto[] = [...tree.nodes];
    const pins = entriesInChains(layoutTree(nodes, options)).filter((_, i) => i % 4 === 0);
    expect(layoutTree(nodes, { ...options, revealedId: pins[0] }).byId.get(pins[0] as string)?.kind).toBe(
      "entry",
    );
    const template = tree.nodes.find((node) => node.kind === "user") as TreeNodeDto;
    let leaf = tree.viewLeafId as string;
    for (let k = 0; k < 3; k++) {
      // An agent's append under the view leaf, the leaf moving with it, the same entry revealed.
      const added = [
        {
          ...template,
          id: `grown-${k}`,
          parentId: leaf,
          line: nodes.length + 10,
          timestamp: "2099-01-01T00:00:00.000Z",
        },
      ];
      const next = [...nodes, ...added];
      noteGrowth(nodes, next, added);
      nodes = next;
      leaf = `grown-${k}`;
      const grownOptions = { ...options, viewLeafId: leaf };
      for (const pin of [pins[0], ...pins.slice(1 + k * 3, 4 + k * 3)] as string[]) {
        const revealed = layoutTree(nodes, { ...grownOptions, revealedId: pin });
        const fresh = layoutTree([...nodes], { ...grownOptions, pinnedIds: [null, null, pin] });
        expect(revealed.totalCount).toBe(nodes.length);
        expect(drawn(revealed, pin), pin).toEqual(drawn(fresh, pin));
      }
    }
  });

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
