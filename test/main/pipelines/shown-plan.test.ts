// compaction:run naming the plan its window showed (`shown`): when the session or the settings
// changed since (keepRecentTokens set elsewhere, the view leaf moved), the run is refused as
// "stale_plan" before anything runs — nothing appended, no job announced to other windows —
// and runs when the plan is still the one shown.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventName } from "../../../core/api/contract.ts";
import { closeHarness, createHarness, type Harness } from "./harness.ts";
import { plainSession } from "./sessions.ts";

let h: Harness;
let heard: EventName[];

beforeEach(async () => {
  h = createHarness();
  heard = [];
  h.api.ctx.events.subscribe((name) => {
    heard.push(name);
  });
  await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 1500 });
});

afterEach(() => closeHarness(h));

const shownOf = (plan: { leafId: string; firstKeptEntryId: string }) => ({
  leafId: plan.leafId,
  firstKeptEntryId: plan.firstKeptEntryId,
});

describe("a run naming the plan shown", () => {
  it("is refused when keepRecentTokens changed since: nothing runs, no job is announced", async () => {
    const sessionId = await h.importSession(plainSession());
    const shown = await h.call("compaction:preview", { sessionId });
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 1 });
    const now = await h.call("compaction:preview", { sessionId });
    expect(now.firstKeptEntryId).not.toBe(shown.firstKeptEntryId);
    const before = await h.snapshot(sessionId);
    heard.length = 0;
    expect(await h.fail("compaction:run", { sessionId, shown: shownOf(shown) })).toEqual({
      code: "stale_plan",
      message: `The plan shown is out of date (the session or the settings changed): it would now keep from ${now.firstKeptEntryId}, so nothing was run`,
    });
    expect(await h.snapshot(sessionId)).toEqual(before);
    expect(heard).toEqual([]);
  });

  it("is refused when the view leaf moved since", async () => {
    const sessionId = await h.importSession(plainSession());
    const shown = await h.call("compaction:preview", { sessionId });
    await h.call("session:set-view-leaf", { sessionId, leafId: "a3" });
    const before = await h.snapshot(sessionId);
    const refused = await h.fail("compaction:run", { sessionId, shown: shownOf(shown) });
    expect(refused.code).toBe("stale_plan");
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("runs when the plan is still the one shown", async () => {
    const sessionId = await h.importSession(plainSession());
    const shown = await h.call("compaction:preview", { sessionId });
    const result = await h.call("compaction:run", { sessionId, shown: shownOf(shown) });
    expect(result.firstKeptEntryId).toBe(shown.firstKeptEntryId);
  });
});
