// Cancellation (SPEC §9.6, behaviour 55): compaction:abort and navigation:abort during a slow
// model call close the HTTP request and change nothing; one summary job per session (conflict).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import { chatRequests, closeServedHarness, type Harness, startServedHarness, until } from "./harness.ts";
import { chainSession, plainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ keepRecentTokens: 1500 }));
});

afterEach(() => closeServedHarness({ server, h }));

describe("compaction:abort", () => {
  for (const stream of [false, true]) {
    it(`${stream ? "mid-stream" : "while the server delays its headers"}: cancelled, nothing appended, connection closed`, async () => {
      await h.configureFakeModel(server, { stream });
      const sessionId = await h.importSession(plainSession());
      const before = await h.snapshot(sessionId);
      let streamed = "";
      h.api.ctx.events.subscribe((name, payload) => {
        if (name === "job:progressed" && "text" in payload && payload.text) streamed = payload.text;
      });
      server.enqueue(
        stream
          ? { type: "reply", chunks: ["## Goal", "\nFix", " the", " parser."], chunkDelayMs: 10_000 }
          : { type: "reply", text: "never sent", headersDelayMs: 10_000 },
      );
      const running = h.api.call("compaction:run", { sessionId });
      await until(() => server.requests.length === 1, 5000, "the summary request");
      if (stream) await until(() => streamed === "## Goal", 5000, "the first streamed chunk");

      expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: true });
      expect(await running).toEqual({
        ok: false,
        error: { code: "cancelled", message: "Compaction cancelled" },
      });
      await until(
        () => server.requests[0]?.clientClosed === true,
        5000,
        "the client to close the connection",
      );
      expect(chatRequests(server)).toHaveLength(1);
      expect(await h.snapshot(sessionId)).toEqual(before);
      expect((await h.call("context:get", { sessionId })).compactionId).toBeNull();
      // The job is gone: nothing left to abort, and a new run is accepted.
      expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: false });
      server.enqueue({ type: "reply", text: "History." }, { type: "reply", text: "Short." });
      expect((await h.call("compaction:run", { sessionId })).shortSummary).toBe("Short.");
    });
  }

  it("with nothing running: aborted false", async () => {
    const sessionId = await h.importSession(plainSession());
    expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: false });
  });

  it("a second compaction (or a navigation) while one runs is a conflict", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    server.enqueue({ type: "reply", text: "slow", headersDelayMs: 10_000 });
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => server.requests.length === 1, 5000, "the summary request");
    const second = await h.fail("compaction:run", { sessionId });
    expect(second.code).toBe("conflict");
    expect((await h.fail("navigation:navigate", { sessionId, targetId: "a1", summarize: true })).code).toBe(
      "conflict",
    );
    // A branch-summary abort does not touch a running compaction.
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: false });
    expect(server.requests).toHaveLength(1);
    expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: true });
    expect((await running).ok).toBe(false);
  });
});

describe("navigation:abort during a branch summary", () => {
  it("returns cancelled + aborted, the session unchanged, the request closed", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    expect(before.viewLeafId).toBe("a2");
    server.enqueue({ type: "reply", text: "never sent", headersDelayMs: 10_000 });
    const running = h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    await until(() => server.requests.length === 1, 5000, "the branch summary request");
    expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: false });
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: true });
    const result = await running;
    expect(result).toMatchObject({ cancelled: true, aborted: true, summaryEntryId: null });
    await until(() => server.requests[0]?.clientClosed === true, 5000, "the client to close the connection");
    expect(await h.snapshot(sessionId)).toEqual(before);
    expect((await h.call("context:get", { sessionId })).leafId).toBe("a2");
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: false });
  });
});

describe("aborts while a hook runs (hooks get the signal but may ignore it)", () => {
  /** A handler that ignores the signal: it answers after `ms`, whatever happened meanwhile. */
  function late<T>(ms: number, value: T): () => Promise<T> {
    return () => new Promise((resolve) => setTimeout(() => resolve(value), ms));
  }

  it("compaction: a hook compaction returned after the abort is not saved", async () => {
    const sessionId = await h.importSession(plainSession());
    const before = await h.snapshot(sessionId);
    let started = false;
    h.api.ctx.hooks.register("slow", "session_before_compact", () => {
      started = true;
      return late(300, { compaction: { summary: "Too late", firstKeptEntryId: "u2", tokensBefore: 1 } })();
    });
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => started, 5000, "the hook to start");
    expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toEqual({
      ok: false,
      error: { code: "cancelled", message: "Compaction cancelled" },
    });
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("navigation: a hook summary returned after the abort is not saved and the view leaf stays", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    let started = false;
    h.api.ctx.hooks.register("slow", "session_before_tree", () => {
      started = true;
      return late(300, { summary: { summary: "Too late" } })();
    });
    const running = h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    await until(() => started, 5000, "the hook to start");
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toMatchObject({ cancelled: true, aborted: true, summaryEntryId: null });
    expect(await h.snapshot(sessionId)).toEqual(before);
    expect(server.requests).toHaveLength(0);
  });

  it("navigation without a summary: an acknowledged abort leaves the view leaf where it was", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    let started = false;
    h.api.ctx.hooks.register("slow", "session_before_tree", () => {
      started = true;
      return late(300, undefined)();
    });
    const running = h.call("navigation:navigate", { sessionId, targetId: "u1" });
    await until(() => started, 5000, "the hook to start");
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toMatchObject({ cancelled: true, aborted: true, newLeafId: "a2" });
    expect(await h.snapshot(sessionId)).toEqual(before);
  });
});

describe("a hook that never answers does not hold a cancel", () => {
  const never = () => new Promise<never>(() => undefined);

  for (const event of ["session_before_compact", "session.compacting"] as const) {
    it(`compaction (${event}): the abort ends the run at once, nothing saved`, async () => {
      const sessionId = await h.importSession(plainSession());
      const before = await h.snapshot(sessionId);
      let started = false;
      h.api.ctx.hooks.register("hung", event, () => {
        started = true;
        return never();
      });
      const running = h.api.call("compaction:run", { sessionId });
      await until(() => started, 5000, "the hook to start");
      expect(await h.call("compaction:abort", { sessionId })).toEqual({ aborted: true });
      expect(await running).toEqual({
        ok: false,
        error: { code: "cancelled", message: "Compaction cancelled" },
      });
      expect(await h.snapshot(sessionId)).toEqual(before);
    });
  }

  it("navigation (session_before_tree): the abort ends it at once, the view leaf stays", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    let started = false;
    h.api.ctx.hooks.register("hung", "session_before_tree", () => {
      started = true;
      return never();
    });
    const running = h.call("navigation:navigate", { sessionId, targetId: "u1" });
    await until(() => started, 5000, "the hook to start");
    expect(await h.call("navigation:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toMatchObject({ cancelled: true, aborted: true });
    expect(await h.snapshot(sessionId)).toEqual(before);
  });
});

describe("the precondition is re-checked before saving (DESIGN §4)", () => {
  it("compaction: the view leaf moved during the summary → conflict, nothing appended", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    const before = await h.snapshot(sessionId);
    server.enqueue(
      { type: "reply", text: "History.", headersDelayMs: 300 },
      { type: "reply", text: "Short." },
    );
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => server.requests.length === 1, 5000, "the summary request");
    await h.call("session:set-view-leaf", { sessionId, leafId: "a3" });
    const result = await running;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("conflict");
    expect(await h.snapshot(sessionId)).toEqual({ ...before, viewLeafId: "a3" });
  });

  it("navigation: the view leaf moved during the branch summary → conflict, nothing appended", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    server.enqueue({ type: "reply", text: "Branch.", headersDelayMs: 300 });
    const running = h.api.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    await until(() => server.requests.length === 1, 5000, "the branch summary request");
    await h.call("session:set-view-leaf", { sessionId, leafId: "u2" });
    const result = await running;
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("conflict");
    expect(await h.snapshot(sessionId)).toEqual({ ...before, viewLeafId: "u2" });
  });
});
