// The open compaction plan following its session and the settings (renderer/src/store/
// plan-follow.ts, plan-change.ts) against a scripted contract and fake timers: a burst of session
// changes asks for the plan a few times, not once per change, also while they never stop; a plan
// that comes back the same stays as it was with nothing said; one that differs says why (grew,
// moved, changed); a leaf gone or a session deleted blocks Run with one line; a setting the plan
// is not made with asks nothing. A request that fails for a passing reason keeps the plan shown,
// runnable (main refuses it if stale), with one line and Retry; a settings or session change heard
// while Compact… still asked is made again once it answered; a leaf archived says so, not "moved".
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CompactionPlanDto } from "../../core/api/dto.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../core/settings/schema.ts";
import { ApiCallError } from "../helpers/scripted-api.ts";

const calls: { channel: string; input: unknown }[] = [];
let previewAnswer: () => CompactionPlanDto = () => {
  throw new Error("not scripted");
};
let entriesAnswer: string[] = [];
let archivedAnswer: string[] = [];
let runAnswer: (input: unknown) => unknown = () => {
  throw new Error("must not run");
};

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      "compaction:preview": () => previewAnswer(),
      "session:entries": (input: { entryIds: string[] }) =>
        input.entryIds
          .filter((id) => entriesAnswer.includes(id))
          .map((id) => ({ entry: { id }, ...(archivedAnswer.includes(id) ? { archived: true } : {}) })),
      "compaction:run": (input: unknown) => runAnswer(input),
      ...reloadScript("s1", "a3"),
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
  planRetry: string | null;
  planAsking: number;
  runningJobs: Record<string, unknown>;
  jobMessage: { kind: string; text: string } | null;
  runCompaction(instructions: string): Promise<void>;
  previewCompaction(keepRecentTokens?: number): Promise<void>;
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
  planFollowsAnswers(): () => void;
  retryPlan(): void;
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

const stopFollowingAnswers = follow.planFollowsAnswers();
afterAll(() => stopFollowingAnswers());

beforeEach(() => {
  vi.useFakeTimers();
  calls.length = 0;
  entriesAnswer = ["u1", "a1", "u2", "a2", "u3", "a3"];
  archivedAnswer = [];
  runAnswer = () => {
    throw new Error("must not run");
  };
  previewAnswer = () => planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]);
  useCanopy.setState({
    selectedSessionId: "s1",
    plan: shown,
    planNote: null,
    planBlocked: null,
    planKeepRecentTokens: null,
    planError: null,
    planRetry: null,
    planAsking: 0,
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

describe("a request that fails for a passing reason", () => {
  const unreachable = "Canopy is not reachable: its server (npm run serve) stopped. Start it again and open the URL it prints";
  const settle = async () => {
    follow.planFollowsSession("s1");
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
  };
  const failing = () => {
    throw new ApiCallError("io_error", unreachable);
  };
  const runs = () => calls.filter((call) => call.channel === "compaction:run");

  it("keeps the plan shown, runnable, says why in one line; Retry makes it again", async () => {
    useCanopy.setState({ planNote: "an earlier line" });
    previewAnswer = failing;
    await settle();
    expect(state().plan).toBe(shown);
    expect(state().planBlocked).toBeNull();
    expect(state().planNote).toBeNull();
    expect(state().planRetry).toBe(
      `The session changed, and the plan could not be made again: ${unreachable}. Retry asks again; Run first checks that this plan still holds, and runs nothing if it does not.`,
    );
    // Retry, still failing: the same line; then answered: the line goes, and says it was made again.
    follow.retryPlan();
    await vi.advanceTimersByTimeAsync(1);
    expect(previews()).toBe(2);
    expect(state().planRetry).not.toBeNull();
    previewAnswer = () => planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]);
    follow.retryPlan();
    await vi.advanceTimersByTimeAsync(1);
    expect(previews()).toBe(3);
    expect(state().planRetry).toBeNull();
    expect(state().plan).toBe(shown);
    expect(state().planNote).toBe("The plan was made again: nothing in it changed.");
  });

  it("Run sends the plan shown; main refusing it as stale runs nothing and shows the plan as it is now", async () => {
    previewAnswer = failing;
    await settle();
    expect(state().planRetry).not.toBeNull();
    const stale =
      "The plan shown is out of date (the session or the settings changed): it would now keep from u4, so nothing was run";
    runAnswer = () => {
      throw new ApiCallError("stale_plan", stale);
    };
    const grown = planAt("a4", ["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"]);
    previewAnswer = () => grown;
    await state().runCompaction("");
    expect(runs()).toHaveLength(1);
    expect(runs()[0]?.input).toMatchObject({ sessionId: "s1", shown: { leafId: "a3", firstKeptEntryId: "u3" } });
    expect(state().plan).toEqual(grown);
    expect(state().planNote).toBe(`${stale}. This is the plan now.`);
    expect(state().planRetry).toBeNull();
  });

  it("Run of the plan shown when it still holds: it runs", async () => {
    previewAnswer = failing;
    await settle();
    runAnswer = () => ({ entryId: "c1" });
    await state().runCompaction("");
    expect(runs()).toHaveLength(1);
    expect(state().jobMessage?.kind).toBe("ok");
    expect(state().planRetry).toBeNull();
    expect(state().plan).toBeNull();
  });

  it("main answering that there is no plan (nothing to compact) still blocks Run, for a settings change too", async () => {
    previewAnswer = () => {
      throw new ApiCallError("invalid_input", "Nothing to compact (session too small)");
    };
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.compaction.keepRecentTokens = 90000;
      }),
    );
    await vi.advanceTimersByTimeAsync(1);
    expect(state().plan).toBe(shown);
    expect(state().planBlocked).toBe("Nothing to compact (session too small); this plan cannot run.");
    expect(state().planRetry).toBeNull();
  });
});

describe("a settings change heard while Compact… still asks", () => {
  it("is made again once the first plan is in, with the settings as they are", async () => {
    useCanopy.setState({ plan: null });
    let answer: (plan: CompactionPlanDto) => void = () => {};
    previewAnswer = () =>
      new Promise<CompactionPlanDto>((resolve) => {
        answer = resolve;
      }) as unknown as CompactionPlanDto;
    const asked = state().previewCompaction();
    await vi.advanceTimersByTimeAsync(1);
    expect(previews()).toBe(1);
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.compaction.keepRecentTokens = 8000;
      }),
    );
    const withNew = planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"], {
      firstKeptEntryId: "u2",
      keptEntryIds: ["u2", "a2", "u3", "a3"],
      summarizeEntryIds: ["u1", "a1"],
      requestedKeepRecentTokens: 8000,
      keepRecentTokens: 8000,
      plannedWith: { keepRecentTokens: 8000, reserveTokens: 16384, remoteEndpoint: null, model: null },
    });
    // The first answer was made before the change.
    answer(shown);
    previewAnswer = () => withNew;
    await asked;
    await vi.advanceTimersByTimeAsync(1);
    expect(previews()).toBe(2);
    expect(state().plan).toEqual(withNew);
    expect(state().planNote).toBe(
      "Keep-recent is now 8,000 tokens (changed in the settings): the plan was made again with it.",
    );
  });

  it("asks nothing more when the answer was made with them already", async () => {
    useCanopy.setState({ plan: null });
    const withNew = planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"], {
      plannedWith: { keepRecentTokens: 8000, reserveTokens: 16384, remoteEndpoint: null, model: null },
    });
    let answer: (plan: CompactionPlanDto) => void = () => {};
    previewAnswer = () =>
      new Promise<CompactionPlanDto>((resolve) => {
        answer = resolve;
      }) as unknown as CompactionPlanDto;
    const asked = state().previewCompaction();
    await vi.advanceTimersByTimeAsync(1);
    follow.planFollowsSettings(
      settingsWith((s) => {
        s.compaction.keepRecentTokens = 8000;
      }),
    );
    answer(withNew);
    await asked;
    await vi.advanceTimersByTimeAsync(1000);
    expect(previews()).toBe(1);
    expect(state().plan).toBe(withNew);
  });
});

describe("a session change heard while Compact… still asks", () => {
  const grown = planAt("a4", ["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"]);
  const held = () => {
    let answer: (plan: CompactionPlanDto) => void = () => {};
    const promise = new Promise<CompactionPlanDto>((resolve) => {
      answer = resolve;
    });
    return { promise: promise as unknown as CompactionPlanDto, answer: (plan: CompactionPlanDto) => answer(plan) };
  };

  it("with no plan shown yet: the first plan, made before the change, is made again once it is in", async () => {
    useCanopy.setState({ plan: null });
    const first = held();
    previewAnswer = () => first.promise;
    const asked = state().previewCompaction();
    await vi.advanceTimersByTimeAsync(1);
    follow.planFollowsSession("s1");
    await vi.advanceTimersByTimeAsync(1000);
    first.answer(shown);
    previewAnswer = () => grown;
    await asked;
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
    expect(previews()).toBe(2);
    expect(state().plan).toEqual(grown);
    expect(state().planNote).toBe("The session grew (its leaf is now a4): the plan was made again there.");
  });

  it("with a plan shown: its re-plan, overtaken by Compact…'s answer, is not lost", async () => {
    const first = held();
    const replan = held();
    let asks = 0;
    previewAnswer = () => (++asks === 1 ? first.promise : asks === 2 ? replan.promise : grown);
    const asked = state().previewCompaction();
    await vi.advanceTimersByTimeAsync(1);
    follow.planFollowsSession("s1");
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
    expect(previews()).toBe(2);
    // Compact…'s answer (made before the change) lands while the re-plan still waits for its own.
    first.answer(planAt("a3", ["u1", "a1", "u2", "a2", "u3", "a3"]));
    await asked;
    replan.answer(grown);
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
    expect(state().plan).toEqual(grown);
    expect(state().planNote).toBe("The session grew (its leaf is now a4): the plan was made again there.");
  });
});

describe("its leaf archived", () => {
  it("says it was archived and what the plan applies to now, not that the view leaf moved", async () => {
    // An answered edit a3' undone: its branch archived, the view leaf back on a3.
    const edited = planAt("e3", ["u1", "a1", "u2", "a2", "e3"]);
    useCanopy.setState({ plan: edited });
    entriesAnswer = ["u1", "a1", "u2", "a2", "u3", "a3", "e3"];
    archivedAnswer = ["e3"];
    follow.planFollowsSession("s1");
    await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
    expect(state().plan?.leafId).toBe("a3");
    expect(state().planBlocked).toBeNull();
    expect(state().planNote).toBe(
      "The entry this plan was made at (e3) was archived (hidden; Show archived shows it): the plan was made again at the view leaf, a3.",
    );
  });
});

describe("its leaf archived where it is (Archive branch on the view leaf, confirmed)", () => {
  it("says the plan still applies to it; restored, the line goes", async () => {
    const settle = async () => {
      follow.planFollowsSession("s1");
      await vi.advanceTimersByTimeAsync(follow.PLAN_FOLLOW_QUIET_MS + 10);
    };
    archivedAnswer = ["u3", "a3"];
    await settle();
    expect(state().plan).toBe(shown);
    expect(state().planBlocked).toBeNull();
    expect(state().planNote).toBe(
      "The entry this plan is made at (a3) was archived (hidden; Show archived shows it): it is still the view leaf, so the plan still applies to it.",
    );
    archivedAnswer = [];
    await settle();
    expect(state().planNote).toBeNull();
    expect(state().plan).toBe(shown);
  });
});
