// The jobs slice (renderer/src/store/jobs-slice.ts) against a scripted contract: a chat turn,
// compaction or branch summary another window started shows on its session (not on another),
// streams its text, is cancelled from here, and clears with its outcome and a reload when it
// ends; its own job says its outcome once; job:list after a reload or reconnect adds what runs
// with the text streamed so far and drops what ended unheard, and never brings back a job heard
// ending while it was being asked.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatTurnResultDto } from "../../core/api/dto-app.ts";
import type { JobEndedDto, JobHooksDto, ListedJobDto, RunningJobDto } from "../../core/api/dto-jobs.ts";

const calls: { channel: string; input: unknown }[] = [];
let listAnswer: () => Promise<ListedJobDto[]> = async () => [];
let abortAnswer = true;
let navigateAnswer: () => Promise<unknown> = async () => {
  throw new Error("not scripted");
};
let runAnswer: () => Promise<unknown> = async () => {
  throw new Error("not scripted");
};

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  const abort = () => ({ aborted: abortAnswer });
  return scriptedApi(
    {
      "job:list": () => listAnswer(),
      "compaction:run": () => runAnswer(),
      "navigation:navigate": () => navigateAnswer(),
      "compaction:abort": abort,
      "navigation:abort": abort,
      "chat:abort": abort,
      ...reloadScript("s1", "c1"),
    },
    { record: (channel, input) => calls.push({ channel, input }) },
  );
});

interface RunningJob {
  kind: string;
  sessionId: string;
  text: string;
  jobId: string | null;
  here: boolean;
  chat?: { userText: string; continuing: boolean };
  hooks?: JobHooksDto;
  since: number;
}
interface JobsState {
  selectedSessionId: string | null;
  runningJobs: Record<string, RunningJob>;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  chatMessage: { kind: "ok" | "error"; text: string } | null;
  autoCompaction: unknown;
  runCompaction(instructions: string): Promise<void>;
  navigateTo(targetId: string, summarize: boolean): Promise<unknown>;
  selectedEntryId?: string | null;
  jobStreamed(sessionId: string, jobId: string | null, text: string, retry?: string): void;
  autoCompactionStarted(sessionId: string, reason: "threshold" | "overflow"): void;
  autoCompactionEnded(payload: {
    sessionId: string;
    reason: "threshold" | "overflow";
    entryId: string | null;
    aborted: boolean;
    errorMessage?: string;
  }): void;
  autoCompactionRetry(sessionId: string, text: string | undefined): void;
  ownJobStarting(job: { kind: string; sessionId: string }): void;
  cancelRunning(): Promise<void>;
  loadRunningJobs(): Promise<void>;
  jobStarted(job: RunningJobDto): void;
  jobEnded(job: JobEndedDto): void;
  jobHooks(event: { jobId: string; sessionId: string; hooks: JobHooksDto | null }): void;
  jobProgressed(job: {
    jobId: string;
    sessionId?: string;
    label: string;
    done: number;
    total: null;
    text?: string;
  }): void;
}
// Imported through variables so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const slicesModule = "../../renderer/src/store/jobs-slice.ts";
const apiModule = "../../renderer/src/api.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): JobsState; setState(partial: Record<string, unknown>): void };
};
const { selectRunning, selectChat } = (await import(slicesModule)) as {
  selectRunning(state: JobsState): RunningJob | null;
  selectChat(state: JobsState): RunningJob | null;
};
const chatSliceModule = "../../renderer/src/store/chat-slice.ts";
const { selectAutoCompaction } = (await import(chatSliceModule)) as {
  selectAutoCompaction(state: JobsState): Record<string, unknown> | null;
};

const state = () => useCanopy.getState();
const running = () => selectRunning(state());
// Each test's job has an id of its own, as the main side's are (the slice remembers ended ids).
let tests = 0;
let compaction: RunningJobDto;
const progress = (jobId: string, text: string) =>
  state().jobProgressed({ jobId, sessionId: "s1", label: "Summarizing", done: 0, total: null, text });

beforeEach(() => {
  calls.length = 0;
  abortAnswer = true;
  listAnswer = async () => [];
  compaction = { jobId: `j1-${++tests}`, sessionId: "s1", kind: "compaction" };
  useCanopy.setState({
    selectedSessionId: "s1",
    runningJobs: {},
    jobMessage: null,
    chatMessage: null,
    autoCompaction: null,
    plan: null,
  });
});

describe("a job whose hooks run first", () => {
  const hooks: JobHooksDto = { event: "session_before_compact", files: ["h.mjs"], status: "running" };
  it("keeps them as it starts, as they go on, and counts the summarizer's wait from when they are done", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      state().ownJobStarting({ kind: "compaction", sessionId: "s1" });
      expect(running()?.hooks).toBeUndefined();
      state().jobStarted({ ...compaction, hooks });
      expect(running()).toMatchObject({ jobId: compaction.jobId, here: true, hooks });
      vi.setSystemTime(Date.now() + 5000);
      const shaping: JobHooksDto = { event: "session.compacting", files: ["s.mjs"], status: "running" };
      state().jobHooks({ jobId: "another", sessionId: "s1", hooks: shaping });
      expect(running()?.hooks).toEqual(hooks);
      state().jobHooks({ jobId: compaction.jobId, sessionId: "s1", hooks: shaping });
      expect(running()).toMatchObject({ hooks: shaping, since: Date.now() });
      vi.setSystemTime(Date.now() + 5000);
      state().jobHooks({ jobId: compaction.jobId, sessionId: "s1", hooks: null });
      expect(running()?.hooks).toBeUndefined();
      expect(running()?.since).toBe(Date.now());
    } finally {
      vi.useRealTimers();
    }
  });

  it("another window's, listed after a reload: with its hooks, counted from when they started", async () => {
    listAnswer = async () => [{ ...compaction, hooks, text: "", requestAgeMs: 4000 }];
    const asked = Date.now();
    await state().loadRunningJobs();
    expect(running()).toMatchObject({ jobId: compaction.jobId, here: false, hooks });
    expect(running()?.since).toBeLessThanOrEqual(asked - 4000 + 50);
    // Listed again once they gave a summary-less answer and the summarizer was asked.
    listAnswer = async () => [{ ...compaction, text: "", requestAgeMs: 1000 }];
    await state().loadRunningJobs();
    expect(running()?.hooks).toBeUndefined();
    expect(running()?.since).toBeGreaterThan(asked - 4000 + 50);
  });
});

describe("a job another window started", () => {
  it("shows on its session only, streams its text, and is cancelled from here", async () => {
    state().jobStarted({ jobId: "j2", sessionId: "s2", kind: "branch-summary" });
    expect(running()).toBeNull();
    state().jobStarted(compaction);
    expect(running()).toMatchObject({
      kind: "compaction",
      sessionId: "s1",
      jobId: compaction.jobId,
      here: false,
      text: "",
    });
    progress(compaction.jobId, "## Goal");
    progress("other-job", "not this one");
    expect(running()?.text).toBe("## Goal");
    await state().cancelRunning();
    expect(calls.at(-1)).toEqual({ channel: "compaction:abort", input: { sessionId: "s1" } });
    useCanopy.setState({ selectedSessionId: "s2" });
    await state().cancelRunning();
    expect(calls.at(-1)).toEqual({ channel: "navigation:abort", input: { sessionId: "s2" } });
  });

  it("clears when it ends, says how, and reloads the open session", async () => {
    state().jobStarted(compaction);
    state().jobEnded({ ...compaction, outcome: "cancelled", entryId: null });
    expect(running()).toBeNull();
    expect(state().jobMessage).toEqual({ kind: "ok", text: "Compaction cancelled; nothing changed." });

    state().jobStarted({ ...compaction, jobId: "j3" });
    state().jobEnded({ ...compaction, jobId: "j3", outcome: "done", entryId: "c1" });
    expect(state().jobMessage?.text).toBe("Compaction c1 added; the LLM view now starts with its summary.");
    await vi.waitFor(() => expect(calls.map((c) => c.channel)).toContain("session:tree"));

    state().jobStarted({ ...compaction, jobId: "j4" });
    state().jobEnded({
      ...compaction,
      jobId: "j4",
      outcome: "failed",
      entryId: null,
      errorMessage: "500 boom",
    });
    expect(state().jobMessage).toEqual({ kind: "error", text: "Compaction failed: 500 boom" });
    // Heard from another window: the summary call's prefix is not said twice either.
    state().jobStarted({ ...compaction, jobId: "j5" });
    state().jobEnded({
      ...compaction,
      jobId: "j5",
      outcome: "failed",
      entryId: null,
      errorMessage: "Summarization failed: 401 Invalid API key",
    });
    expect(state().jobMessage).toEqual({ kind: "error", text: "Compaction failed: 401 Invalid API key" });
    // Heard from another window: a summary cut off at the output limit is said there too.
    state().jobStarted({ ...compaction, jobId: "j6" });
    state().jobEnded({
      ...compaction,
      jobId: "j6",
      outcome: "done",
      entryId: "c2",
      cutOff: [{ purpose: "short", maxTokens: 512 }],
    });
    expect(state().jobMessage?.text).toBe(
      "Compaction c2 added; the LLM view now starts with its summary. The short summary was cut off at the output limit (512 tokens) and saved as it came; to get it whole, undo and compact again with instructions asking for a shorter summary, or a larger compaction.reserveTokens.",
    );
  });

  it("cancelled when it has already ended unheard: asks which jobs run and clears it", async () => {
    state().jobStarted(compaction);
    expect(running()?.jobId).toBe(compaction.jobId);
    abortAnswer = false;
    await state().cancelRunning();
    expect(calls.map((call) => call.channel)).toEqual(["compaction:abort", "job:list"]);
    expect(running()).toBeNull();
  });

  it("cancelled, but its end never heard: asks which jobs run a few seconds later and clears it", async () => {
    vi.useFakeTimers();
    try {
      state().jobStarted(compaction);
      await state().cancelRunning();
      expect(calls.map((call) => call.channel)).toEqual(["compaction:abort"]);
      await vi.advanceTimersByTimeAsync(3000);
      expect(calls.map((call) => call.channel)).toEqual(["compaction:abort", "job:list"]);
      expect(running()).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("cancelled and heard ending: does not ask again", async () => {
    vi.useFakeTimers();
    try {
      state().jobStarted(compaction);
      await state().cancelRunning();
      state().jobEnded({ ...compaction, outcome: "cancelled", entryId: null });
      await vi.advanceTimersByTimeAsync(3000);
      expect(calls.map((call) => call.channel).filter((channel) => channel === "job:list")).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("an end for another job of the session leaves the one shown alone", () => {
    state().jobStarted(compaction);
    state().jobEnded({ ...compaction, jobId: "old", outcome: "done", entryId: "c0" });
    expect(running()?.jobId).toBe(compaction.jobId);
    expect(state().jobMessage).toBeNull();
  });
});

describe("this window's own compaction", () => {
  it("is shown at once, takes its id when heard starting, and says its outcome once", async () => {
    let release: (value: unknown) => void = () => undefined;
    runAnswer = () => new Promise((resolve) => (release = resolve));
    const run = state().runCompaction("");
    expect(running()).toMatchObject({ jobId: null, here: true });
    state().jobStarted(compaction);
    expect(running()).toMatchObject({ jobId: compaction.jobId, here: true });
    progress(compaction.jobId, "streamed");
    expect(running()?.text).toBe("streamed");
    // The end is heard before the request answers: no message from the event, the request's one.
    state().jobEnded({ ...compaction, outcome: "done", entryId: "c1" });
    expect(running()).toBeNull();
    expect(state().jobMessage).toBeNull();
    release({ entryId: "c1" });
    await run;
    expect(state().jobMessage?.text).toBe("Compaction c1 added; the LLM view now starts with its summary.");
  });

  // A summary cut off at the output limit was saved without a word.
  it("a summary cut off at the output limit says so in the outcome line (compaction and branch summary)", async () => {
    runAnswer = async () => ({ entryId: "c1", cutOff: [{ purpose: "history", maxTokens: 13107 }] });
    await state().runCompaction("");
    expect(state().jobMessage?.text).toBe(
      "Compaction c1 added; the LLM view now starts with its summary. The history summary was cut off at the output limit (13107 tokens) and saved as it came; to get it whole, undo and compact again with instructions asking for a shorter summary, or a larger compaction.reserveTokens.",
    );
    navigateAnswer = async () => ({
      cancelled: false,
      aborted: false,
      newLeafId: "b1",
      oldLeafId: "a2",
      editorText: null,
      summaryEntryId: "b1",
      fromExtension: false,
      cutOff: [{ purpose: "branch", maxTokens: 2048 }],
    });
    await state().navigateTo("u1", true);
    expect(state().jobMessage?.text).toBe(
      "Moved to u1's branch with branch summary b1. The branch summary was cut off at the output limit (2048 tokens) and saved as it came; to get it whole, undo and summarize again with instructions asking for a shorter summary.",
    );
  });

  // The summary call's own prefix doubled the line: "Compaction failed: Summarization failed: 401 …".
  it("a failed summary call reads once as failed, its step named when it is not the main summary", async () => {
    const { ApiCallError } = (await import(apiModule)) as {
      ApiCallError: new (code: string, message: string) => Error;
    };
    runAnswer = async () => {
      throw new ApiCallError("model_error", "Summarization failed: 401 Invalid API key");
    };
    await state().runCompaction("");
    expect(state().jobMessage).toEqual({ kind: "error", text: "Compaction failed: 401 Invalid API key" });
    runAnswer = async () => {
      throw new ApiCallError("model_error", "Turn prefix summarization failed: Unknown error");
    };
    await state().runCompaction("");
    expect(state().jobMessage).toEqual({ kind: "error", text: "Compaction failed (turn-prefix summary): Unknown error" });
  });

  it("refused because another window's job holds the session: shows that one", async () => {
    runAnswer = async () => {
      const { ApiCallError } = (await import(apiModule)) as {
        ApiCallError: new (code: string, message: string) => Error;
      };
      throw new ApiCallError("conflict", "A compaction is already running for this session");
    };
    listAnswer = async () => [{ ...compaction, text: "" }];
    await state().runCompaction("");
    await vi.waitFor(() => expect(running()).toMatchObject({ jobId: compaction.jobId, here: false }));
  });
});

describe("asking which jobs run (a reload, a reconnect)", () => {
  // A reload while the model kept silent restarted the count at 0 s.
  it("a listed job's wait for the model counts on from when its request was sent", async () => {
    listAnswer = async () => [{ ...compaction, text: "", requestAgeMs: 42_000 }];
    await state().loadRunningJobs();
    const since = (running() as unknown as { since: number }).since;
    expect(Date.now() - since).toBeGreaterThanOrEqual(42_000);
    expect(Date.now() - since).toBeLessThan(52_000);
  });

  it("adds the listed ones and drops one that ended unheard", async () => {
    state().jobStarted({ jobId: "gone", sessionId: "s3", kind: "compaction" });
    listAnswer = async () => [{ ...compaction, text: "" }];
    await state().loadRunningJobs();
    expect(Object.keys(state().runningJobs)).toEqual(["s1"]);
    expect(running()).toMatchObject({ jobId: compaction.jobId, here: false });
  });

  it("an end heard while asking wins over the answer, a start heard while asking stays", async () => {
    let answer: (jobs: ListedJobDto[]) => void = () => undefined;
    listAnswer = () => new Promise((resolve) => (answer = resolve));
    const asking = state().loadRunningJobs();
    state().jobEnded({ ...compaction, outcome: "done", entryId: "c1" });
    state().jobStarted({ jobId: "j5", sessionId: "s5", kind: "branch-summary" });
    answer([{ ...compaction, text: "" }]);
    await asking;
    expect(Object.keys(state().runningJobs)).toEqual(["s5"]);
  });
});

describe("a chat turn another window started", () => {
  const turn: ChatTurnResultDto = {
    sessionId: "s1",
    userEntryId: "u9",
    assistantEntryId: "a9",
    stopReason: "stop",
    appendedEntryIds: ["u9", "a9"],
    cancelled: false,
  };
  let chat: RunningJobDto;
  beforeEach(() => {
    chat = { jobId: `chat-${tests}`, sessionId: "s1", kind: "chat", chat: { userText: "Go on", continuing: false } };
  });

  it("shows as the open session's reply (not as a compaction), streams, and is stopped from here", async () => {
    useCanopy.setState({ chatMessage: { kind: "ok", text: "Reply a1 added." } });
    state().jobStarted(chat);
    expect(running()).toBeNull();
    expect(selectChat(state())).toMatchObject({ jobId: chat.jobId, here: false, text: "", chat: chat.chat });
    // The composer's last line was about an earlier turn.
    expect(state().chatMessage).toBeNull();
    state().jobStreamed("s1", chat.jobId, "The reply");
    state().jobStreamed("s1", "another-job", "not this one");
    expect(selectChat(state())?.text).toBe("The reply");
    await state().cancelRunning();
    expect(calls.at(-1)).toEqual({ channel: "chat:abort", input: { sessionId: "s1" } });
  });

  it("ends with the composer's outcome line, and the open session reloads", async () => {
    state().jobStarted(chat);
    state().jobEnded({ ...chat, outcome: "done", entryId: "a9", turn });
    expect(selectChat(state())).toBeNull();
    expect(state().chatMessage).toEqual({ kind: "ok", text: "Reply a9 added." });
    expect(state().jobMessage).toBeNull();
    await vi.waitFor(() => expect(calls.map((c) => c.channel)).toContain("session:tree"));

    state().jobStarted({ ...chat, jobId: "c2" });
    state().jobEnded({ ...chat, jobId: "c2", outcome: "cancelled", entryId: null });
    expect(state().chatMessage).toEqual({ kind: "ok", text: "Reply cancelled; nothing was saved." });
    state().jobStarted({ ...chat, jobId: "c3" });
    state().jobEnded({ ...chat, jobId: "c3", outcome: "failed", entryId: null, errorMessage: "No model configured" });
    expect(state().chatMessage).toEqual({ kind: "error", text: "No model configured" });
  });

  it("a compaction or navigation asked for meanwhile is refused with a message, not silently", async () => {
    state().jobStarted(chat);
    await state().runCompaction("");
    await state().navigateTo("u1", false);
    expect(calls.map((c) => c.channel)).not.toContain("compaction:run");
    expect(state().jobMessage).toEqual({
      kind: "error",
      text: "A reply is being written on this session; wait for it or cancel it first (Escape).",
    });
  });

  it("this window's own compaction, refused while another window's reply started, shows that reply", () => {
    state().ownJobStarting({ kind: "compaction", sessionId: "s1" });
    state().jobStarted(chat);
    expect(selectChat(state())).toMatchObject({ jobId: chat.jobId, here: false });
  });
});

describe("a branch summary cancelled from this window", () => {
  // Nothing changed: the session is not reloaded, and an entry the user selected after the
  // progress box went (arrowing on in the tree, CI saw it cleared) stays selected.
  it("keeps the selection made meanwhile and reloads nothing", async () => {
    let answer: (result: unknown) => void = () => undefined;
    navigateAnswer = () => new Promise((resolve) => (answer = resolve));
    const moving = state().navigateTo("a1", true);
    useCanopy.setState({ selectedEntryId: "u3" });
    answer({ cancelled: true, newLeafId: null, summaryEntryId: null });
    await moving;
    expect(state().selectedEntryId).toBe("u3");
    expect(state().jobMessage).toEqual({ kind: "ok", text: "Branch summarization cancelled; nothing changed." });
    expect(calls.map((c) => c.channel)).not.toContain("session:tree");
  });
});

describe("job:list gives the text streamed so far", () => {
  it("a reloaded window shows a listed job's text, a chat's with the message it answers", async () => {
    listAnswer = async () => [
      { ...compaction, text: "## Goal" },
      { jobId: "c9", sessionId: "s2", kind: "chat", chat: { userText: "Hi", continuing: true }, text: "Hello th" },
    ];
    await state().loadRunningJobs();
    expect(running()?.text).toBe("## Goal");
    expect(state().runningJobs.s2).toMatchObject({ kind: "chat", text: "Hello th", chat: { userText: "Hi", continuing: true } });
  });

  it("a job known before a reconnect takes the listed text, unless newer text came since asking", async () => {
    state().jobStarted(compaction);
    state().jobStarted({ jobId: "c8", sessionId: "s2", kind: "chat", chat: { userText: "Hi", continuing: false } });
    let answer: (jobs: ListedJobDto[]) => void = () => undefined;
    listAnswer = () => new Promise((resolve) => (answer = resolve));
    const asking = state().loadRunningJobs();
    state().jobStreamed("s2", "c8", "Hello there, newer");
    answer([
      { ...compaction, text: "## Goal\nmissed while away" },
      { jobId: "c8", sessionId: "s2", kind: "chat", text: "Hello" },
    ]);
    await asking;
    expect(running()?.text).toBe("## Goal\nmissed while away");
    expect(state().runningJobs.s2?.text).toBe("Hello there, newer");
  });
});

describe("a chat turn's automatic compaction (Compacting automatically…)", () => {
  const turn = (jobId: string, sessionId = "s1"): RunningJobDto => ({
    jobId,
    sessionId,
    kind: "chat",
    chat: { userText: "Next step", continuing: false },
  });
  const auto = () => selectAutoCompaction(state());

  it("a reloaded window shows the listed phase, follows the events, and keeps the outcome when the turn ends", async () => {
    listAnswer = async () => [
      { ...turn("c20"), text: "Step one done.", autoCompaction: { reason: "threshold", status: "running", entryId: null } },
    ];
    await state().loadRunningJobs();
    expect(auto()).toEqual({ reason: "threshold", status: "running", entryId: null });
    state().autoCompactionRetry("s1", "Retrying the summary (1/3) after: 503 Service Unavailable");
    expect(auto()).toMatchObject({ status: "running", retry: "Retrying the summary (1/3) after: 503 Service Unavailable" });
    state().autoCompactionEnded({ sessionId: "s1", reason: "threshold", entryId: "k1", aborted: false });
    expect(auto()).toEqual({ reason: "threshold", status: "done", entryId: "k1" });
    state().jobEnded({ ...turn("c20"), outcome: "done", entryId: "r2" });
    expect(selectChat(state())).toBeNull();
    expect(auto()).toEqual({ sessionId: "s1", reason: "threshold", status: "done", entryId: "k1" });
  });

  it("an event heard while asking wins over the answer", async () => {
    state().jobStarted(turn("c21"));
    state().autoCompactionStarted("s1", "overflow");
    let answer: (jobs: ListedJobDto[]) => void = () => undefined;
    listAnswer = () => new Promise((resolve) => (answer = resolve));
    const asking = state().loadRunningJobs();
    state().autoCompactionEnded({ sessionId: "s1", reason: "overflow", entryId: "k2", aborted: false });
    answer([{ ...turn("c21"), text: "", autoCompaction: { reason: "overflow", status: "running", entryId: null } }]);
    await asking;
    expect(auto()).toEqual({ reason: "overflow", status: "done", entryId: "k2" });
  });

  it("a turn on a session not open is kept with its phase, shown once that session is opened", () => {
    state().jobStarted(turn("c22", "s2"));
    state().autoCompactionStarted("s2", "threshold");
    expect(auto()).toBeNull();
    useCanopy.setState({ selectedSessionId: "s2" });
    expect(auto()).toEqual({ reason: "threshold", status: "running", entryId: null });
  });
});
