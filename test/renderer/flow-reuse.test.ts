// The canvas's layout → React Flow conversion keeps what did not change when an arrow key
// reveals an entry of a chain: same data objects (node components do not re-render), same node
// objects where the position stayed (React Flow skips them), and the structural part of the
// layout is computed once per tree and view leaf.
import { describe, expect, it } from "vitest";
import { createFlowCache, toFlowEdges, toFlowNodes } from "../../renderer/src/features/tree/flow.ts";
import { layoutTree } from "../../renderer/src/features/tree/layout.ts";
import { treeStructure } from "../../renderer/src/features/tree/layout-structure.ts";
import { TreeBuilder } from "./tree-builders.ts";

function session() {
  const tree = new TreeBuilder();
  const top = tree.chain("a", null, 30);
  const side = tree.chain("s", "a5", 3);
  tree.chain("b", top, 30);
  return { nodes: tree.nodes, side };
}

describe("flow conversion across a reveal", () => {
  it("keeps data and node objects of what did not change", () => {
    const { nodes } = session();
    const viewLeafId = "b29";
    const before = layoutTree(nodes, { filter: "all", viewLeafId });
    const after = layoutTree(nodes, { filter: "all", viewLeafId, pinnedIds: ["b12"] });
    expect(after.nodes.length).toBeGreaterThan(before.nodes.length);

    const cache = createFlowCache();
    const first = new Map(toFlowNodes(before, cache).map((node) => [node.id, node]));
    const firstEdges = new Map(toFlowEdges(before, cache).map((edge) => [edge.id, edge]));
    const second = toFlowNodes(after, cache);
    const secondEdges = toFlowEdges(after, cache);

    let sameNode = 0;
    for (const node of second) {
      const old = first.get(node.id);
      if (!old) continue;
      if (node.type === "entry") expect(node.data).toBe(old.data);
      if (old.position.x === node.position.x && old.position.y === node.position.y && old.data === node.data) {
        expect(node).toBe(old);
        sameNode++;
      }
    }
    // The side branch and the nodes above the revealed entry stay put.
    expect(sameNode).toBeGreaterThan(3);
    const keptEdges = secondEdges.filter((edge) => firstEdges.get(edge.id) === edge);
    expect(keptEdges.length).toBeGreaterThan(3);
  });

  it("computes the tree's structure once per nodes array and view leaf", () => {
    const { nodes } = session();
    const first = treeStructure(nodes, "b29");
    expect(treeStructure(nodes, "b29")).toBe(first);
    expect(treeStructure(nodes, "s2")).not.toBe(first);
    expect(treeStructure([...nodes], "s2").activePath).toEqual(treeStructure(nodes, "s2").activePath);
  });
});
