// What the pruning panel says (renderer/src/features/pruning/prune-words.ts): the plan with its
// count, tools and tokens; plainly "Nothing to prune" with why when the saving is under the
// 20,000-token minimum or nothing is old enough; and the outcome lines of a prune and a restore.
import { describe, expect, it } from "vitest";
import type { PrunePlanDto } from "../../core/api/dto.ts";
import {
  applyLabel,
  planSentence,
  prunedSentence,
  restoredSentence,
  toolsCounted,
} from "../../renderer/src/features/pruning/prune-words.ts";

/** A plan whose candidates are of these tools, counted as main counts them (most first, ties in order). */
const plan = (tools: string[], tokensSaved: number, willPrune: boolean): PrunePlanDto => ({
  sessionId: "s1",
  leafId: "l1",
  candidateCount: tools.length,
  tools: [...new Set(tools)]
    .map((toolName) => ({ toolName, count: tools.filter((t) => t === toolName).length }))
    .sort((a, b) => b.count - a.count),
  tokensSaved,
  willPrune,
  alreadyPruned: 0,
  reason: willPrune ? null : "server words",
});

describe("the pruning plan in words", () => {
  it("says how many outputs of which tools and the tokens saved", () => {
    const p = plan(["edit", "bash", "bash"], 44973, true);
    expect(toolsCounted(p.tools)).toBe("2 bash, 1 edit");
    expect(planSentence(p)).toBe(
      "Replaces 3 old tool outputs (2 bash, 1 edit) with a one-line notice, saving ~44,973 tokens (estimated). The originals stay in the library.",
    );
    expect(applyLabel(p)).toBe("Prune 3 outputs");
    expect(applyLabel(plan(["bash"], 25000, true))).toBe("Prune 1 output");
  });

  it("says plainly when the saving is under the minimum", () => {
    expect(planSentence(plan(["bash"], 14991, false))).toBe(
      "Nothing to prune: the 1 old tool output it could replace would save only ~14,991 tokens, under the 20,000-token minimum.",
    );
  });

  it("says plainly when no output is old enough", () => {
    expect(planSentence(plan([], 0, false))).toBe(
      "Nothing to prune: no tool output is old enough (the newest 40,000 tokens of tool output, and skill and read outputs, are kept).",
    );
  });

  it("says the old outputs are pruned already, not that none is old enough, after a prune", () => {
    expect(planSentence({ ...plan([], 0, false), alreadyPruned: 2 })).toBe(
      "Nothing more to prune: 2 old tool outputs on this path are pruned already (Restore pruned outputs puts them back); the newest 40,000 tokens of tool output, and skill and read outputs, are kept.",
    );
  });

  it("says what a prune and a restore did", () => {
    const result = { sessionId: "s1", prunedCount: 2, tokensSaved: 29982 };
    expect(prunedSentence(result)).toBe(
      "Pruned 2 tool outputs, ~29,982 tokens saved; the LLM view shows their notices.",
    );
    expect(prunedSentence({ ...result, prunedCount: 0 })).toMatch(/^Nothing was pruned/);
    expect(restoredSentence(result)).toBe(
      "Restored 2 pruned tool outputs; the LLM view shows them as they were.",
    );
    expect(restoredSentence({ ...result, prunedCount: 0 })).toBe(
      "Nothing to restore: no tool output of this session is pruned.",
    );
  });
});
