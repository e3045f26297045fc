// An agent's append on the canvas (tree-growth.ts): a node list the tree slice notes as grown by
// appended entries is laid out from the previous list's structure, its model view extended from
// the previous one, and its lookups (ids, the LLM view's entry links) layered on the previous ones.
// Each case checks that the fast path was taken and that it draws exactly what a fresh layout of
// the same list draws: every layout node (position, chain, active), edge, bound, and every mark.
import { describe, expect, it } from "vitest";
import type { SessionTreeDto, SessionTreeUpdateDto, TreeNodeDto } from "../../core/api/dto.ts";
import { applyNodesDiff } from "../../core/api/tree-delta.ts";
import { entryLinks } from "../../renderer/src/features/llm-view/entry-links.ts";
import type { TreeFilter } from "../../renderer/src/features/tree/filter.ts";
import { layoutTree, type TreeLayout } from "../../renderer/src/features/tree/layout.ts";
import { treeStructure } from "../../renderer/src/features/tree/layout-structure.ts";
import {
  computeMarks,
  entryMarks,
  layoutNodeMarks,
  type ModelView,
  modelViewOfLeaf,
} from "../../renderer/src/features/tree/marks.ts";
import { grownModelView } from "../../renderer/src/features/tree/model-view-growth.ts";
import { growthOf, noteGrowth, noteTreeGrowth } from "../../renderer/src/features/tree/tree-growth.ts";
import { treeLookup } from "../../renderer/src/features/tree/tree-lookup.ts";
import { seeded, TreeBuilder } from "./tree-builders.ts";

interface Shown {
  nodes: readonly TreeNodeDto[];
  leafId: string | null;
  view: ModelView | null;
}

const options = (leafId: string | null, filter: TreeFilter = "default") => ({
  filter,
  viewLeafId: leafId,
  pinnedIds: [null, null, null],
  collapseChains: true,
  expandedIds: new Set<string>(),
  showArchived: false,
});

const freshView = (nodes: readonly TreeNodeDto[], leafId: string | null) => {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return modelViewOfLeaf((id) => byId.get(id), leafId);
};

/** Everything the canvas draws from a layout and a model view. */
function drawn(layout: TreeLayout, view: ModelView | null, leafId: string | null) {
  const marks = computeMarks({ layout, leafId, plan: null, branchPreview: null, dropTargetId: null, view });
  return {
    nodes: layout.nodes.map((node) => ({
      ...node,
      entry: node.kind === "entry" ? node.entry.id : undefined,
      marks: layoutNodeMarks(marks, layout, node.id),
    })),
    edges: layout.edges,
    bounds: layout.bounds,
    counts: [layout.totalCount, layout.shownCount, layout.chainCount],
    activePath: [...layout.activePath].sort(),
    firstKeptBy: [...layout.firstKeptBy].sort(),
    entries: layout.entries.map((entry) => [
      entry.id,
      layout.nodeOfEntry(entry.id),
      entryMarks(marks, layout, entry.id),
      layout.entry(entry.id) === entry,
    ]),
  };
}

/** Shows a list the way the canvas does the first time (laid out, its view computed). */
function show(builderNodes: readonly TreeNodeDto[], leafId: string | null, filter?: TreeFilter): Shown {
  // A copy: the builder goes on adding to its own list.
  const nodes = [...builderNodes];
  layoutTree(nodes, options(leafId, filter));
  treeLookup(nodes);
  return { nodes, leafId, view: freshView(nodes, leafId) };
}

/**
 * Appends `added` as a delta refresh does, with the view leaf at `leafId`; expects the fast path
 * (`fast`: the structure and the view; "structure": the view is walked again, as after a
 * compaction) and the drawing of a fresh layout.
 */
function append(
  shown: Shown,
  added: TreeNodeDto[],
  leafId: string | null,
  fast: boolean | "structure",
  filter?: TreeFilter,
): Shown {
  const byId = treeLookup(shown.nodes).byId;
  const nodes = applyNodesDiff(shown.nodes, { removed: [], changed: [], added }, (id) => byId.has(id));
  noteGrowth(shown.nodes, nodes, added);
  const layout = layoutTree(nodes, options(leafId, filter));
  const grownView = grownModelView(
    { entries: shown.nodes, leafId: shown.leafId, view: shown.view },
    nodes,
    leafId,
  );
  const view = grownView === undefined ? freshView(nodes, leafId) : grownView;
  const layers = treeStructure(nodes, leafId).layers;
  expect(layers > 1).toBe(fast !== false);
  // Where the structure is built again, the view may still be extended: the drawing says if right.
  if (fast !== false) expect(grownView !== undefined).toBe(fast === true);
  for (const node of nodes) expect(treeLookup(nodes).byId.get(node.id)).toBe(node);

  const copy = [...nodes];
  const fresh = layoutTree(copy, options(leafId, filter));
  expect(treeStructure(copy, leafId).layers).toBe(1);
  expect(drawn(layout, view, leafId)).toEqual(drawn(fresh, freshView(copy, leafId), leafId));
  return { nodes, leafId, view };
}

/** A session: a long main path (collapsed into chains), a side branch, a compaction on the path. */
function session() {
  const b = new TreeBuilder();
  const top = b.chain("m", null, 20);
  b.add("c1", top, "compaction", { firstKeptEntryId: "m16", tokensBefore: 500, summary: "so far" });
  const side = b.chain("s", "m5", 12);
  const tip = b.chain("n", "c1", 14);
  b.add("mc", tip, "model_change", { noMessage: true });
  b.add("leaf", "mc", "user");
  return { b, side };
}

describe("an append laid out from the previous layout draws what a fresh layout draws", () => {
  it("a message under the view leaf, the leaf moving to it, several times over", () => {
    const { b } = session();
    let shown = show(b.nodes, "leaf");
    let parent = "leaf";
    for (let i = 0; i < 12; i++) {
      const node = b.add(`x${i}`, parent, i % 2 === 0 ? "assistant" : "user");
      shown = append(shown, [node], node.id, true);
      parent = node.id;
    }
  });

  it("several entries at once, an assistant and its tool results, and metadata the model never sees", () => {
    const { b } = session();
    const shown = show(b.nodes, "leaf");
    const a = b.add("a", "leaf", "assistant", { stopReason: "toolUse", hasText: false });
    const t = b.add("t", "a", "toolResult", { toolName: "bash" });
    const l = b.add("l", "t", "label", { noMessage: true });
    append(shown, [a, t, l], "l", true);
  });

  it("a new branch from the middle of a collapsed chain, the view leaf staying", () => {
    const { b } = session();
    const shown = show(b.nodes, "leaf");
    const before = layoutTree(shown.nodes, options("leaf")).nodeOfEntry("n7");
    expect(before?.startsWith("chain:")).toBe(true);
    append(shown, [b.add("fork", "n7", "user")], "leaf", true);
  });

  it("a new branch whose entry becomes the view leaf, ahead of the old children in the order", () => {
    const { b } = session();
    b.add("later", "leaf", "user");
    const shown = show(b.nodes, "leaf");
    append(shown, [b.add("first", "leaf", "assistant")], "first", true);
  });

  it("entries under the side branch and under a hidden entry, under other filters", () => {
    for (const filter of ["default", "no-tools", "user-only", "all"] as const) {
      const { b, side } = session();
      const shown = show(b.nodes, "leaf", filter);
      const next = append(shown, [b.add(`${filter}-1`, side, "toolResult")], "leaf", true, filter);
      append(next, [b.add(`${filter}-2`, "mc", "assistant")], "leaf", true, filter);
    }
  });

  it("a compaction appended under the leaf, then the next message: the view is walked again, once", () => {
    const { b } = session();
    let shown = show(b.nodes, "leaf");
    const c2 = b.add("c2", "leaf", "compaction", {
      firstKeptEntryId: "n10",
      tokensBefore: 900,
      summary: "again",
    });
    shown = append(shown, [c2], "c2", "structure");
    append(shown, [b.add("after", "c2", "user")], "after", true);
  });

  it("a compaction that keeps from an entry off its path marks nothing, as a fresh layout", () => {
    const { b } = session();
    const shown = show(b.nodes, "leaf");
    append(shown, [b.add("c3", "leaf", "compaction", { firstKeptEntryId: "s3" })], "leaf", true);
  });

  it("falls back to a fresh layout where the fast path would not hold", () => {
    // An old root whose missing parent is appended (its path changes).
    const { b } = session();
    b.add("orphan", "ghost", "user");
    let shown = show(b.nodes, "leaf");
    shown = append(shown, [b.add("ghost", "leaf", "user")], "leaf", false);
    // A new root.
    shown = append(shown, [b.add("root2", null, "user")], "leaf", false);
    // The view leaf moves to an old entry elsewhere, with an entry appended.
    shown = append(shown, [b.add("y", "s4", "user")], "m3", false);
  });

  it("a leaf the previous list did not hold (a deep link's entry, not written yet), appended now", () => {
    const { b } = session();
    // Shown with the leaf at an entry the list does not hold yet: no path, no view.
    const shown = show(b.nodes, "soon");
    expect(shown.view).toBeNull();
    const soon = b.add("soon", "leaf", "user");
    const byId = treeLookup(shown.nodes).byId;
    const nodes = applyNodesDiff(shown.nodes, { removed: [], changed: [], added: [soon] }, (id) =>
      byId.has(id),
    );
    noteGrowth(shown.nodes, nodes, [soon]);
    // The view at "soon" is walked now, not the previous "no view" kept.
    expect(
      grownModelView({ entries: shown.nodes, leafId: "soon", view: null }, nodes, "soon"),
    ).toBeUndefined();
    append(shown, [soon], "soon", false);
  });

  it("random sessions and random appends", () => {
    const random = seeded(7);
    const kinds = ["user", "assistant", "toolResult", "model_change", "compaction", "branch_summary"];
    for (let round = 0; round < 6; round++) {
      const b = new TreeBuilder();
      let ids = [b.chain(`r${round}-`, null, 30)];
      for (let i = 0; i < 120; i++) {
        const parent =
          random() < 0.7
            ? (ids[ids.length - 1] as string)
            : (ids[Math.floor(random() * ids.length)] as string);
        const kind = kinds[Math.floor(random() * kinds.length)] as string;
        ids.push(
          b.add(`e${round}-${i}`, parent, kind, kind === "model_change" ? { noMessage: true } : {}).id,
        );
      }
      ids = b.nodes.map((node) => node.id);
      let leaf = ids[ids.length - 1] as string;
      let shown = show(b.nodes, leaf);
      for (let step = 0; step < 10; step++) {
        const parent = random() < 0.5 ? leaf : (ids[Math.floor(random() * ids.length)] as string);
        const kind = kinds[Math.floor(random() * (kinds.length - 1))] as string;
        const node = b.add(
          `g${round}-${step}`,
          parent,
          kind,
          kind === "compaction" ? { firstKeptEntryId: parent } : {},
        );
        ids.push(node.id);
        const moves = parent === leaf && random() < 0.8;
        const fast = !moves ? true : kind === "compaction" ? "structure" : true;
        shown = append(shown, [node], moves ? node.id : leaf, fast);
        if (moves) leaf = node.id;
      }
    }
  });
});

describe("the LLM view's entry links after an append", () => {
  const tree = (nodes: readonly TreeNodeDto[]): SessionTreeDto => ({
    sessionId: "s",
    nodes: nodes as TreeNodeDto[],
    viewLeafId: null,
    fileLeafId: null,
    problems: [],
    history: { undo: null, redo: null } as unknown as SessionTreeDto["history"],
  });

  it("are kept for a refresh that changed no node, and extended by the appended entries", () => {
    const { b } = session();
    const nodes = [...b.nodes];
    const links = entryLinks(tree(nodes));
    expect(entryLinks(tree(nodes))).toBe(links);
    const added = [b.add("x1", "leaf", "user"), b.add("x2", "x1", "branch_summary", { fromId: "x1" })];
    const next = nodes.concat(added);
    noteGrowth(nodes, next, added);
    const grown = entryLinks(tree(next));
    expect(grown).not.toBeInstanceOf(Map);
    const fresh = entryLinks(tree([...next]));
    expect(fresh).toBeInstanceOf(Map);
    for (const node of next) expect(grown.get(node.id)).toEqual(fresh.get(node.id));
    expect(grown.get("nowhere")).toBeUndefined();
  });
});

describe("which refresh is noted as grown (the tree slice's noteTreeGrowth)", () => {
  const { b } = session();
  const before: SessionTreeDto = {
    sessionId: "s",
    version: "v1",
    nodes: [...b.nodes],
    viewLeafId: "leaf",
    fileLeafId: "leaf",
    problems: [],
    history: { undo: null, redo: null },
  };
  const added = [b.add("next", "leaf", "assistant")];
  const delta = (over: Partial<Extract<SessionTreeUpdateDto, { kind: "delta" }>> = {}) =>
    ({
      kind: "delta",
      sessionId: "s",
      since: "v1",
      version: "v2",
      removed: [],
      changed: [],
      added,
      viewLeafId: "next",
      fileLeafId: "next",
      problems: [],
      history: { undo: null, redo: null },
      ...over,
    }) as SessionTreeUpdateDto;
  /** `before` refreshed by `update` (its nodes appended as the slice does), noted or not. */
  const noted = (update: SessionTreeUpdateDto, from: SessionTreeDto = before) => {
    const after: SessionTreeDto = {
      ...from,
      nodes: from.nodes.concat(added),
      version: update.version,
    };
    noteTreeGrowth(from, after, update);
    return growthOf(after.nodes) !== undefined;
  };

  it("an append-only delta made against the very version on screen, of the same session", () => {
    expect(noted(delta())).toBe(true);
  });

  it("not a delta made against another version, another session, or a tree without a version", () => {
    expect(noted(delta({ since: "v0" }))).toBe(false);
    expect(noted(delta({ sessionId: "other" }))).toBe(false);
    expect(noted(delta(), { ...before, sessionId: "other" })).toBe(false);
    expect(noted(delta(), { ...before, version: undefined })).toBe(false);
  });

  it("not a delta that also changed or removed nodes (a rewrite, a label, an archive), nor a whole tree", () => {
    expect(noted(delta({ changed: [{ ...(before.nodes[0] as TreeNodeDto), label: "x" }] }))).toBe(false);
    expect(noted(delta({ removed: ["m1"] }))).toBe(false);
    expect(noted({ kind: "full", ...before, version: "v2" })).toBe(false);
  });
});
