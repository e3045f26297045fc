// The depth of each entry in the session, which a canvas node tells a screen reader (its
// aria-level less one), whatever the order of the node list, on a very deep chain without
// recursion, and on a malformed cycle without hanging.
import { describe, expect, it } from "vitest";
import { entryDepths } from "../../renderer/src/features/tree/entry-depths.ts";
import { TreeBuilder } from "./tree-builders.ts";

describe("entryDepths", () => {
  it("counts each entry's ancestors, roots at 0, a branch's children one below its fork", () => {
    const tree = new TreeBuilder();
    const tip = tree.chain("a", null, 3);
    tree.add("b0", "a0");
    tree.add("c0", tip);
    tree.add("r2", null);
    const depths = entryDepths(tree.nodes);
    expect(Object.fromEntries(depths)).toEqual({ a0: 0, a1: 1, a2: 2, b0: 1, c0: 3, r2: 0 });
  });

  it("does not depend on parents coming first in the list", () => {
    const tree = new TreeBuilder();
    tree.chain("a", null, 5);
    const depths = entryDepths([...tree.nodes].reverse());
    expect(depths.get("a4")).toBe(4);
    expect(depths.get("a0")).toBe(0);
  });

  it("walks a 100,000-deep chain without running out of stack", () => {
    const tree = new TreeBuilder();
    const tip = tree.chain("e", null, 100_000);
    expect(entryDepths(tree.nodes).get(tip)).toBe(99_999);
  });

  it("ends on a cycle (a malformed file) instead of looping", () => {
    const tree = new TreeBuilder();
    tree.add("x", "y");
    tree.add("y", "x");
    const depths = entryDepths(tree.nodes);
    expect(depths.has("x")).toBe(true);
    expect(depths.has("y")).toBe(true);
  });
});
