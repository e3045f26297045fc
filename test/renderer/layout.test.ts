// The canvas layout (renderer/src/features/tree/layout.ts): SPEC §10.4 filters, parents through
// hidden entries, chain collapsing and expansion, the view leaf's branch first, roots in file
// order and children by time (SPEC §2.3), and trees of 100,000 and 10,000 entries without stack
// overflow; archived branches hidden unless shown.
import { describe, expect, it } from "vitest";
import { passesFilter, type TreeFilter } from "../../renderer/src/features/tree/filter.ts";
import {
  chainNodeId,
  layoutTree,
  ROOTS_KEY,
  type TreeLayout,
} from "../../renderer/src/features/tree/layout.ts";
import { seeded, TreeBuilder } from "./tree-builders.ts";

const entryIds = (layout: TreeLayout) =>
  layout.nodes.filter((node) => node.kind === "entry").map((node) => node.id);

function mixedSession() {
  const b = new TreeBuilder();
  b.add("u1", null, "user");
  b.add("mc", "u1", "model_change");
  b.add("tl", "mc", "thinking_level_change");
  b.add("a1", "tl", "assistant", { hasText: false, stopReason: "toolUse" });
  b.add("t1", "a1", "toolResult", { toolName: "read" });
  b.add("a2", "t1", "assistant", { label: "answer" });
  b.add("lb", "a2", "label");
  b.add("cu", "lb", "custom", { type: "custom" });
  b.add("cm", "cu", "custom_message");
  b.add("ae", "cm", "assistant", { hasText: false, stopReason: "error" });
  b.add("bs", "ae", "branch_summary");
  b.add("u2", "bs", "user");
  b.add("a3", "u2", "assistant", { hasText: false, stopReason: "stop" });
  return b;
}

describe("filters (SPEC §10.4)", () => {
  const shown = (filter: TreeFilter, viewLeafId: string | null = null) =>
    entryIds(layoutTree(mixedSession().nodes, { filter, viewLeafId, collapseChains: false })).sort();

  it("default hides label, custom, model_change and thinking_level_change, and silent assistants", () => {
    expect(shown("default")).toEqual(["a2", "ae", "bs", "cm", "t1", "u1", "u2"].sort());
  });
  it("no-tools also hides tool results", () => {
    expect(shown("no-tools")).toEqual(["a2", "ae", "bs", "cm", "u1", "u2"].sort());
  });
  it("user-only shows only user messages", () => {
    expect(shown("user-only")).toEqual(["u1", "u2"]);
  });
  it("labeled-only shows only labelled entries", () => {
    expect(shown("labeled-only")).toEqual(["a2"]);
  });
  it("all shows everything but assistants without text that ended normally", () => {
    expect(shown("all")).toEqual(
      mixedSession()
        .nodes.map((n) => n.id)
        .filter((id) => id !== "a1" && id !== "a3")
        .sort(),
    );
  });
  it("a silent assistant that is the view leaf is shown in every filter", () => {
    for (const filter of ["default", "user-only", "labeled-only", "all"] as const)
      expect(shown(filter, "a3")).toContain("a3");
  });
  it("an assistant without text that ended abnormally is shown", () => {
    const node = new TreeBuilder().add("x", null, "assistant", { hasText: false, stopReason: "length" });
    expect(passesFilter(node, "default")).toBe(true);
    expect(passesFilter({ ...node, stopReason: "toolUse" }, "default")).toBe(false);
  });
});

describe("archived branches (issue 6)", () => {
  function archivedSession() {
    const b = new TreeBuilder();
    b.add("u1", null, "user");
    b.add("a1", "u1", "assistant");
    b.add("u2", "a1", "user");
    b.add("x1", "a1", "user", { archived: true });
    b.add("x2", "x1", "assistant", { archived: true });
    return b;
  }
  const shown = (options: { viewLeafId?: string; showArchived?: boolean }) =>
    entryIds(
      layoutTree(archivedSession().nodes, {
        filter: "all",
        viewLeafId: options.viewLeafId ?? "u2",
        collapseChains: false,
        ...(options.showArchived !== undefined ? { showArchived: options.showArchived } : {}),
      }),
    ).sort();

  it("hides archived entries unless shown", () => {
    expect(shown({})).toEqual(["a1", "u1", "u2"]);
    expect(shown({ showArchived: true })).toEqual(["a1", "u1", "u2", "x1", "x2"]);
  });

  it("keeps the view leaf visible in an archived branch", () => {
    expect(shown({ viewLeafId: "x2" })).toEqual(["a1", "u1", "u2", "x2"]);
  });
});

describe("parents through hidden entries", () => {
  it("a shown entry hangs under its nearest shown ancestor", () => {
    const layout = layoutTree(mixedSession().nodes, {
      filter: "default",
      viewLeafId: null,
      collapseChains: false,
    });
    expect(layout.byId.get("t1")?.parentId).toBe("u1"); // through mc, tl and the silent a1
    expect(layout.byId.get("cm")?.parentId).toBe("a2"); // through lb and cu
    const users = layoutTree(mixedSession().nodes, {
      filter: "user-only",
      viewLeafId: null,
      collapseChains: false,
    });
    expect(users.byId.get("u2")?.parentId).toBe("u1");
    expect(users.edges.map((edge) => edge.id)).toEqual(["u1->u2"]);
  });

  it("hidden entries map to the node that shows them; hidden roots' children become roots", () => {
    const b = new TreeBuilder();
    b.add("mc", null, "model_change");
    b.add("u1", "mc", "user");
    b.add("u2", "mc", "user");
    const layout = layoutTree(b.nodes, { filter: "default", viewLeafId: "u2", collapseChains: false });
    expect(layout.childrenOf.get(ROOTS_KEY)).toEqual(["u2", "u1"]);
    expect(layout.nodeOfEntry("mc")).toBeUndefined();
    const deeper = layoutTree(mixedSession().nodes, {
      filter: "default",
      viewLeafId: null,
      collapseChains: false,
    });
    expect(deeper.nodeOfEntry("mc")).toBe("u1");
    expect(deeper.nodeOfEntry("a3")).toBe("u2");
  });

  it("pinned entries are shown whatever the filter", () => {
    const layout = layoutTree(mixedSession().nodes, {
      filter: "user-only",
      viewLeafId: null,
      pinnedIds: ["t1"],
    });
    expect(layout.byId.get("t1")?.parentId).toBe("u1");
    expect(layout.byId.get("u2")?.parentId).toBe("t1");
  });

  it("a shown compaction's first kept entry is shown even when the filter hides its type", () => {
    const b = new TreeBuilder();
    b.add("mc", null, "model_change");
    b.add("u1", "mc", "user");
    b.add("c1", "u1", "compaction", { firstKeptEntryId: "mc", tokensBefore: 10 });
    b.add("u2", "c1", "user");
    const shown = (filter: TreeFilter) => entryIds(layoutTree(b.nodes, { filter, viewLeafId: "u2" }));
    expect(shown("default")).toEqual(["mc", "u1", "c1", "u2"]);
    expect(shown("no-tools")).toContain("mc");
    // Where the compaction itself is hidden, so is the entry it keeps from.
    expect(shown("user-only")).toEqual(["u1", "u2"]);
  });
});

describe("chain collapsing", () => {
  function longChain() {
    const b = new TreeBuilder();
    b.add("root", null, "user");
    const last = b.chain("c", "root", 30);
    b.add("leaf", last, "assistant");
    return b;
  }

  it("collapses a run of more than 8 single-child entries into one chain node", () => {
    const layout = layoutTree(longChain().nodes, { filter: "default", viewLeafId: "leaf" });
    expect(layout.nodes.map((node) => node.id)).toEqual(["root", chainNodeId("c0"), "leaf"]);
    const chain = layout.byId.get(chainNodeId("c0"));
    expect(chain).toMatchObject({ kind: "chain", firstId: "c0", lastId: "c29", count: 30, active: true });
    expect(layout.byId.get("leaf")?.parentId).toBe(chainNodeId("c0"));
    expect(layout.nodeOfEntry("c17")).toBe(chainNodeId("c0"));
    expect(layout.edges.every((edge) => edge.active)).toBe(true);
  });

  it("keeps runs of 8 or fewer, and leaves everything expanded when collapsing is off", () => {
    const b = new TreeBuilder();
    b.add("root", null, "user");
    b.add("leaf", b.chain("c", "root", 8), "assistant");
    expect(layoutTree(b.nodes, { filter: "default", viewLeafId: "leaf" }).chainCount).toBe(0);
    expect(
      layoutTree(longChain().nodes, { filter: "default", viewLeafId: "leaf", collapseChains: false }).nodes,
    ).toHaveLength(32);
  });

  it("keeps interesting points: labels, compactions, first kept entries, pinned and the view leaf split runs", () => {
    const b = new TreeBuilder();
    b.add("root", null, "user");
    const a = b.chain("a", "root", 12);
    b.add("lab", a, "user", { label: "milestone" });
    const c = b.chain("b", "lab", 12);
    b.add("cmp", c, "compaction", { firstKeptEntryId: "b5", tokensBefore: 5000 });
    const d = b.chain("d", "cmp", 20);
    b.add("tip", d, "assistant");
    const layout = layoutTree(b.nodes, { filter: "default", viewLeafId: "d9", pinnedIds: ["d15"] });
    const ids = layout.nodes.map((node) => node.id);
    for (const kept of ["root", "lab", "b5", "cmp", "d9", "d15", "tip"]) expect(ids).toContain(kept);
    expect(ids).toContain(chainNodeId("a0")); // a0..a11 (12)
    expect(ids).toContain("b0"); // b0..b4 is only 5 long
    expect(ids).toContain("b6"); // b6..b11 is 6 long: kept
    expect(ids).toContain(chainNodeId("d0")); // d0..d8 is 9 long: collapsed
    expect(layout.chainCount).toBe(2);
  });

  it("a chain the user expanded stays expanded", () => {
    const expanded = layoutTree(longChain().nodes, {
      filter: "default",
      viewLeafId: "leaf",
      expandedIds: new Set(["c0"]),
    });
    expect(expanded.chainCount).toBe(0);
    expect(expanded.nodes).toHaveLength(32);
  });

  it("a chain counts the hidden entries it stands for", () => {
    const b = new TreeBuilder();
    b.add("root", null, "user");
    let parent = "root";
    for (let i = 0; i < 12; i++) {
      b.add(`m${i}`, parent, "model_change");
      b.add(`u${i}`, `m${i}`, "user");
      parent = `u${i}`;
    }
    b.add("leaf", parent, "assistant");
    const layout = layoutTree(b.nodes, { filter: "default", viewLeafId: "leaf" });
    const chain = layout.byId.get(chainNodeId("u0"));
    expect(chain?.kind === "chain" && chain.count).toBe(12);
    expect(chain?.kind === "chain" && chain.entryIds.length).toBe(23); // m1..m11 are inside, m0 hangs under root
    expect(layout.nodeOfEntry("m0")).toBe("root");
  });
});

describe("sibling order", () => {
  function forked(viewLeafId: string | null) {
    const b = new TreeBuilder();
    b.add("r", null, "user");
    b.add("old", "r", "assistant");
    b.add("old2", "old", "user");
    b.add("new", "r", "assistant");
    b.add("new2", "new", "user");
    return layoutTree(b.nodes, { filter: "default", viewLeafId, collapseChains: false });
  }

  it("orders siblings by time", () => {
    const layout = forked(null);
    expect(layout.childrenOf.get("r")).toEqual(["old", "new"]);
  });

  it("puts the branch holding the view leaf first (leftmost) and marks its path", () => {
    const layout = forked("new2");
    expect(layout.childrenOf.get("r")).toEqual(["new", "old"]);
    const x = (id: string) => layout.byId.get(id)?.x ?? Number.NaN;
    expect(x("new")).toBeLessThan(x("old"));
    expect([...layout.activePath].sort()).toEqual(["new", "new2", "r"]);
    expect(layout.edges.filter((edge) => edge.active).map((edge) => edge.id)).toEqual([
      "r->new",
      "new->new2",
    ]);
  });

  it("keeps roots in file order whatever their timestamps, and children by time (SPEC §2.3)", () => {
    const b = new TreeBuilder();
    const at = (minute: number) => ({
      timestamp: `2026-01-01T10:${String(minute).padStart(2, "0")}:00.000Z`,
    });
    b.add("late", null, "user", at(50));
    b.add("early", null, "user", at(10));
    b.add("child-late", "early", "assistant", at(40));
    b.add("child-early", "early", "assistant", at(20));
    b.add("middle", null, "user", at(30));
    const roots = (viewLeafId: string | null) =>
      layoutTree(b.nodes, { filter: "all", viewLeafId, collapseChains: false }).childrenOf.get(ROOTS_KEY);
    expect(roots(null)).toEqual(["late", "early", "middle"]);
    // The view leaf's root comes first, the others stay in file order.
    expect(roots("middle")).toEqual(["middle", "late", "early"]);
    const layout = layoutTree(b.nodes, { filter: "all", viewLeafId: null, collapseChains: false });
    expect(layout.childrenOf.get("early")).toEqual(["child-early", "child-late"]);
    const x = (id: string) => layout.byId.get(id)?.x ?? Number.NaN;
    expect(x("late")).toBeLessThan(x("early"));
    expect(x("early")).toBeLessThan(x("middle"));
  });

  it("lays out top to bottom: children below parents", () => {
    const layout = forked("new2");
    const y = (id: string) => layout.byId.get(id)?.y ?? Number.NaN;
    expect(y("r")).toBeLessThan(y("new"));
    expect(y("new")).toBeLessThan(y("new2"));
    expect(y("new")).toBe(y("old"));
  });
});

describe("large trees", () => {
  it("lays out a 100,000-deep chain (collapsed and fully expanded) without stack overflow", () => {
    const b = new TreeBuilder();
    b.add("leaf", b.chain("e", null, 100_000), "assistant");
    let started = performance.now();
    const collapsed = layoutTree(b.nodes, { filter: "default", viewLeafId: "leaf" });
    const collapsedMs = performance.now() - started;
    expect(collapsed.nodes.length).toBeLessThan(5);
    expect(collapsed.nodeOfEntry("e54321")).toBe(chainNodeId("e1"));
    started = performance.now();
    const full = layoutTree(b.nodes, { filter: "all", viewLeafId: "leaf", collapseChains: false });
    const fullMs = performance.now() - started;
    expect(full.nodes).toHaveLength(100_001);
    expect(full.byId.get("leaf")?.y).toBeGreaterThan(full.byId.get("e99999")?.y ?? 0);
    console.log(
      `layout 100,000-deep chain: collapsed ${collapsedMs.toFixed(0)} ms (${collapsed.nodes.length} nodes), ` +
        `expanded ${fullMs.toFixed(0)} ms (${full.nodes.length} nodes)`,
    );
  });

  it("lays out a 10,000-entry branching tree", () => {
    const b = new TreeBuilder();
    const random = seeded(42);
    const ids: string[] = [];
    // A main path with side branches of random length, like a long agent session with retries.
    let tip = b.add("n0", null, "user").id;
    ids.push(tip);
    while (b.nodes.length < 10_000) {
      const branchFrom = random() < 0.08 ? (ids[Math.floor(random() * ids.length)] as string) : tip;
      const kind = ["user", "assistant", "toolResult"][Math.floor(random() * 3)] as string;
      const id = `n${b.nodes.length}`;
      b.add(id, branchFrom, kind);
      ids.push(id);
      if (branchFrom === tip || random() < 0.5) tip = id;
    }
    let started = performance.now();
    const collapsed = layoutTree(b.nodes, { filter: "default", viewLeafId: tip });
    const collapsedMs = performance.now() - started;
    started = performance.now();
    const full = layoutTree(b.nodes, { filter: "all", viewLeafId: tip, collapseChains: false });
    const fullMs = performance.now() - started;
    expect(full.nodes).toHaveLength(10_000);
    expect(collapsed.nodes.length).toBeLessThan(full.nodes.length);
    expect(new Set(full.nodes.map((node) => `${node.x},${node.y}`)).size).toBe(10_000); // no overlaps
    console.log(
      `layout 10,000-entry branching tree: collapsed ${collapsedMs.toFixed(0)} ms (${collapsed.nodes.length} nodes, ` +
        `${collapsed.chainCount} chains), expanded ${fullMs.toFixed(0)} ms`,
    );
  });
});
