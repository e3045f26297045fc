// Chat turns, manual compactions and branch summaries are told to every client: job:started when
// one holds the session, job:ended however it ends (done with the entry it appended — a chat turn
// with its result —, cancelled, failed with its message), and job:list names the ones running
// meanwhile with the text each streamed so far (a slow local model server).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Events } from "../../../core/api/contract.ts";
import type { ListedJobDto } from "../../../core/api/dto-jobs.ts";
import { flatten } from "../../../core/session/describe.ts";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import { closeServedHarness, type Harness, startServedHarness, until } from "./harness.ts";
import { chainSession, plain, plainSession } from "./sessions.ts";

type JobEvent =
  | { name: "job:started"; payload: Events["job:started"] }
  | { name: "job:ended"; payload: Events["job:ended"] };

let server: FakeServer;
let h: Harness;
let heard: JobEvent[];
/** The texts streamed so far, as job:progressed and chat:progressed told them. */
let streamed: string[];

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
  heard = [];
  streamed = [];
  h.api.ctx.events.subscribe((name, payload) => {
    const text = (payload as { text?: unknown }).text;
    if ((name === "job:progressed" || name === "chat:progressed") && typeof text === "string") streamed.push(text);
    if (name === "job:started") heard.push({ name, payload: payload as Events["job:started"] });
    if (name === "job:ended") heard.push({ name, payload: payload as Events["job:ended"] });
  });
});

afterEach(() => closeServedHarness({ server, h }));

const ended = () => heard.filter((event) => event.name === "job:ended").map((event) => event.payload);

describe("compaction:run", () => {
  it("is listed while it runs and ends done with the compaction it appended", async () => {
    const sessionId = await h.importSession(plainSession());
    server.enqueue(
      { type: "reply", text: "History.", headersDelayMs: 300 },
      { type: "reply", text: "Short." },
    );
    const running = h.call("compaction:run", { sessionId });
    await until(() => server.requests.length === 1, 5000, "the summary request");
    const [started] = heard;
    expect(started?.name).toBe("job:started");
    const job = { jobId: started?.payload.jobId, sessionId, kind: "compaction" };
    expect(started?.payload).toEqual(job);
    expect(await h.call("job:list", {})).toEqual([{ ...job, text: "", requestAgeMs: expect.any(Number) }]);

    const result = await running;
    expect(ended()).toEqual([{ ...job, outcome: "done", entryId: result.entryId }]);
    expect(await h.call("job:list", {})).toEqual([]);
  });

  it("cancelled: ends cancelled, and the session is free for the next one when it is heard", async () => {
    const sessionId = await h.importSession(plainSession());
    server.enqueue({ type: "reply", text: "never sent", headersDelayMs: 10_000 });
    // Whoever hears the end may start again at once (the job has let go of the session first).
    const next: { run?: ReturnType<Harness["api"]["call"]> } = {};
    h.api.ctx.events.subscribe((name) => {
      if (name === "job:ended" && next.run === undefined)
        next.run = h.api.call("compaction:run", { sessionId });
    });
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => server.requests.length === 1, 5000, "the summary request");
    expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: true });
    expect((await running).ok).toBe(false);
    expect(ended()[0]).toMatchObject({ sessionId, kind: "compaction", outcome: "cancelled", entryId: null });
    expect(ended()[0]?.errorMessage).toBeUndefined();
    // (the fake server answers it with its default summary)
    expect(await next.run).toMatchObject({ ok: true });
  });

  it("failed: ends failed with the message the run failed with", async () => {
    const sessionId = await h.importSession(plainSession());
    server.enqueue({ type: "error", status: 500, body: { error: { message: "The server had an error" } } });
    const error = await h.fail("compaction:run", { sessionId });
    expect(ended()).toEqual([
      {
        jobId: heard[0]?.payload.jobId,
        sessionId,
        kind: "compaction",
        outcome: "failed",
        entryId: null,
        errorMessage: error.message,
        errorCode: error.code,
      },
    ]);
    expect(error.message).toContain("The server had an error");
  });

  it("a run refused as a conflict tells nothing (the running one stays the only one listed)", async () => {
    const sessionId = await h.importSession(plainSession());
    server.enqueue({ type: "reply", text: "slow", headersDelayMs: 10_000 });
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => server.requests.length === 1, 5000, "the summary request");
    expect((await h.fail("compaction:run", { sessionId })).code).toBe("conflict");
    expect(heard.map((event) => event.name)).toEqual(["job:started"]);
    expect(await h.call("job:list", {})).toHaveLength(1);
    await h.call("compaction:abort", { sessionId });
    await running;
  });
});

describe("navigation:navigate", () => {
  it("with a summary: listed while it runs, done with the branch summary it appended", async () => {
    const sessionId = await h.importSession(chainSession(4));
    server.enqueue({ type: "reply", text: "Branch.", headersDelayMs: 300 });
    const running = h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    await until(() => server.requests.length === 1, 5000, "the branch summary request");
    const jobId = heard[0]?.payload.jobId;
    expect(await h.call("job:list", {})).toEqual([
      { jobId, sessionId, kind: "branch-summary", text: "", requestAgeMs: expect.any(Number) },
    ]);
    const result = await running;
    expect(result.summaryEntryId).not.toBeNull();
    expect(ended()).toEqual([
      { jobId, sessionId, kind: "branch-summary", outcome: "done", entryId: result.summaryEntryId },
    ]);
  });

  it("with a summary, cancelled: ends cancelled", async () => {
    const sessionId = await h.importSession(chainSession(4));
    server.enqueue({ type: "reply", text: "never sent", headersDelayMs: 10_000 });
    const running = h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    await until(() => server.requests.length === 1, 5000, "the branch summary request");
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: true });
    expect((await running).cancelled).toBe(true);
    expect(ended()).toMatchObject([{ kind: "branch-summary", outcome: "cancelled", entryId: null }]);
  });

  it("with a summary, failed: ends failed with the message", async () => {
    const sessionId = await h.importSession(chainSession(4));
    server.enqueue({ type: "error", status: 400, body: { error: { message: "Bad summary request" } } });
    const error = await h.fail("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    expect(ended()).toMatchObject([
      { kind: "branch-summary", outcome: "failed", errorMessage: error.message },
    ]);
  });

  // Before, only the window that asked knew what to ask again: the others had no Retry to offer.
  it("with a summary, failed: ends failed telling why (the code) and the move asked, so any window can retry it", async () => {
    const sessionId = await h.importSession(chainSession(4));
    server.enqueue({ type: "error", status: 400, body: { error: { message: "Bad summary request" } } });
    const input = { sessionId, targetId: "a1", summarize: true, customInstructions: "Keep it short", replacePrompt: true };
    const error = await h.fail("navigation:navigate", input);
    expect(ended()).toMatchObject([
      {
        kind: "branch-summary",
        outcome: "failed",
        errorCode: error.code,
        asked: { targetId: "a1", customInstructions: "Keep it short", replacePrompt: true },
      },
    ]);
  });

  it("without a summary: a plain move is neither told nor listed", async () => {
    const sessionId = await h.importSession(chainSession(4));
    await h.call("navigation:navigate", { sessionId, targetId: "u1" });
    expect(heard).toEqual([]);
    expect(await h.call("job:list", {})).toEqual([]);
  });
});

describe("job:list with the text streamed so far", () => {
  it("a compaction is listed with its summary as far as it came", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.configureFakeModel(server, { stream: true });
    server.enqueue({ type: "reply", chunks: ["## Goal", "\nnever sent"], chunkDelayMs: 10_000 });
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => streamed.length === 1, 5000, "the first chunk");
    expect(await h.call("job:list", {})).toMatchObject([{ kind: "compaction", text: "## Goal" }]);
    await h.call("compaction:abort", { sessionId });
    expect((await running).ok).toBe(false);
    expect(await h.call("job:list", {})).toEqual([]);
  });
});

describe("hooks at work (job:hooks, and job:list meanwhile)", () => {
  /** The job:hooks events heard, in order. */
  const told: Events["job:hooks"][] = [];
  beforeEach(() => {
    told.length = 0;
    h.api.ctx.events.subscribe((name, payload) => {
      if (name === "job:hooks") told.push(payload as Events["job:hooks"]);
    });
  });
  /** A handler that answers once `release` is called. */
  const held = <T>(answer: T) => {
    let release = () => {};
    const called = { yes: false };
    const handler = () => {
      called.yes = true;
      return new Promise<T>((resolve) => {
        release = () => resolve(answer);
      });
    };
    return { handler, called, release: () => release() };
  };

  it("a compaction whose summary a hook writes: started and listed with the hook running, then told it wrote; no model asked", async () => {
    const sessionId = await h.importSession(plainSession());
    const hook = held({ compaction: { summary: "From the hook", firstKeptEntryId: "u2", tokensBefore: 10 } });
    h.api.ctx.hooks.register("summary-hook.mjs", "session_before_compact", hook.handler);
    const running = h.call("compaction:run", { sessionId });
    await until(() => hook.called.yes, 5000, "the hook");
    const jobId = heard[0]?.payload.jobId as string;
    const hooks = { event: "session_before_compact", files: ["summary-hook.mjs"], status: "running" };
    expect(heard[0]?.payload).toEqual({ jobId, sessionId, kind: "compaction", hooks });
    expect(told).toEqual([]);
    expect(await h.call("job:list", {})).toEqual([
      { jobId, sessionId, kind: "compaction", text: "", requestAgeMs: expect.any(Number), hooks },
    ]);
    hook.release();
    const result = await running;
    expect(result.fromExtension).toBe(true);
    expect(told).toEqual([{ jobId, sessionId, hooks: { ...hooks, status: "wrote" } }]);
    expect(ended()).toEqual([{ jobId, sessionId, kind: "compaction", outcome: "done", entryId: result.entryId }]);
    expect(server.requests).toEqual([]);
  });

  it("hooks that give no summary: told done (null) before the summarizer is asked", async () => {
    const sessionId = await h.importSession(plainSession());
    h.api.ctx.hooks.register("watch.mjs", "session_before_compact", () => undefined);
    h.api.ctx.hooks.register("shape.mjs", "session.compacting", () => ({ context: ["Extra"] }));
    server.enqueue({ type: "reply", text: "History.", headersDelayMs: 300 }, { type: "reply", text: "Short." });
    const running = h.call("compaction:run", { sessionId });
    await until(() => server.requests.length === 1, 5000, "the summary request");
    const jobId = heard[0]?.payload.jobId as string;
    expect(heard[0]?.payload).toEqual({
      jobId,
      sessionId,
      kind: "compaction",
      hooks: { event: "session_before_compact", files: ["watch.mjs"], status: "running" },
    });
    expect(told).toEqual([
      { jobId, sessionId, hooks: { event: "session.compacting", files: ["shape.mjs"], status: "running" } },
      { jobId, sessionId, hooks: null },
    ]);
    expect(await h.call("job:list", {})).toEqual([
      { jobId, sessionId, kind: "compaction", text: "", requestAgeMs: expect.any(Number) },
    ]);
    await running;
  });

  it("a branch summary a hook writes: started with the hook running, then told it wrote; a move without a summary tells nothing", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const hook = held({ summary: { summary: "Branch from the hook" } });
    h.api.ctx.hooks.register("tree-hook.mjs", "session_before_tree", hook.handler);
    const running = h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    await until(() => hook.called.yes, 5000, "the hook");
    const jobId = heard[0]?.payload.jobId as string;
    const hooks = { event: "session_before_tree", files: ["tree-hook.mjs"], status: "running" };
    expect(heard[0]?.payload).toEqual({ jobId, sessionId, kind: "branch-summary", hooks });
    expect(await h.call("job:list", {})).toEqual([
      { jobId, sessionId, kind: "branch-summary", text: "", requestAgeMs: expect.any(Number), hooks },
    ]);
    hook.release();
    expect((await running).fromExtension).toBe(true);
    expect(told).toEqual([{ jobId, sessionId, hooks: { ...hooks, status: "wrote" } }]);
    expect(server.requests).toEqual([]);
    told.length = 0;
    hook.called.yes = false;
    const plain = h.call("navigation:navigate", { sessionId, targetId: "u1" });
    await until(() => hook.called.yes, 5000, "the hook");
    hook.release();
    await plain;
    expect(told).toEqual([]);
  });
});

describe("chat turns", () => {
  const chatStream = (...chunks: string[]) =>
    server.enqueue({ type: "reply", chunks: [...chunks, " never sent"], chunkDelayMs: 10_000 });
  const listed = async () => (await h.call("job:list", {})) as ListedJobDto[];

  it("chat:send: told with its message, listed with the reply so far, ends done with its result", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.configureFakeModel(server, { stream: true });
    server.enqueue({ type: "reply", chunks: ["Sure,", " here they are."], chunkDelayMs: 400 });
    const running = h.call("chat:send", { sessionId, text: "Add more tests" });
    await until(() => streamed.length === 1, 5000, "the first chunk");
    const [started] = heard;
    const job = {
      jobId: started?.payload.jobId,
      sessionId,
      kind: "chat",
      chat: { userText: "Add more tests", continuing: false },
    };
    expect(started).toEqual({ name: "job:started", payload: job });
    expect(await listed()).toEqual([{ ...job, text: "Sure,", requestAgeMs: expect.any(Number) }]);

    const turn = await running;
    expect(ended()).toEqual([{ ...job, outcome: "done", entryId: turn.assistantEntryId, turn }]);
    expect(await listed()).toEqual([]);
  });

  it("chat:continue: told with the text of the user message it answers", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.call("session:set-view-leaf", { sessionId, leafId: "u2" });
    server.enqueue({ type: "reply", text: "Tests added." });
    const turn = await h.call("chat:continue", { sessionId });
    // The first 200 characters, as the canvas shows the entry.
    expect(heard[0]?.payload.chat).toEqual({ userText: flatten(plain.u2, 200), continuing: true });
    expect(heard[0]?.payload.chat?.userText).toMatch(/^Now add tests for the parser.{150,}…$/);
    expect(ended()).toMatchObject([{ kind: "chat", outcome: "done", entryId: turn.assistantEntryId }]);
  });

  it("cancelled by chat:abort: ends cancelled with nothing appended", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.configureFakeModel(server, { stream: true });
    chatStream("Partial");
    const running = h.api.call("chat:send", { sessionId, text: "Go on" });
    await until(() => streamed.length === 1, 5000, "the first chunk");
    expect((await listed())[0]?.text).toBe("Partial");
    expect(await h.call("chat:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toMatchObject({ ok: false, error: { code: "cancelled" } });
    expect(ended()).toMatchObject([{ kind: "chat", outcome: "cancelled", entryId: null }]);
    expect(ended()[0]?.turn).toBeUndefined();
    expect(await listed()).toEqual([]);
  });

  it("failed: ends failed with the message; a turn refused as a conflict tells nothing", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.call("settings:set", { key: "model", value: null });
    const error = await h.fail("chat:send", { sessionId, text: "Go on" });
    expect(ended()).toMatchObject([{ kind: "chat", outcome: "failed", errorMessage: error.message }]);
    expect(error.message).toContain("No model configured");

    heard.length = 0;
    await h.configureFakeModel(server);
    server.enqueue({ type: "reply", text: "slow", headersDelayMs: 10_000 });
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => heard.length === 1, 5000, "the compaction's start");
    expect((await h.fail("chat:send", { sessionId, text: "Go on" })).code).toBe("conflict");
    expect(heard.map((event) => event.payload.kind)).toEqual(["compaction"]);
    await h.call("compaction:abort", { sessionId });
    await running;
  });

  it("a turn's automatic compaction is listed with it: running, then done while the auto-continue reply comes", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.configureFakeModel(server, { stream: true });
    const isChat = (body: Record<string, unknown>) => !("max_tokens" in body);
    server.enqueue(
      { type: "reply", text: "Step one done.", usage: { prompt_tokens: 190_000, completion_tokens: 10 }, match: isChat },
      { type: "reply", text: "## Goal\nHistory.", headersDelayMs: 500, match: (body) => !isChat(body) },
      { type: "reply", chunks: ["Continuing", " never sent"], chunkDelayMs: 10_000, match: isChat },
    );
    const phases: string[] = [];
    h.api.ctx.events.subscribe((name) => {
      if (name === "compaction:auto-started" || name === "compaction:auto-ended") phases.push(name);
    });
    const running = h.api.call("chat:send", { sessionId, text: "Next step" });
    await until(() => phases.length === 1, 5000, "the automatic compaction");
    expect((await listed())[0]).toMatchObject({
      kind: "chat",
      text: "Step one done.",
      autoCompaction: { reason: "threshold", status: "running", entryId: null },
    });

    await until(() => streamed.at(-1) === "Continuing", 5000, "the auto-continue reply");
    const [ending] = (await listed()) as ListedJobDto[];
    expect(ending).toMatchObject({ kind: "chat", text: "Continuing", autoCompaction: { reason: "threshold", status: "done" } });
    const compactionId = ending?.autoCompaction?.entryId;
    expect((await h.snapshot(sessionId)).ids).toContain(compactionId);
    await h.call("chat:abort", { sessionId });
    expect((await running).ok).toBe(true);
    expect(await listed()).toEqual([]);
  });

  it("a reply retried after a transient failure is listed from the start again", async () => {
    const sessionId = await h.importSession(plainSession());
    await h.configureFakeModel(server, { stream: true });
    await h.call("settings:set", { key: "retry.baseDelayMs", value: 10_000 });
    server.enqueue({
      type: "reply",
      chunks: ["Half a reply", " lost", " never sent"],
      chunkDelayMs: 100,
      streamError: { afterChunks: 2, message: "The service is unavailable (server error)" },
    });
    const retrying: unknown[] = [];
    h.api.ctx.events.subscribe((name, payload) => {
      if (name === "chat:retry-started") retrying.push(payload);
    });
    const running = h.api.call("chat:send", { sessionId, text: "Go on" });
    await until(() => retrying.length === 1, 5000, "the retry");
    expect(streamed).toEqual(["Half a reply", "Half a reply lost"]);
    expect((await listed())[0]).toMatchObject({ kind: "chat", text: "" });
    await h.call("chat:abort", { sessionId });
    expect((await running).ok).toBe(false);
  });
});
