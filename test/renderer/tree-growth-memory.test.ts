// A session that grows while it is open (an agent appending one entry at a time) must not keep
// every node list it ever had: each list the tree slice notes as grown from the previous one, and
// the canvas caches per list (facts, structure, the layout a reveal starts from) are big. Once a
// list is laid out and replaced, the lists before it are garbage (checked with V8's own gc).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { TreeNodeDto } from "../../core/api/dto.ts";
import { layoutTree } from "../../renderer/src/features/tree/layout.ts";
import { treeStructure } from "../../renderer/src/features/tree/layout-structure.ts";
import { growthOf, noteGrowth } from "../../renderer/src/features/tree/tree-growth.ts";
import { treeLookup } from "../../renderer/src/features/tree/tree-lookup.ts";
import { TreeBuilder } from "./tree-builders.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const options = (leafId: string) => ({ filter: "default" as const, viewLeafId: leafId });

describe("a session growing while open", () => {
  it("keeps no node list older than the one before the list on screen", async () => {
    const b = new TreeBuilder();
    let leaf = b.chain("m", null, 400);
    let nodes: readonly TreeNodeDto[] = [...b.nodes];
    layoutTree(nodes, options(leaf));
    // A selection in a chain: the layout a reveal starts from is kept for the list.
    layoutTree(nodes, { ...options(leaf), revealedId: "m200" });
    treeLookup(nodes);
    const old: WeakRef<readonly TreeNodeDto[]>[] = [];
    for (let k = 0; k < 6; k++) {
      const added = [b.add(`x${k}`, leaf, k % 2 === 0 ? "user" : "assistant")];
      leaf = `x${k}`;
      const next = [...nodes, ...added];
      noteGrowth(nodes, next, added);
      old.push(new WeakRef(nodes));
      nodes = next;
      expect(growthOf(nodes)).toBeDefined();
      treeStructure(nodes, leaf);
      layoutTree(nodes, options(leaf));
      layoutTree(nodes, { ...options(leaf), revealedId: "m200" });
      treeLookup(nodes);
    }
    for (let round = 0; round < 3; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    // The list just before the one on screen may be kept (what the next append extends from
    // was built from it); every older one must be gone.
    const kept = old.slice(0, -1).filter((ref) => ref.deref() !== undefined).length;
    expect(kept).toBe(0);
    expect(nodes.length).toBe(406);
  });
});
