// Cut points: SPEC §5.2, behaviours 36–37, decisions D6 and D18 at the findCutPoint level.
import { describe, expect, it } from "vitest";
import {
  findCutPoint,
  findTurnStartIndex,
  isTurnStart,
  isValidCutPoint,
} from "../../../core/compaction/cut-point.ts";
import { pathBuilder } from "./_path.ts";

const ANCHOR = { anchorSplitTurns: true };

describe("valid cut points and turn starts (SPEC §5.2 step 1, D18)", () => {
  it("accepts user/assistant/bash/custom messages, custom_message and branch_summary; never tool results or metadata", () => {
    const p = pathBuilder();
    p.u(1);
    p.a(1);
    p.t(1);
    p.bash(1);
    p.custom(1);
    p.cm(1);
    p.bs(1);
    p.m();
    p.l();
    p.label("e0");
    p.c("e0");
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
    const p = pathBuilder();
    p.a(1);
    p.u(1);
    p.a(1);
    p.t(1);
    expect(findTurnStartIndex(p.entries, 3, 0)).toBe(1);
    expect(findTurnStartIndex(p.entries, 3, 2)).toBe(-1);
    expect(findTurnStartIndex(p.entries, 0, 0)).toBe(-1);
  });
});

describe("findCutPoint (SPEC §5.2)", () => {
  it("B36: a single assistant entry with keep 1000 → firstKeptEntryIndex 0", () => {
    const p = pathBuilder();
    p.a(10);
    expect(findCutPoint(p.entries, 0, 1, 1000)).toEqual({
      firstKeptEntryIndex: 0,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("B37: entries that all fit in the budget → the cut is the first entry (index 0)", () => {
    const p = pathBuilder();
    p.u(10);
    p.a(10);
    p.u(10);
    p.a(10);
    expect(findCutPoint(p.entries, 0, 4, 1000).firstKeptEntryIndex).toBe(0);
  });

  it("no valid cut point in the window → the window start, not split", () => {
    const p = pathBuilder();
    p.u(10);
    p.t(10);
    p.label("e0");
    expect(findCutPoint(p.entries, 1, 3, 5)).toEqual({
      firstKeptEntryIndex: 1,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("the pull-back stops at a compaction and at the window start", () => {
    const p = pathBuilder();
    p.u(1000); // 0
    p.c("e0"); // 1
    p.m(); // 2
    p.u(1000); // 3
    expect(findCutPoint(p.entries, 0, 4, 500).firstKeptEntryIndex).toBe(2);
    expect(findCutPoint(p.entries, 3, 4, 500).firstKeptEntryIndex).toBe(3);
  });

  it("D6: metadata pulled in front of a user message is not a split turn (anchor: split, E3)", () => {
    const p = pathBuilder();
    p.u(1000);
    p.a(1000);
    p.m();
    p.l();
    p.u(1000);
    p.a(1000);
    expect(findCutPoint(p.entries, 0, 6, 1500)).toEqual({
      firstKeptEntryIndex: 2,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
    expect(findCutPoint(p.entries, 0, 6, 1500, ANCHOR)).toEqual({
      firstKeptEntryIndex: 2,
      turnStartIndex: 0,
      isSplitTurn: true,
    });
  });

  it("D6 (E7 spirit): a cut on a bashExecution message starts a turn → not split (anchor: split, empty prefix)", () => {
    const p = pathBuilder();
    p.u(100);
    p.a(100);
    p.t(5000);
    p.bash(100);
    p.a(100);
    expect(findCutPoint(p.entries, 0, 5, 2000)).toEqual({
      firstKeptEntryIndex: 3,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
    expect(findCutPoint(p.entries, 0, 5, 2000, ANCHOR)).toEqual({
      firstKeptEntryIndex: 3,
      turnStartIndex: 3,
      isSplitTurn: true,
    });
  });

  it("D6: metadata and a custom_message pulled in front of an assistant → not split (the custom_message starts the turn)", () => {
    const p = pathBuilder();
    p.u(1000); // 0
    p.a(1000); // 1
    p.cm(10); // 2
    p.m(); // 3
    p.a(1000); // 4
    expect(findCutPoint(p.entries, 0, 5, 500)).toEqual({
      firstKeptEntryIndex: 2,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("a cut on an assistant after pulled-in metadata is still a split of its turn", () => {
    const p = pathBuilder();
    p.u(100); // 0
    p.a(100); // 1
    p.t(3000); // 2
    p.l(); // 3
    p.a(100); // 4
    expect(findCutPoint(p.entries, 0, 5, 1000)).toEqual({
      firstKeptEntryIndex: 3,
      turnStartIndex: 0,
      isSplitTurn: true,
    });
  });

  it("an assistant cut with no turn start in the window is not split", () => {
    const p = pathBuilder();
    p.a(1000);
    p.t(1000);
    p.a(1000);
    expect(findCutPoint(p.entries, 0, 3, 500)).toEqual({
      firstKeptEntryIndex: 2,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("D18: a message entry with role custom is a valid cut point and counts its tokens", () => {
    const p = pathBuilder();
    p.u(1000); // 0
    p.a(1000); // 1
    p.custom(1000); // 2
    p.a(100); // 3
    // Backwards: A 100, custom 1100 ≥ 1000 at i=2 → the custom message is the cut (the anchor
    // counts it as 0 tokens and skips it, so it would go on to the assistant at 1).
    expect(findCutPoint(p.entries, 0, 4, 1000)).toEqual({
      firstKeptEntryIndex: 2,
      turnStartIndex: -1,
      isSplitTurn: false,
    });
  });

  it("a non-positive budget keeps only from the newest cut point", () => {
    const p = pathBuilder();
    p.u(10);
    p.a(10);
    p.u(10);
    expect(findCutPoint(p.entries, 0, 3, 0).firstKeptEntryIndex).toBe(2);
  });
});
