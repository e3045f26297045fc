// What a branch summary reads of the branch left (SPEC §8.2), as the move dialog tells it.
import { describe, expect, it } from "vitest";
import type { TreeNodeDto } from "../../core/api/dto.ts";
import { summaryReadsNothing } from "../../renderer/src/features/tree/branch-reads.ts";

const node = (id: string, type: string, kind = type): TreeNodeDto =>
  ({ id, parentId: null, line: 1, type, kind, text: "", tokens: 0, timestamp: "" }) as TreeNodeDto;
const nodes = new Map(
  [
    node("m", "model_change"),
    node("l", "label"),
    node("t", "message", "toolResult"),
    node("a", "message", "assistant"),
    node("c", "custom_message"),
    node("s", "branch_summary"),
    node("k", "compaction"),
    node("x", "custom"),
  ].map((n) => [n.id, n]),
);
const reads = (ids: string[]) => summaryReadsNothing(ids, (id) => nodes.get(id));

describe("summaryReadsNothing", () => {
  it("is true for bookkeeping and tool results only (tool results are skipped, §8.2)", () => {
    expect(reads(["m", "l", "t", "x"])).toBe(true);
  });
  it("is false as soon as one entry gives a message, or one is not known", () => {
    for (const id of ["a", "c", "s", "k", "unknown"]) expect(reads(["m", id])).toBe(false);
  });
});
