// Tool-output pruning policy: SPEC §7.1, behaviour 48, decision D9 (read is protected too).
// Each result in the verified examples is 15000 tokens (60000 chars), oldest first.
import { describe, expect, it } from "vitest";
import {
  applyPruningToMessage,
  DEFAULT_PRUNING,
  planPruning,
  pruneNotice,
} from "../../../core/compaction/pruning.ts";
import { messageToLlm } from "../../../core/session/llm-messages.ts";
import { plainTemplates, toolResult } from "../_builders.ts";
import { ids, pathBuilder } from "./_path.ts";

const ANCHOR_RULE = { ...DEFAULT_PRUNING, protectedTools: ["skill"] };

function results(...specs: [tokens: number, tool: string][]) {
  const p = pathBuilder();
  p.u(10);
  for (const [tokens, tool] of specs) {
    p.a(10);
    p.t(tokens, tool);
  }
  return p.entries;
}

const bash = (n = 1) => Array.from({ length: n }, (): [number, string] => [15000, "bash"]);

describe("pruning examples (behaviour 48)", () => {
  it("five results: the newest three are protected, the two oldest are pruned (29982 saved); unchanged by D9", () => {
    const path = results(...bash(5));
    const plan = planPruning(path);
    expect(plan).toMatchObject({ willPrune: true, prunedCount: 2, tokensSaved: 29982 });
    expect(plan.candidates).toEqual([
      { entryId: "e2", tokens: 15000 },
      { entryId: "e4", tokens: 15000 },
    ]);
    expect(planPruning(path, ANCHOR_RULE)).toEqual(plan);
  });

  it("four results: one candidate saving 14991 < 20000 → nothing pruned; unchanged by D9", () => {
    const plan = planPruning(results(...bash(4)));
    expect(plan).toMatchObject({ willPrune: false, prunedCount: 0, tokensSaved: 0, candidateSavings: 14991 });
    expect(plan.candidates).toHaveLength(1);
  });

  it("oldest a skill result + four others: one non-skill candidate (14991) → nothing pruned; unchanged by D9", () => {
    const plan = planPruning(results([15000, "skill"], ...bash(4)));
    expect(plan).toMatchObject({ willPrune: false, prunedCount: 0, tokensSaved: 0 });
    expect(plan.candidates).toEqual([{ entryId: "e4", tokens: 15000 }]);
  });

  it("oldest read 15000 and bash 25000, then three × 15000, adjusted by D9: read is protected, only bash is pruned (24991 saved; anchor: both, 39982)", () => {
    const path = results([15000, "read"], [25000, "bash"], ...bash(3));
    const plan = planPruning(path);
    expect(plan).toMatchObject({ willPrune: true, prunedCount: 1, tokensSaved: 24991 });
    expect(plan.candidates).toEqual([{ entryId: "e4", tokens: 25000 }]);
  });

  it("with protectedTools ['skill'] (the anchor's rule) the original numbers come out exactly", () => {
    const four = planPruning(results([15000, "read"], [25000, "bash"], ...bash(3)), ANCHOR_RULE);
    expect(four).toMatchObject({ willPrune: true, prunedCount: 2, tokensSaved: 39982 });
    expect(four.candidates.map((c) => c.entryId)).toEqual(ids(2, 4));
    expect(planPruning(results(...bash(5)), ANCHOR_RULE)).toMatchObject({
      prunedCount: 2,
      tokensSaved: 29982,
    });
    expect(planPruning(results(...bash(4)), ANCHOR_RULE)).toMatchObject({ prunedCount: 0, tokensSaved: 0 });
    expect(planPruning(results([15000, "skill"], ...bash(4)), ANCHOR_RULE)).toMatchObject({
      prunedCount: 0,
      tokensSaved: 0,
    });
  });
});

describe("D9: read and skill outputs are never pruned", () => {
  it("five read results: nothing pruned (anchor: the two oldest)", () => {
    const reads = Array.from({ length: 5 }, (): [number, string] => [15000, "read"]);
    expect(planPruning(results(...reads))).toMatchObject({ willPrune: false, candidates: [] });
    expect(planPruning(results(...reads), ANCHOR_RULE)).toMatchObject({ willPrune: true, prunedCount: 2 });
  });

  it("already pruned results count towards the protected total but are never candidates again", () => {
    const p = pathBuilder();
    p.t(15000, "bash"); // 0
    p.t(30000, "bash", { prunedAt: 1 }); // 1: already pruned
    p.t(15000, "bash"); // 2
    p.t(15000, "bash"); // 3
    const plan = planPruning(p.entries);
    // Total before each, newest first: e3 0 and e2 15000 (protected), e1 30000 (already pruned,
    // adds 30000), e0 60000 → the only candidate.
    expect(plan.candidates.map((c) => c.entryId)).toEqual(["e0"]);
    expect(plan.willPrune).toBe(false);
  });
});

describe("pruned message", () => {
  it("has one text block with the notice and prunedAt; the model sees the notice", () => {
    const original = toolResult("x".repeat(60000), { toolName: "bash" });
    const pruned = applyPruningToMessage(original, 15000, 1234);
    expect(pruneNotice(15000)).toBe("[Output truncated - 15000 tokens]");
    expect(pruneNotice(15000)).toHaveLength(33);
    expect(pruned).toEqual({
      ...original,
      content: [{ type: "text", text: "[Output truncated - 15000 tokens]" }],
      prunedAt: 1234,
    });
    expect(original.content[0]).toMatchObject({ text: "x".repeat(60000) }); // the original is untouched
    expect(messageToLlm(pruned, plainTemplates)).toMatchObject({
      content: [{ type: "text", text: "[Output truncated - 15000 tokens]" }],
    });
  });
});
