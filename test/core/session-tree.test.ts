// In-memory tree operations: SPEC §2.2–2.6, behaviours 8–16.
import { describe, expect, it } from "vitest";
import { buildSessionContext } from "../../core/session/context.ts";
import { sequentialIds } from "../../core/session/ids.ts";
import { SessionTree } from "../../core/session/session-tree.ts";
import { assistant, iso, msg, textOf, user } from "./_builders.ts";

function session(): SessionTree {
  let t = 0;
  return new SessionTree([], { generateId: sequentialIds(), now: () => new Date(Date.parse(iso(t++))) });
}

function contextTexts(tree: SessionTree): (string | undefined)[] {
  return buildSessionContext(tree.getEntries(), tree.getLeafId()).messages.map(textOf);
}

describe("appending (SPEC §2.2)", () => {
  it("B8: three messages form a chain; the leaf starts null and ends on the last id", () => {
    const tree = session();
    expect(tree.getLeafId()).toBeNull();
    const id1 = tree.appendMessage(user("1"));
    const id2 = tree.appendMessage(assistant("2"));
    const id3 = tree.appendMessage(user("3"));
    expect(tree.getEntries().map((e) => [e.id, e.parentId])).toEqual([
      [id1, null],
      [id2, id1],
      [id3, id2],
    ]);
    expect(tree.getLeafId()).toBe(id3);
    for (const id of [id1, id2, id3]) expect(id).toMatch(/^[0-9a-f]{8}$/);
  });

  it("B9: thinking/model/compaction/custom entries each hang off the previous leaf", () => {
    const tree = session();
    const m1 = tree.appendMessage(user("1"));
    const thinking = tree.appendThinkingLevelChange("high");
    const model = tree.appendModelChange("openai/gpt-4", "smol");
    const comp = tree.appendCompaction("sum", m1, 123);
    const custom = tree.appendCustomEntry("ext", { a: 1 });
    const next = tree.appendMessage(user("2"));
    const parents = Object.fromEntries(tree.getEntries().map((e) => [e.id, e.parentId]));
    expect(parents).toEqual({
      [m1]: null,
      [thinking]: m1,
      [model]: thinking,
      [comp]: model,
      [custom]: comp,
      [next]: custom,
    });
    expect(tree.getEntry(comp)).toMatchObject({
      type: "compaction",
      firstKeptEntryId: m1,
      tokensBefore: 123,
    });
    // Keys with undefined values are absent, as in the agents' files.
    expect(tree.getEntry(comp)).not.toHaveProperty("shortSummary");
    expect(tree.getEntry(model)).toMatchObject({ model: "openai/gpt-4", role: "smol" });
  });
});

describe("moving the leaf (SPEC §2.5)", () => {
  it("B10: branch(2) then append → entry 2 has two children and the context is 1, 2, new", () => {
    const tree = session();
    const id1 = tree.appendMessage(user("1"));
    const id2 = tree.appendMessage(assistant("2"));
    tree.appendMessage(user("3"));
    tree.branch(id2);
    const fresh = tree.appendMessage(user("new"));
    expect(tree.getChildren(id2)).toHaveLength(2);
    expect(tree.getBranch().map((e) => e.id)).toEqual([id1, id2, fresh]);
    expect(contextTexts(tree)).toEqual(["1", "2", "new"]);
  });

  it("B11: unknown ids throw `Entry <id> not found`", () => {
    const tree = session();
    tree.appendMessage(user("1"));
    expect(() => tree.branch("nonexistent")).toThrow("Entry nonexistent not found");
    expect(() => tree.branchWithSummary("nonexistent", "s")).toThrow("Entry nonexistent not found");
    expect(() => tree.appendLabelChange("non-existent", "x")).toThrow("Entry non-existent not found");
    expect(tree.getEntries()).toHaveLength(1);
  });

  it("B12: branchWithSummary attaches at fromId (or a new root) and becomes the leaf", () => {
    const tree = session();
    const id1 = tree.appendMessage(user("1"));
    tree.appendMessage(assistant("2"));
    tree.appendMessage(user("3"));
    const summary = tree.branchWithSummary(id1, "Summary of the branch", { readFiles: [] }, true);
    expect(tree.getLeafId()).toBe(summary);
    expect(tree.getEntry(summary)).toMatchObject({
      type: "branch_summary",
      parentId: id1,
      fromId: id1,
      summary: "Summary of the branch",
      fromExtension: true,
    });
    const rootSummary = tree.branchWithSummary(null, "from root");
    expect(tree.getEntry(rootSummary)).toMatchObject({ parentId: null, fromId: "root" });
    expect(tree.getLeafId()).toBe(rootSummary);
  });

  it("resetLeaf makes the next append a new root", () => {
    const tree = session();
    tree.appendMessage(user("1"));
    tree.resetLeaf();
    const root = tree.appendMessage(user("2"));
    expect(tree.getEntry(root)?.parentId).toBeNull();
  });
});

describe("reading the tree (SPEC §2.3)", () => {
  it("B13: an empty session has no branch, no tree and no leaf entry", () => {
    const tree = session();
    expect(tree.getBranch()).toEqual([]);
    expect(tree.getTree()).toEqual([]);
    expect(tree.getLeafEntry()).toBeUndefined();
  });

  it("B14: children are sorted by timestamp; an entry with a missing parent is an extra root", () => {
    const entries = [
      { ...msg("r", null, user("root")), timestamp: iso(0) },
      { ...msg("late", "r", user("late")), timestamp: iso(30) },
      { ...msg("early", "r", user("early")), timestamp: iso(10) },
      { ...msg("mid", "r", user("mid")), timestamp: iso(20) },
      { ...msg("orphan", "gone", user("orphan")), timestamp: iso(5) },
    ];
    const tree = new SessionTree(entries);
    const roots = tree.getTree();
    expect(roots.map((n) => n.entry.id)).toEqual(["r", "orphan"]);
    expect(roots[0]?.children.map((n) => n.entry.id)).toEqual(["early", "mid", "late"]);
    // getChildren keeps file order.
    expect(tree.getChildren("r").map((e) => e.id)).toEqual(["late", "early", "mid"]);
    expect(tree.getLeafId()).toBe("orphan");
  });
});

describe("labels (SPEC §2.4)", () => {
  it("B15: getLabel follows the last change; tree nodes carry labels; the context ignores them", () => {
    const tree = session();
    const id1 = tree.appendMessage(user("1"));
    const id2 = tree.appendMessage(assistant("2"));
    const before = contextTexts(tree);
    tree.appendLabelChange(id1, "bookmark");
    expect(tree.getLabel(id1)).toBe("bookmark");
    tree.appendLabelChange(id1, undefined);
    expect(tree.getLabel(id1)).toBeUndefined();
    for (const label of ["first", "second", "third"]) tree.appendLabelChange(id2, label);
    expect(tree.getLabel(id2)).toBe("third");
    const node1 = tree.getTree()[0];
    expect(node1?.label).toBeUndefined();
    expect(node1?.children[0]?.label).toBe("third");
    expect(contextTexts(tree)).toEqual(before);
    // A label-clear entry has no `label` key.
    expect(tree.getEntries().filter((e) => e.type === "label")[1]).not.toHaveProperty("label");
  });

  it("B16: createBranchedSession keeps the path, re-creates its labels and drops the others", () => {
    const tree = session();
    const id1 = tree.appendMessage(user("1"));
    const id2 = tree.appendMessage(assistant("2"));
    const id3 = tree.appendMessage(user("3"));
    tree.appendLabelChange(id1, "L1");
    tree.appendLabelChange(id2, "L2");
    tree.appendLabelChange(id3, "L3");
    tree.createBranchedSession(id2);
    const entries = tree.getEntries();
    expect(entries.slice(0, 2).map((e) => e.id)).toEqual([id1, id2]);
    const labels = entries.slice(2);
    expect(labels.map((e) => [e.type, e.targetId, e.label])).toEqual([
      ["label", id1, "L1"],
      ["label", id2, "L2"],
    ]);
    expect(labels[0]?.parentId).toBe(id2);
    expect(labels[1]?.parentId).toBe(labels[0]?.id);
    expect(tree.getLabel(id1)).toBe("L1");
    expect(tree.getLabel(id2)).toBe("L2");
    expect(tree.getLabel(id3)).toBeUndefined();
    expect(tree.getLeafId()).toBe(labels[1]?.id);
    expect(() => tree.createBranchedSession("missing")).toThrow("Entry missing not found");
  });

  it("getBranch never loops on a parentId cycle (D3)", () => {
    const tree = new SessionTree([msg("a", "b", user("a")), msg("b", "a", user("b"))]);
    expect(tree.getBranch("a").map((e) => e.id)).toEqual(["b", "a"]);
  });
});
