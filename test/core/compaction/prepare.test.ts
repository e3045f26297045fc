// prepareCompaction: SPEC §5.1, behaviours 39, 40, 47 and decisions D5, D7 (input side), D10, D18.
import { describe, expect, it } from "vitest";
import {
  compactionPlanReason,
  entryToCompactionMessage,
  prepareCompaction,
} from "../../../core/compaction/prepare.ts";
import { estimateTokens } from "../../../core/compaction/tokens.ts";
import { type CompactionPreparation, DEFAULT_COMPACTION_SETTINGS } from "../../../core/compaction/types.ts";
import { buildSessionContext } from "../../../core/session/context.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { call, ids, pathBuilder, zeroUsage } from "./_path.ts";
import { contextAfter, cutOf, keep, prepare, roles } from "./_prep.ts";

describe("nothing to compact (behaviour 39)", () => {
  it("B39: a path ending in a compaction → undefined and 'Already compacted'; empty → 'Nothing to compact (session too small)'", () => {
    const p = pathBuilder();
    p.u(10);
    p.c("e0");
    expect(prepareCompaction(p.entries, DEFAULT_COMPACTION_SETTINGS)).toBeUndefined();
    expect(compactionPlanReason(p.entries, DEFAULT_COMPACTION_SETTINGS)).toBe("Already compacted");
    expect(compactionPlanReason([], DEFAULT_COMPACTION_SETTINGS)).toBe(
      "Nothing to compact (session too small)",
    );
    expect(compactionPlanReason(p.entries.slice(0, 1), DEFAULT_COMPACTION_SETTINGS)).toBeUndefined();
  });

  it("a first kept entry without an id (unmigrated file) → undefined and 'Nothing to compact'", () => {
    const entries = [
      {
        type: "message",
        parentId: null,
        timestamp: "x",
        message: { role: "user", content: "hi", timestamp: 0 },
      },
    ];
    const path = entries as unknown as SessionEntry[];
    expect(prepareCompaction(path, DEFAULT_COMPACTION_SETTINGS)).toBeUndefined();
    expect(compactionPlanReason(path, DEFAULT_COMPACTION_SETTINGS)).toBe(
      "Nothing to compact (session too small)",
    );
  });
});

describe("compacting again (behaviour 40, D5)", () => {
  it("B40 adjusted by D5: [u, a, C, label] keeps the first compaction's messages instead of dropping them", () => {
    const p = pathBuilder();
    p.u(1000); // 0
    p.a(1000, { calls: [call("read", { path: "/r.ts" })] }); // 1
    p.c("e0", "S1", { details: { readFiles: ["/old.ts"], modifiedFiles: [] } }); // 2
    p.label("e1"); // 3
    const prep = prepare(p.entries, DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);
    // Anchor: firstKept = the label, summary = S1 (+ tags), context afterwards = summary only.
    expect(prep.firstKeptEntryId).toBe("e0");
    expect(prep.messagesToSummarize).toEqual([]);
    expect(prep.previousSummary).toBe("S1");
    expect(contextAfter(p.entries, prep)).toEqual(["new", "e0", "e1"]);

    // With a small budget the first compaction's kept messages are summarized, never dropped.
    const small = prepare(p.entries, 500);
    const covered = [...small.summarizeEntryIds, ...small.turnPrefixEntryIds, ...small.keptEntryIds];
    expect(covered).toEqual(ids(0, 1));
    expect(small).toMatchObject({ firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
    expect(small.turnPrefixEntryIds).toEqual(ids(0));
    expect(small.previousSummary).toBe("S1");
  });
});

describe("D5: window start", () => {
  it("the window is exactly the current LLM view minus the previous summary", () => {
    const p = pathBuilder();
    p.u(100); // 0
    p.a(100); // 1
    p.u(100); // 2
    p.a(100); // 3
    p.c("e2", "S1"); // 4
    p.u(100); // 5
    p.a(100); // 6
    const prep = prepare(p.entries, 10);
    expect(prep.windowStartIndex).toBe(2);
    const view = buildSessionContext(p.entries).messageEntryIds.filter((id) => id !== "e4");
    expect([...prep.summarizeEntryIds, ...prep.turnPrefixEntryIds, ...prep.keptEntryIds]).toEqual(view);
    expect(prep.summarizeEntryIds).toEqual(ids(2, 3));
    expect(prep.turnPrefixEntryIds).toEqual(ids(5));
    expect(prep.keptEntryIds).toEqual(ids(6));
    expect(prep.summarizeEntryIds).not.toContain("e0");
  });

  it("a previous firstKeptEntryId before an earlier compaction spans it; the earlier compaction contributes nothing", () => {
    const p = pathBuilder();
    p.u(100); // 0
    p.a(100); // 1
    p.c("e0", "S1"); // 2
    p.u(100); // 3
    p.c("e1", "S2"); // 4 (keeps from a1, across C1)
    p.u(100); // 5
    const prep = prepare(p.entries, 1);
    expect(prep.windowStartIndex).toBe(1);
    expect(prep.previousSummary).toBe("S2");
    expect(prep.previousCompactionId).toBe("e4");
    expect(prep.summarizeEntryIds).toEqual(ids(1, 3));
    expect(prep.keptEntryIds).toEqual(ids(5));
  });

  it("a cut inside the previously kept region is allowed (nothing new to summarize)", () => {
    const p = pathBuilder();
    p.u(100); // 0
    p.a(100); // 1
    p.u(100); // 2
    p.a(100); // 3
    p.c("e2", "S1"); // 4
    p.u(10); // 5
    p.a(10); // 6
    const prep = prepare(p.entries, 110);
    expect(prep.firstKeptEntryIndex).toBe(3);
    expect(prep.messagesToSummarize).toEqual([]);
    expect(prep.isSplitTurn).toBe(true);
    expect(prep.turnPrefixEntryIds).toEqual(ids(2));
    expect(prep.keptEntryIds).toEqual(ids(3, 5, 6));
  });
});

describe("D10: tokensBefore", () => {
  it("is the measured context tokens of the last valid assistant usage, with the estimate beside it", () => {
    const p = pathBuilder();
    p.u(100);
    p.a(100, { usage: { input: 900, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 950 } });
    p.u(100);
    p.a(100, { usage: { input: 5000, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: "aborted" });
    const prep = prepare(p.entries, 20000);
    expect(prep.tokensBeforeMeasured).toBe(950);
    expect(prep.tokensBefore).toBe(950);
    expect(prep.tokensBeforeEstimated).toBe(400);
  });

  it("a usage measured before the compaction in effect is stale: the estimate counts, and the keep budget is not scaled by it", () => {
    // The agent's compaction kept a1 verbatim; a1's usage measured the 50,000-token context the
    // compaction replaced (the LLM view's context bar calls it stale). No reply since.
    const p = pathBuilder();
    p.u(1000); // e0
    p.a(1000, { usage: { input: 50000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 50200 } }); // e1
    p.c("e1", "x".repeat(400)); // e2: keeps from e1
    p.u(1000); // e3
    const prep = prepare(p.entries, 3000);
    const view = buildSessionContext(p.entries).messages.reduce((sum, m) => sum + estimateTokens(m), 0);
    expect(prep.tokensBeforeMeasured).toBeNull();
    expect(prep.tokensBefore).toBe(view);
    // 2,000 tokens of window fit the 3,000 asked for: nothing is cut away (the stale ratio of 25
    // made the budget 120 tokens and summarized a1).
    expect(prep.keepRecentTokens).toBe(3000);
    expect(prep.summarizeEntryIds).toEqual([]);
    expect(prep.keptEntryIds).toEqual(["e1", "e3"]);
  });

  it("a usage measured after the compaction in effect still counts", () => {
    const p = pathBuilder();
    p.u(1000); // e0
    p.a(1000, { usage: { input: 50000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 50200 } }); // e1
    p.c("e1", "x".repeat(400)); // e2
    p.u(1000); // e3
    p.a(1000, { usage: { input: 6000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 6100 } }); // e4
    const prep = prepare(p.entries, 3000);
    expect(prep.tokensBefore).toBe(6100);
    expect(prep.keepRecentTokens).toBe(1500); // 3000 / (6000 measured / 3000 estimated in the window)
  });

  it("without usage (or with all-zero usage) it is the estimate of the current LLM view", () => {
    const p = pathBuilder();
    p.u(100);
    p.a(200);
    p.c("e1", "x".repeat(40));
    p.u(300);
    p.cm(7);
    p.bs(0);
    p.a(50);
    const prep = prepare(p.entries, 20000);
    const view = buildSessionContext(p.entries).messages.reduce((sum, m) => sum + estimateTokens(m), 0);
    expect(view).toBe(10 + 200 + 300 + 7 + 50);
    expect(prep.tokensBeforeMeasured).toBeNull();
    expect(prep.tokensBeforeEstimated).toBe(view);
    expect(prep.tokensBefore).toBe(view);
  });
});

describe("file operations of the plan (behaviour 47)", () => {
  function withPrevious(fields: object): CompactionPreparation {
    const p = pathBuilder();
    p.u(1000);
    p.a(1000, { calls: [call("edit", { path: "/s.ts" })] });
    p.c("elsewhere", "S1", {
      details: { readFiles: ["/prev-read.ts"], modifiedFiles: ["/prev-mod.ts"] },
      ...fields,
    });
    p.u(1000);
    p.a(1000, { calls: [call("read", { path: "/new.ts" })] });
    p.u(1000);
    p.a(1000, { calls: [call("write", { path: "/recent.ts" })] });
    return prepare(p.entries, 1500);
  }

  it("B47: a previous compaction's details are carried when fromExtension is absent", () => {
    const prep = withPrevious({});
    expect([...prep.fileOps.read].sort()).toEqual(["/new.ts", "/prev-read.ts"]);
    expect([...prep.fileOps.edited]).toEqual(["/prev-mod.ts"]);
    expect(prep.fileOps.written.size).toBe(0); // recent messages are not counted
  });

  it("B47: a previous compaction with fromExtension: true (or pi's fromHook) does not seed files", () => {
    for (const fields of [{ fromExtension: true }, { fromHook: true }]) {
      const prep = withPrevious(fields);
      expect([...prep.fileOps.read]).toEqual(["/new.ts"]);
      expect(prep.fileOps.edited.size).toBe(0);
    }
  });

  it("turn-prefix tool calls are counted for split turns", () => {
    const p = pathBuilder();
    p.u(100);
    p.a(100, { calls: [call("read", { path: "/p.ts" })] });
    p.t(3000);
    p.a(100);
    const prep = prepare(p.entries, 1000);
    expect(prep.isSplitTurn).toBe(true);
    expect([...prep.fileOps.read]).toEqual(["/p.ts"]);
  });
});

describe("entry → message inside compaction (SPEC §5.4)", () => {
  it("maps messages (tool results too), custom_message, empty branch summaries; nothing for the rest", () => {
    const p = pathBuilder();
    p.t(1);
    p.cm(1);
    p.bs(0);
    p.c("e0");
    p.m();
    p.add("message", { message: null });
    expect(p.entries.map((e) => entryToCompactionMessage(e)?.role)).toEqual([
      "toolResult",
      "custom",
      "branchSummary",
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("keepRecentTokensOverride replaces the setting before the adaptation", () => {
    const p = pathBuilder();
    p.u(1000);
    p.a(1000, { usage: zeroUsage() });
    p.u(1000);
    p.a(1000);
    const prep = prepareCompaction(p.entries, keep(100000), { keepRecentTokensOverride: 1500 });
    expect(prep?.keepRecentTokens).toBe(1500);
    expect(prep?.firstKeptEntryIndex).toBe(2);
  });
});

describe("D7 and D18 on the planning side", () => {
  it("D7: a split turn with nothing else to summarize still hands over the previous summary", () => {
    const p = pathBuilder();
    p.u(100); // 0
    p.c("e0", "S1"); // 1
    p.a(100); // 2
    p.t(3000); // 3
    p.a(100); // 4
    const prep = prepare(p.entries, 1000);
    expect(cutOf(prep)).toEqual({ firstKept: 4, turnStart: 0, split: true });
    expect(prep.messagesToSummarize).toEqual([]);
    expect(prep.turnPrefixEntryIds).toEqual(ids(0, 2, 3));
    // The summary step must carry S1 into the history part (D7), not "No prior history.".
    expect(prep.previousSummary).toBe("S1");
  });

  it("D18: custom messages count in the window estimate and a custom message entry can be the first kept entry", () => {
    const p = pathBuilder();
    p.u(1000); // 0
    p.a(1000); // 1
    p.custom(1000); // 2: message entry with role custom (migrated v2 hook message)
    p.a(100); // 3
    const prep = prepare(p.entries, 1000);
    expect(prep.tokensBeforeEstimated).toBe(3100);
    expect(cutOf(prep)).toEqual({ firstKept: 2, turnStart: -1, split: false });
    expect(roles(prep)).toEqual({
      summarize: ["user", "assistant"],
      prefix: [],
      recent: ["custom", "assistant"],
    });
  });
});
