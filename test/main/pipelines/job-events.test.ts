// Manual compactions and branch summaries are told to every client: job:started when one holds
// the session, job:ended however it ends (done with the entry it appended, cancelled, failed with
// its message), and job:list names the ones running meanwhile (a slow local model server).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Events } from "../../../core/api/contract.ts";
import { type FakeServer, start } from "../../helpers/fake-openai-server.ts";
import { createHarness, type Harness, removeDir, until } from "./harness.ts";
import { chainSession, plainSession } from "./sessions.ts";

type JobEvent =
  | { name: "job:started"; payload: Events["job:started"] }
  | { name: "job:ended"; payload: Events["job:ended"] };

let server: FakeServer;
let h: Harness;
let heard: JobEvent[];

beforeEach(async () => {
  server = await start();
  h = createHarness();
  heard = [];
  h.api.ctx.events.subscribe((name, payload) => {
    if (name === "job:started") heard.push({ name, payload: payload as Events["job:started"] });
    if (name === "job:ended") heard.push({ name, payload: payload as Events["job:ended"] });
  });
  await h.configureFakeModel(server);
  await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 1500 });
});

afterEach(async () => {
  h.close();
  removeDir(h.dir);
  await server.close();
});

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
    expect(await h.call("job:list", {})).toEqual([job]);

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
    expect(await h.call("job:list", {})).toEqual([{ jobId, sessionId, kind: "branch-summary" }]);
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

  it("without a summary: a plain move is neither told nor listed", async () => {
    const sessionId = await h.importSession(chainSession(4));
    await h.call("navigation:navigate", { sessionId, targetId: "u1" });
    expect(heard).toEqual([]);
    expect(await h.call("job:list", {})).toEqual([]);
  });
});
