// prepareCompaction on the worked examples E1–E9 of SPEC §5.3 (behaviour 38). "Anchor" values are
// the verified numbers of §5.3; where Canopy differs the test name says which decision adjusts it
// and the test asserts both.
import { describe, expect, it } from "vitest";
import { findCutPoint } from "../../../core/compaction/cut-point.ts";
import { prepareCompaction } from "../../../core/compaction/prepare.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../../../core/compaction/types.ts";
import { ids, pathOf } from "./_path.ts";
import { contextAfter, cutOf, prepare, roles } from "./_prep.ts";

describe("SPEC §5.3 worked examples (behaviour 38)", () => {
  it("E1: plain cut at a user message", () => {
    const p = pathOf("u1000 a1000 u1000 a1000");
    const prep = prepare(p.entries, 1500);
    expect(cutOf(prep)).toEqual({ firstKept: 2, turnStart: -1, split: false });
    expect(roles(prep)).toEqual({
      summarize: ["user", "assistant"],
      prefix: [],
      recent: ["user", "assistant"],
    });
    expect(prep.summarizeEntryIds).toEqual(ids(0, 1));
    expect(prep.keptEntryIds).toEqual(ids(2, 3));
  });

  it("E2: split turn", () => {
    const p = pathOf("u100 a100 u100 a100 t5000 a100");
    const prep = prepare(p.entries, 2000);
    expect(cutOf(prep)).toEqual({ firstKept: 5, turnStart: 2, split: true });
    expect(roles(prep)).toEqual({
      summarize: ["user", "assistant"],
      prefix: ["user", "assistant", "toolResult"],
      recent: ["assistant"],
    });
    expect(prep.turnPrefixEntryIds).toEqual(ids(2, 3, 4));
  });

  it("E3 adjusted by D6: metadata pulled in front of a user message is not a split (anchor: split, turn start 0)", () => {
    const p = pathOf("u1000 a1000 m l u1000 a1000");
    const prep = prepare(p.entries, 1500);
    expect(cutOf(prep)).toEqual({ firstKept: 2, turnStart: -1, split: false });
    expect(prep.firstKeptEntryId).toBe("e2"); // the model_change, as in the anchor
    expect(roles(prep)).toEqual({
      summarize: ["user", "assistant"],
      prefix: [],
      recent: ["user", "assistant"],
    });
    // Anchor: firstKept 2, turn start 0, split; nothing to summarize and U,A as the turn prefix,
    // so its summary reads "No prior history." + the split-turn separator + the prefix summary.
    expect(findCutPoint(p.entries, 0, 6, 1500, { anchorSplitTurns: true })).toEqual({
      firstKeptEntryIndex: 2,
      turnStartIndex: 0,
      isSplitTurn: true,
    });
  });

  it("E4: a huge newest tool result keeps everything", () => {
    const p = pathOf("u100 a100 t30000");
    const prep = prepare(p.entries, 20000);
    expect(cutOf(prep)).toEqual({ firstKept: 0, turnStart: -1, split: false });
    expect(roles(prep)).toEqual({ summarize: [], prefix: [], recent: ["user", "assistant", "toolResult"] });
  });

  it("E5 adjusted by D5: the second compaction's window starts at the first one's kept entry (anchor: at index 3)", () => {
    const p = pathOf("u1000 a1000 c:e0 u1000 a1000 u1000 a1000");
    const prep = prepare(p.entries, 1500);
    expect(prep.windowStartIndex).toBe(0);
    expect(cutOf(prep)).toEqual({ firstKept: 5, turnStart: -1, split: false });
    expect(prep.previousSummary).toBe("S1");
    expect(prep.previousCompactionId).toBe("e2");
    // Canopy summarizes U0, A1 (kept verbatim by C1) with U3, A4; the anchor summarized only U3, A4.
    expect(prep.summarizeEntryIds).toEqual(ids(0, 1, 3, 4));
    expect(findCutPoint(p.entries, 3, 7, 1500).firstKeptEntryIndex).toBe(5);
    expect(contextAfter(p.entries, prep)).toEqual(["new", "e5", "e6"]);
  });

  it("E5 with keep 100000 adjusted by D5: nothing is dropped (anchor: firstKept 3, U0 and A1 leave the context)", () => {
    const p = pathOf("u1000 a1000 c:e0 u1000 a1000 u1000 a1000");
    const prep = prepare(p.entries, 100000);
    expect(cutOf(prep)).toEqual({ firstKept: 0, turnStart: -1, split: false });
    expect(prep.messagesToSummarize).toEqual([]);
    expect(prep.keptEntryIds).toEqual(ids(0, 1, 3, 4, 5, 6));
    expect(contextAfter(p.entries, prep)).toEqual(["new", "e0", "e1", "e3", "e4", "e5", "e6"]);
    // The anchor's window (after the compaction) cuts at 3 and drops U0, A1.
    expect(findCutPoint(p.entries, 3, 7, 100000).firstKeptEntryIndex).toBe(3);
  });

  it("E6: budget adaptation from measured usage (keep 3000 → 2000, tokensBefore 6200)", () => {
    const p = pathOf("u1000");
    p.a(1000, { usage: { input: 3000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 3100 } });
    p.u(1000);
    p.a(1000, { usage: { input: 6000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 6200 } });
    const prep = prepare(p.entries, 3000);
    expect(prep.keepRecentTokens).toBe(2000);
    expect(cutOf(prep)).toEqual({ firstKept: 2, turnStart: -1, split: false });
    expect(prep.tokensBefore).toBe(6200);
    // Without adaptation the cut would be at the assistant at index 1, splitting the turn at 0.
    expect(findCutPoint(p.entries, 0, 4, 3000)).toEqual({
      firstKeptEntryIndex: 1,
      turnStartIndex: 0,
      isSplitTurn: true,
    });
  });

  // Adjusted by D6: the anchor's own cut (anchorSplitTurns) splits the turn; Canopy's does not.
  // "%s" (not "$name", which shortens long names): each test keeps its full name.
  const d6Splits = [
    {
      name: "E7 adjusted by D6: a cut on a custom_message starts the kept turn, not a split (anchor: split with empty prefix)",
      path: "u100 a100 t5000 cm100 a100",
      keep: 2000,
      cut: { firstKept: 3, turnStart: -1, split: false },
      roles: { summarize: ["user", "assistant", "toolResult"], prefix: [], recent: ["custom", "assistant"] },
      anchor: { firstKeptEntryIndex: 3, turnStartIndex: 3, isSplitTurn: true },
    },
    {
      name: "E8 adjusted by D6: a branch summary pulled in front of a user message is not a split (anchor: split, turn start 2)",
      path: "u1000 a1000 bs500 u1000 a1000",
      keep: 1500,
      cut: { firstKept: 2, turnStart: -1, split: false },
      roles: { summarize: ["user", "assistant"], prefix: [], recent: ["branchSummary", "user", "assistant"] },
      anchor: { firstKeptEntryIndex: 2, turnStartIndex: 2, isSplitTurn: true },
    },
  ];
  it.each(d6Splits.map((c) => [c.name, c] as const))(
    "%s",
    (_name, { path, keep, cut, roles: expected, anchor }) => {
      const p = pathOf(path);
      const prep = prepare(p.entries, keep);
      expect(cutOf(prep)).toEqual(cut);
      expect(roles(prep)).toEqual(expected);
      expect(findCutPoint(p.entries, 0, p.entries.length, keep, { anchorSplitTurns: true })).toEqual(anchor);
    },
  );

  it("E9: empty path and a path ending in a compaction give undefined; [U10] gives a plan keeping U", () => {
    expect(prepareCompaction([], DEFAULT_COMPACTION_SETTINGS)).toBeUndefined();
    const p = pathOf("u10");
    const prep = prepare(p.entries, 20000);
    expect(prep.firstKeptEntryId).toBe("e0");
    expect(roles(prep)).toEqual({ summarize: [], prefix: [], recent: ["user"] });
    p.c("e0");
    expect(prepareCompaction(p.entries, DEFAULT_COMPACTION_SETTINGS)).toBeUndefined();
  });

  it("E9 [U, A, C, label] adjusted by D5: firstKept U, U and A kept (anchor: firstKept = label, nothing recent)", () => {
    const p = pathOf("u10 a10 c:e0 label:e1");
    const prep = prepare(p.entries, 20000);
    expect(prep.firstKeptEntryId).toBe("e0");
    expect(roles(prep)).toEqual({ summarize: [], prefix: [], recent: ["user", "assistant"] });
    expect(prep.previousSummary).toBe("S1");
    // The anchor's window [3, 4) holds only the label: no cut point → firstKept = the label.
    expect(findCutPoint(p.entries, 3, 4, 20000).firstKeptEntryIndex).toBe(3);
  });

  it("E9 [U, A, C, label] with C's kept entry off the path: firstKept = the label, as in the anchor", () => {
    const p = pathOf("u10 a10 c:elsewhere label:e1");
    const prep = prepare(p.entries, 20000);
    expect(prep.windowStartIndex).toBe(3);
    expect(prep.firstKeptEntryId).toBe("e3");
    expect(roles(prep)).toEqual({ summarize: [], prefix: [], recent: [] });
  });
});
