// Canvas marks (renderer/src/features/tree/marks.ts), keyboard moves (keyboard.ts) and drop
// targets (drop-target.ts): what the model does not see at a leaf is dimmed (SPEC §3.1), the
// region a compaction replaced, plan and branch-move highlights, and arrow, Home and End steps.
import { describe, expect, it } from "vitest";
import type { CompactionPlanDto, NavigationPreviewDto } from "../../core/api/dto.ts";
import { dropTarget } from "../../renderer/src/features/tree/drop-target.ts";
import { stepFrom } from "../../renderer/src/features/tree/keyboard.ts";
import { chainNodeId, layoutTree } from "../../renderer/src/features/tree/layout.ts";
import {
  computeMarks,
  entryMarks,
  layoutNodeMarks,
  MARK,
  modelViewAt,
} from "../../renderer/src/features/tree/marks.ts";
import { TreeBuilder } from "./tree-builders.ts";

/**
 * r ─ u1 ─ a1 ─ u2 ─ a2 ─ c1(compaction, keeps from u2) ─ u3 ─ a3      (view leaf a3)
 *      └─ x1 ─ x2                                                     (abandoned branch)
 */
function compacted() {
  const b = new TreeBuilder();
  b.add("r", null, "user");
  b.add("u1", "r", "user");
  b.add("a1", "u1", "assistant");
  b.add("u2", "a1", "user");
  b.add("a2", "u2", "assistant");
  b.add("c1", "a2", "compaction", { firstKeptEntryId: "u2", tokensBefore: 1234, summary: "done so far" });
  b.add("u3", "c1", "user");
  b.add("a3", "u3", "assistant");
  b.add("x1", "u1", "user");
  b.add("x2", "x1", "assistant");
  return b;
}

const plan = (extra: Partial<CompactionPlanDto>): CompactionPlanDto => ({
  sessionId: "s",
  leafId: "a3",
  firstKeptEntryId: "u3",
  isSplitTurn: false,
  turnStartEntryId: null,
  tokensBefore: 1000,
  tokensBeforeMeasured: null,
  tokensBeforeEstimated: 1000,
  keepRecentTokens: 20000,
  requestedKeepRecentTokens: 20000,
  summarizeEntryIds: ["u2", "a2"],
  turnPrefixEntryIds: [],
  keptEntryIds: ["u3", "a3"],
  previousSummary: true,
  previousCompactionId: "c1",
  readFiles: [],
  modifiedFiles: [],
  keptTokens: 20,
  maxSummaryTokens: 100,
  summarizer: "offline",
  notes: [],
  plannedWith: { keepRecentTokens: 20000, reserveTokens: 16384, remoteEndpoint: null, model: null },
  ...extra,
});

describe("what the model sees at a leaf", () => {
  it("after a compaction: the summary, the kept entries and what follows; nothing before the cut", () => {
    const layout = layoutTree(compacted().nodes, { filter: "all", viewLeafId: "a3", collapseChains: false });
    const view = modelViewAt(layout.entry, "a3");
    expect([...(view?.seen ?? [])].sort()).toEqual(["a2", "a3", "c1", "u2", "u3"]);
    expect(view?.compaction).toEqual({ id: "c1", firstKeptEntryId: "u2", regionIds: ["r", "u1", "a1"] });
  });

  it("without a compaction: the whole path", () => {
    const layout = layoutTree(compacted().nodes, { filter: "all", viewLeafId: "a3", collapseChains: false });
    expect([...(modelViewAt(layout.entry, "x2")?.seen ?? [])]).toEqual(["r", "u1", "x1", "x2"]);
    expect(modelViewAt(layout.entry, "x2")?.compaction).toBeNull();
  });

  it("a first kept entry that is not on the path keeps nothing from before the compaction", () => {
    const b = compacted();
    b.add("c2", "a3", "compaction", { firstKeptEntryId: "x1" });
    const layout = layoutTree(b.nodes, { filter: "all", viewLeafId: "c2", collapseChains: false });
    const view = modelViewAt(layout.entry, "c2");
    expect([...(view?.seen ?? [])]).toEqual(["c2"]);
    // The previous compaction kept from u2, so this summary replaced u2 … a3.
    expect(view?.compaction?.regionIds).toEqual(["u2", "a2", "c1", "u3", "a3"]);
  });

  it("dims entries before the cut and on other branches, and marks the replaced region", () => {
    const layout = layoutTree(compacted().nodes, { filter: "all", viewLeafId: "a3", collapseChains: false });
    const marks = computeMarks({ layout, leafId: "a3", plan: null, branchPreview: null, dropTargetId: null });
    const dimmed = (id: string) => (entryMarks(marks, layout, id) & MARK.dimmed) !== 0;
    expect(["r", "u1", "a1", "x1", "x2"].every(dimmed)).toBe(true);
    expect(["u2", "a2", "c1", "u3", "a3"].some(dimmed)).toBe(false);
    expect(entryMarks(marks, layout, "a1") & MARK.replaced).toBe(MARK.replaced);
    expect(entryMarks(marks, layout, "a3") & MARK.active).toBe(MARK.active);
    expect(layout.firstKeptBy.get("u2")).toEqual(["c1"]);
  });

  it("with no leaf (the view leaf moved before the first entry) the model sees nothing: everything is dimmed", () => {
    const layout = layoutTree(compacted().nodes, { filter: "all", viewLeafId: null, collapseChains: false });
    const marks = computeMarks({ layout, leafId: null, plan: null, branchPreview: null, dropTargetId: null });
    const dimmed = layout.entries.filter((node) => (entryMarks(marks, layout, node.id) & MARK.dimmed) !== 0);
    expect(dimmed.length).toBe(layout.entries.length);
    expect(marks.view?.compaction ?? null).toBeNull();
  });

  it("selecting an entry on another branch previews it as the leaf", () => {
    const layout = layoutTree(compacted().nodes, { filter: "all", viewLeafId: "a3", collapseChains: false });
    const marks = computeMarks({ layout, leafId: "x2", plan: null, branchPreview: null, dropTargetId: null });
    expect(entryMarks(marks, layout, "x1") & MARK.dimmed).toBe(0);
    expect(entryMarks(marks, layout, "a3") & MARK.dimmed).toBe(MARK.dimmed);
  });
});

describe("what the model sees at the end of a long compacted path", () => {
  // 30 rounds of 100 entries, each closed by a compaction keeping its round's last 40 entries.
  const b = new TreeBuilder();
  let parent: string | null = null;
  for (let round = 0; round < 30; round++) {
    parent = b.chain(`r${round}-`, parent, 100);
    b.add(`c${round}`, parent, "compaction", {
      firstKeptEntryId: `r${round}-60`,
      tokensBefore: 100,
      summary: "s",
    });
    parent = `c${round}`;
  }
  const leaf = b.chain("tail-", parent, 10);
  const byId = new Map(b.nodes.map((node) => [node.id, node]));

  it("reads the path only back to the compaction before the last one's first kept entry", () => {
    let lookups = 0;
    const view = modelViewAt((id) => {
      lookups++;
      return byId.get(id);
    }, leaf);
    expect(view?.compaction?.id).toBe("c29");
    expect(view?.compaction?.firstKeptEntryId).toBe("r29-60");
    // Seen: the kept 40 entries, the summary, the 10 after it. Replaced: from c28's kept entry to c29's.
    expect(view?.seen.size).toBe(51);
    expect(view?.seen.has("r29-59")).toBe(false);
    expect(view?.compaction?.regionIds[0]).toBe("r28-60");
    expect(view?.compaction?.regionIds.at(-1)).toBe("r29-59");
    expect(view?.compaction?.regionIds).toHaveLength(101);
    // 3,041 entries on the path; the answer needs the last ~190 of them.
    expect(lookups).toBeLessThan(250);
  });
});

describe("plan and branch-move highlights", () => {
  it("marks the planned cut, what the plan summarizes and the turn prefix", () => {
    const layout = layoutTree(compacted().nodes, { filter: "all", viewLeafId: "a3", collapseChains: false });
    const marks = computeMarks({
      layout,
      leafId: "a3",
      plan: plan({
        isSplitTurn: true,
        turnStartEntryId: "u3",
        turnPrefixEntryIds: ["u3"],
        firstKeptEntryId: "a3",
      }),
      branchPreview: null,
      dropTargetId: null,
    });
    expect(entryMarks(marks, layout, "a3") & MARK.plannedCut).toBe(MARK.plannedCut);
    expect(entryMarks(marks, layout, "u2") & MARK.willSummarize).toBe(MARK.willSummarize);
    expect(entryMarks(marks, layout, "u3") & (MARK.turnPrefix | MARK.willSummarize)).toBe(
      MARK.turnPrefix | MARK.willSummarize,
    );
    expect(entryMarks(marks, layout, "u1") & MARK.willSummarize).toBe(0);
  });

  it("marks the entries a branch move would summarize and the drop target, also inside chains", () => {
    const b = new TreeBuilder();
    b.add("r", null, "user");
    b.add("leaf", b.chain("c", "r", 20), "assistant");
    b.add("other", "r", "user");
    const layout = layoutTree(b.nodes, { filter: "default", viewLeafId: "leaf" });
    const preview: NavigationPreviewDto = {
      sessionId: "s",
      targetId: "other",
      oldLeafId: "leaf",
      commonAncestorId: "r",
      entriesToSummarize: [...Array.from({ length: 20 }, (_, i) => `c${i}`), "leaf"],
      summaryHasMessages: true,
      newLeafId: "r",
      editorText: "user other",
    };
    const marks = computeMarks({
      layout,
      leafId: null,
      plan: null,
      branchPreview: preview,
      dropTargetId: "other",
    });
    expect(layoutNodeMarks(marks, layout, chainNodeId("c0")) & MARK.willSummarize).toBe(MARK.willSummarize);
    expect(marks.chain(chainNodeId("c0")).summarized).toBe(20);
    expect(entryMarks(marks, layout, "other") & MARK.dropTarget).toBe(MARK.dropTarget);
    expect(entryMarks(marks, layout, "r") & MARK.willSummarize).toBe(0);
  });
});

describe("keyboard moves", () => {
  const b = new TreeBuilder();
  b.add("r", null, "user");
  b.add("a", "r", "assistant", { label: "here" });
  b.add("b", "r", "assistant");
  b.add("leaf", b.chain("c", "a", 12), "user");
  const layout = layoutTree(b.nodes, { filter: "default", viewLeafId: "leaf" });

  it("up goes to the parent, down to the first child, left and right to siblings", () => {
    expect(stepFrom(layout, "a", "ArrowUp")).toBe("r");
    expect(stepFrom(layout, "r", "ArrowDown")).toBe("a");
    expect(stepFrom(layout, "a", "ArrowRight")).toBe("b");
    expect(stepFrom(layout, "b", "ArrowLeft")).toBe("a");
    expect(stepFrom(layout, "b", "ArrowRight")).toBeNull();
    expect(stepFrom(layout, "r", "ArrowUp")).toBeNull();
  });

  it("steps into a chain at its near end", () => {
    expect(stepFrom(layout, "a", "ArrowDown")).toBe("c0");
    expect(stepFrom(layout, "leaf", "ArrowUp")).toBe("c11");
  });

  it("Home goes to the root above, End to the tip of the branch below (first children)", () => {
    expect(stepFrom(layout, "leaf", "Home")).toBe("r");
    expect(stepFrom(layout, "b", "Home")).toBe("r");
    expect(stepFrom(layout, "r", "End")).toBe("leaf");
    expect(stepFrom(layout, "a", "End")).toBe("leaf");
    // From inside a collapsed chain: the chain node is the start, not the end.
    const chain = layout.nodeOfEntry("c5") ?? "";
    expect(stepFrom(layout, chain, "End")).toBe("leaf");
    expect(stepFrom(layout, chain, "Home")).toBe("r");
    // Already at the end: no move.
    expect(stepFrom(layout, "r", "Home")).toBeNull();
    expect(stepFrom(layout, "leaf", "End")).toBeNull();
    expect(stepFrom(layout, "b", "End")).toBeNull();
  });
});

describe("drop targets", () => {
  it("the leaf onto an entry targets the entry; a node onto the leaf targets the node", () => {
    expect(dropTarget("leaf", "x", "leaf")).toBe("x");
    expect(dropTarget("x", "leaf", "leaf")).toBe("x");
    expect(dropTarget("leaf", "leaf", "leaf")).toBeNull();
    expect(dropTarget("leaf", null, "leaf")).toBeNull();
    expect(dropTarget("y", "x", "leaf")).toBe("x");
  });
});
