// The open compaction plan following its session and the settings (renderer/src/store/
// plan-follow.ts, plan-change.ts) against a scripted contract and fake timers: a burst of session
// changes asks for the plan a few times, not once per change, also while they never stop; a plan
// that comes back the same stays as it was with nothing said; one that differs says why (grew,
// moved, changed); a leaf gone or a session deleted blocks Run with one line; a setting the plan
// is not made with asks nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CompactionPlanDto } from "../../core/api/dto.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../core/settings/schema.ts";
import { ApiCallError } from "../helpers/scripted-api.ts";

const calls: { channel: string; input: unknown }[] = [];
let previewAnswer: () => CompactionPlanDto = () => {
  throw new Error("not scripted");
};
let entriesAnswer: string[] = [];

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      "compaction:preview": () => previewAnswer(),
      "session:entries": (input: { entryIds: string[] }) =>
        input.entryIds.filter((id) => entriesAnswer.includes(id)).map((id) => ({ entry: { id } })),
      "compaction:run": () => {
        throw new Error("must not run");
      },
    },
    { record: (channel, input) => calls.push({ channel, input }) },
  );
});

interface PlanState {
  selectedSessionId: string | null;
  plan: CompactionPlanDto | null;
  planNote: string | null;
  planBlocked: string | null;
  planKeepRecentTokens: number | null;
  planError: string | null;
  runningJobs: Record<string, unknown>;
  jobMessage: { kind: string; text: string } | null;
  runCompaction(instructions: string): Promise<void>;
}
// Imported through variables so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const followModule = "../../renderer/src/store/plan-follow.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): PlanState; setState(partial: Partial<PlanState>): void };
};
const follow = (await import(followModule)) as {
  planFollowsSession(sessionId: string): void;
  planFollowsSettings(settings: Settings): void;
  PLAN_FOLLOW_QUIET_MS: number;
  PLAN_FOLLOW_MAX_WAIT_MS: number;
};

const state = () => useCanopy.getState();
const previews = () => calls.filter((call) => call.channel === "compaction:preview").length;

function planAt(leafId: string, path: string[], extra: Partial<CompactionPlanDto> = {}): CompactionPlanDto {
  return {
    sessionId: "s1",
    leafId,
    firstKeptEntryId: path.at(-2) ?? leafId,
    isSplitTurn: false,
    turnStartEntryId: null,
    tokensBefore: 1000,
    tokensBeforeMeasured: null,
    tokensBeforeEstimated: 1000,
    keepRecentTokens: 20000,
    requestedKeepRecentTokens: 20000,
    summarizeEntryIds: path.slice(0, -2),
    turnPrefixEntryIds: [],
    keptEntryIds: path.slice(-2),
    previousSummary: false,
    previousCompactionId: null,
    readFiles: [],
    modifiedFiles: [],
    keptTokens: 20,
    maxSummaryTokens: 13107,
    summarizer: "Built-in offline summarizer",
    notes: [],
    plannedWith: { keepRecentTokens: 20000, reserveTokens: 16384, remoteEndpoint: null, model: null },
    ...extra,
  };
}

const shown = planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]);
const settingsWith = (change: (settings: Settings) => void): Settings => {
  const settings = structuredClone(DEFAULT_SETTINGS);
  change(settings);
  return settings;
};

beforeEach(() => {
  vi.useFakeTimers();
  calls.length = 0;
  entriesAnswer = ["u1", "a1", "u2", "a2", "u3", "a3"];
  previewAnswer = () => planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]);
  useCanopy.setState({
    selectedSessionId: "s1",
    plan: shown,
    planNote: null,
    planBlocked: null,
    planKeepRecentTokens: null,
    planError: null,
    runningJobs: {},
    jobMessage: null,
  });
});

afterEach(async () => {
  // Whatever is still pending runs against a closed plan: nothing carries over to the next test.
  useCanopy.setState({ plan: null });
  await vi.advanceTimersByTimeAsync(5000);
  vi.useRealTimers();
});

describe("a burst of session changes", () => {
  it("asks for the plan once after the burst, not once per change", async () => {
    for (let i = 0; i < 20; i++) {
      follow.planFollowsSession("s1");
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(previews()).toBe(0);
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS);
    expect(previews()).toBe(1);
  });

  it("asks at least every max wait while the changes never stop, and one request at a time", async () => {
    let answered = 0;
    previewAnswer = () => {
      answered++;
      return planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]);
    };
    // An agent writing a line every 100 ms for 6 s.
    for (let i = 0; i < 60; i++) {
      follow.planFollowsSession("s1");
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS);
    const asked = previews();
    expect(asked).toBeGreaterThanOrEqual(Math.floor(6000 / follow.PLAN_FOLLOW_MAX_WAIT_MS));
    expect(asked).toBeLessThanOrEqual(Math.ceil(6000 / follow.PLAN_FOLLOW_MAX_WAIT_MS) + 1);
    expect(answered).toBe(asked);
  });

  it("of another session, or with no plan open, asks nothing", async () => {
    follow.planFollowsSession("s2");
    await vi.advanceTimersByTimeAsync(2000);
    useCanopy.setState({ plan: null });
    follow.planFollowsSession("s1");
    await vi.advanceTimersByTimeAsync(2000);
    expect(previews()).toBe(0);
  });
});

describe("what the plan made again says", () => {
  const settle = async () => {
    follow.planFollowsSession("s1");
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
  };

  it("the same plan: the one on screen stays, and the line there stays", async () => {
    useCanopy.setState({ planNote: "an earlier line" });
    await settle();
    expect(previews()).toBe(1);
    expect(state().plan).toBe(shown);
    expect(state().planNote).toBe("an earlier line");
  });

  it("the session grew: the plan at its new leaf", async () => {
    previewAnswer = () => planAt("a4", ["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"]);
    await settle();
    expect(state().plan?.leafId).toBe("a4");
    expect(state().planNote).toBe("The session grew (its leaf is now a4): the plan was made again there.");
    expect(state().planBlocked).toBeNull();
  });

  it("the view leaf moved elsewhere: the plan there", async () => {
    previewAnswer = () => planAt("b2", ["u1", "a1", "u2", "b2"]);
    await settle();
    expect(state().plan?.leafId).toBe("b2");
    expect(state().planNote).toBe("The view leaf moved to b2: the plan was made again there.");
  });

  it("the same leaf, another plan (an entry edited): says the session changed", async () => {
    previewAnswer = () => planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"], { tokensBefore: 1200 });
    await settle();
    expect(state().planNote).toBe("The session changed: the plan was made again.");
  });

  it("its leaf gone: one line, the plan on screen stays and cannot run", async () => {
    entriesAnswer = ["u1", "a1", "u2", "a2"];
    previewAnswer = () => planAt("a2", ["u1", "a1", "u2", "a2"]);
    await settle();
    expect(state().plan).toBe(shown);
    expect(state().planBlocked).toBe(
      "The entry this plan was made at (a3) is gone from the session: it cannot run; Compact… makes a new plan.",
    );
    await state().runCompaction("");
    expect(calls.some((call) => call.channel === "compaction:run")).toBe(false);
    expect(state().jobMessage?.text).toBe(state().planBlocked);
  });

  it("the session deleted: one line; back as it was, it can run again", async () => {
    previewAnswer = () => {
      throw new ApiCallError(
        "not_found",
        "Session s1 was deleted from the library (undo or `canopy undelete` brings it back)",
      );
    };
    await settle();
    expect(state().plan).toBe(shown);
    expect(state().planBlocked).toBe(
      "Session s1 was deleted from the library (undo or `canopy undelete` brings it back); this plan cannot run.",
    );
    previewAnswer = () => planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]);
    await settle();
    expect(state().planBlocked).toBeNull();
    expect(state().planNote).toBe("The session is as it was when the plan was made: it can run again.");
  });
});

describe("a settings change", () => {
  it("of a setting the plan is not made with asks nothing", async () => {
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.retry.maxRetries = 7;
      }),
    );
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.compaction.autoContinue = false;
      }),
    );
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.branchSummary.reserveTokens = 100;
      }),
    );
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.images.blockImages = true;
      }),
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(previews()).toBe(0);
  });

  it("with a figure chosen on the slider: says what the setting became, and nothing once it is that figure", async () => {
    const chosen = planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"], { requestedKeepRecentTokens: 1500 });
    useCanopy.setState({ plan: chosen, planKeepRecentTokens: 1500 });
    const answerWith = (setting: number) => () => ({
      ...chosen,
      plannedWith: { ...chosen.plannedWith, keepRecentTokens: setting },
    });
    previewAnswer = answerWith(4000);
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.compaction.keepRecentTokens = 4000;
      }),
    );
    await vi.advanceTimersByTimeAsync(1);
    expect(state().planNote).toBe(
      "Keep-recent is now 4,000 tokens in the settings; this plan keeps the 1,500 tokens you chose.",
    );
    expect(state().plan?.plannedWith.keepRecentTokens).toBe(4000);
    previewAnswer = answerWith(1500);
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.compaction.keepRecentTokens = 1500;
      }),
    );
    await vi.advanceTimersByTimeAsync(1);
    expect(previews()).toBe(2);
    expect(state().planNote).toBeNull();
    expect(state().plan?.plannedWith.keepRecentTokens).toBe(1500);
    expect(state().plan?.firstKeptEntryId).toBe(chosen.firstKeptEntryId);
  });

  it("of one it is made with asks at once: keep-recent, reserve, summarizer", async () => {
    const changes: ((s: Settings) => void)[] = [
      (s) => {
        s.compaction.keepRecentTokens = 8000;
      },
      (s) => {
        s.compaction.reserveTokens = 8000;
      },
      (s) => {
        s.compaction.remoteEndpoint = "http://127.0.0.1:9/summarize";
      },
      (s) => {
        s.model = {
          baseUrl: "http://127.0.0.1:9/v1",
          id: "m",
          contextWindow: 32768,
          apiKeyEnv: "K",
          stream: true,
          reasoning: false,
        };
      },
    ];
    for (const [i, change] of changes.entries()) {
      follow.planFollowsSettings(settingsWith(change));
      await vi.advanceTimersByTimeAsync(1);
      expect(previews()).toBe(i + 1);
    }
  });
});
