// Cut points: SPEC §5.2, behaviours 36–37, decisions D6 and D18 at the findCutPoint level.
import { describe, expect, it } from "vitest";
import {
  findCutPoint,
  findTurnStartIndex,
  isTurnStart,
  isValidCutPoint,
} from "../../../core/compaction/cut-point.ts";
import { pathOf } from "./_path.ts";

const ANCHOR = { anchorSplitTurns: true };

describe("valid cut points and turn starts (SPEC §5.2 step 1, D18)", () => {
  it("accepts user/assistant/bash/custom messages, custom_message and branch_summary; never tool results or metadata", () => {
    const p = pathOf("u1 a1 t1 bash1 custom1 cm1 bs1 m l label:e0 c:e0");
    p.add("message", { message: { role: "pythonExecution", code: "", output: "" } });
    p.add("message", { message: { role: "fileMention", files: [] } });
    p.add("message", { message: "broken" });
    p.add("mystery_type");
    expect(p.entries.map((e) => isValidCutPoint(e))).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(p.entries.map((e) => isTurnStart(e))).toEqual([
      true,
      false,
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("findTurnStartIndex scans back to the start inclusive and gives -1 when there is none", () => {
    const p = pathOf("a1 u1 a1 t1");
    expect(findTurnStartIndex(p.entries, 3, 0)).toBe(1);
    expect(findTurnStartIndex(p.entries, 3, 2)).toBe(-1);
    expect(findTurnStartIndex(p.entries, 0, 0)).toBe(-1);
  });
});

/** One findCutPoint call: its window and budget, and the whole result or just firstKeptEntryIndex. */
interface Cut {
  window: [start: number, end: number];
  keep: number;
  anchor?: boolean;
  expected: ReturnType<typeof findCutPoint> | number;
}

const notSplit = (firstKeptEntryIndex: number) => ({
  firstKeptEntryIndex,
  turnStartIndex: -1,
  isSplitTurn: false,
});
const split = (firstKeptEntryIndex: number, turnStartIndex: number) => ({
  firstKeptEntryIndex,
  turnStartIndex,
  isSplitTurn: true,
});

/** Each case: a path (see pathOf; entry i is e<i>) and the cuts asked of it. */
const CASES: { name: string; path: string; cuts: Cut[] }[] = [
  {
    name: "B36: a single assistant entry with keep 1000 → firstKeptEntryIndex 0",
    path: "a10",
    cuts: [{ window: [0, 1], keep: 1000, expected: notSplit(0) }],
  },
  {
    name: "B37: entries that all fit in the budget → the cut is the first entry (index 0)",
    path: "u10 a10 u10 a10",
    cuts: [{ window: [0, 4], keep: 1000, expected: 0 }],
  },
  {
    name: "no valid cut point in the window → the window start, not split",
    path: "u10 t10 label:e0",
    cuts: [{ window: [1, 3], keep: 5, expected: notSplit(1) }],
  },
  {
    name: "the pull-back stops at a compaction and at the window start",
    path: "u1000 c:e0 m u1000",
    cuts: [
      { window: [0, 4], keep: 500, expected: 2 },
      { window: [3, 4], keep: 500, expected: 3 },
    ],
  },
  {
    name: "D6: metadata pulled in front of a user message is not a split turn (anchor: split, E3)",
    path: "u1000 a1000 m l u1000 a1000",
    cuts: [
      { window: [0, 6], keep: 1500, expected: notSplit(2) },
      { window: [0, 6], keep: 1500, anchor: true, expected: split(2, 0) },
    ],
  },
  {
    name: "D6 (E7 spirit): a cut on a bashExecution message starts a turn → not split (anchor: split, empty prefix)",
    path: "u100 a100 t5000 bash100 a100",
    cuts: [
      { window: [0, 5], keep: 2000, expected: notSplit(3) },
      { window: [0, 5], keep: 2000, anchor: true, expected: split(3, 3) },
    ],
  },
  {
    name: "D6: metadata and a custom_message pulled in front of an assistant → not split (the custom_message starts the turn)",
    path: "u1000 a1000 cm10 m a1000",
    cuts: [{ window: [0, 5], keep: 500, expected: notSplit(2) }],
  },
  {
    name: "a cut on an assistant after pulled-in metadata is still a split of its turn",
    path: "u100 a100 t3000 l a100",
    cuts: [{ window: [0, 5], keep: 1000, expected: split(3, 0) }],
  },
  {
    name: "an assistant cut with no turn start in the window is not split",
    path: "a1000 t1000 a1000",
    cuts: [{ window: [0, 3], keep: 500, expected: notSplit(2) }],
  },
  {
    // Backwards: A 100, custom 1100 ≥ 1000 at i=2 → the custom message is the cut (the anchor
    // counts it as 0 tokens and skips it, so it would go on to the assistant at 1).
    name: "D18: a message entry with role custom is a valid cut point and counts its tokens",
    path: "u1000 a1000 custom1000 a100",
    cuts: [{ window: [0, 4], keep: 1000, expected: notSplit(2) }],
  },
  {
    name: "a non-positive budget keeps only from the newest cut point",
    path: "u10 a10 u10",
    cuts: [{ window: [0, 3], keep: 0, expected: 2 }],
  },
];

describe("findCutPoint (SPEC §5.2)", () => {
  // "%s" (not "$name", which shortens long names): each test keeps its full name.
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, { path, cuts }) => {
    const p = pathOf(path);
    for (const { window, keep, anchor, expected } of cuts) {
      const cut = findCutPoint(p.entries, ...window, keep, anchor ? ANCHOR : undefined);
      if (typeof expected === "number") expect(cut.firstKeptEntryIndex).toBe(expected);
      else expect(cut).toEqual(expected);
    }
  });
});
