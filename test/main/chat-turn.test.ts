// The chat turn (D17) against a real OpenAI-compatible server on 127.0.0.1: streamed replies
// appended as the agents write them, threshold compaction with one auto-continue, overflow
// recovery with one retry, the exact failure messages, and cancellation.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventName, Events } from "../../core/api/contract.ts";
import type { MessageEntry, SessionEntry } from "../../core/session/entries.ts";
import { loadSessionEntries } from "../../main/library/load.ts";
import { AUTO_CONTINUE_PROMPT } from "../../main/pipelines/auto-compaction.ts";
import { CHAT_CANCELLED, NO_MODEL_MESSAGE } from "../../main/pipelines/chat-turn.ts";
import {
  type FakeServer,
  OVERFLOW_ERRORS,
  type RecordedRequest,
  type RequestMatcher,
} from "../helpers/fake-openai-server.ts";
import { type ChainStep, textOf, writeChainSession } from "./auto/session-builder.ts";
import { closeServedHarness, type Harness, startServedHarness } from "./pipelines/harness.ts";

/** Chat turns send the LLM view as is; summary calls carry an output cap. */
const isChat: RequestMatcher = (body) => !("max_tokens" in body);
const isSummary: RequestMatcher = (body) => "max_tokens" in body;

let fake: FakeServer;
let h: Harness;
let events: { name: EventName; payload: unknown }[];

async function set(key: string, value: unknown) {
  await h.call("settings:set", { key, value });
}

async function importSession(steps: ChainStep[], name = "s"): Promise<string> {
  const report = await h.call("library:import", { path: writeChainSession(h.dir, name, steps) });
  return report.files[0]?.sessionId as string;
}

const chatRequests = () =>
  fake.requests.filter((r) => r.path === "/v1/chat/completions" && isChat(r.body as Record<string, unknown>));
const messagesOf = (request: RecordedRequest | undefined) =>
  (request?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
const entries = (sessionId: string) => loadSessionEntries(h.api.ctx.db, sessionId);
const byId = (sessionId: string, id: string) =>
  entries(sessionId).find((entry) => entry.id === id) as SessionEntry;
const messageOf = (sessionId: string, id: string) =>
  (byId(sessionId, id) as MessageEntry).message as unknown as Record<string, unknown>;
const payloads = <E extends EventName>(name: E) =>
  events.filter((e) => e.name === name).map((e) => e.payload as Events[E]);

async function until(check: () => boolean, what: string, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A small conversation whose last reply measured 10,000 tokens (far below the threshold). */
const smallSession: ChainStep[] = [
  { role: "user", text: "Fix the parser." },
  { role: "assistant", text: "Which file?", usage: { input: 9000, output: 1000, totalTokens: 10_000 } },
];

/** Enough history for a compaction to have something to summarize (keepRecentTokens 4000). */
const longSession: ChainStep[] = [
  { role: "user", text: textOf(3000, "first") },
  { role: "assistant", text: textOf(3000, "answer") },
  { role: "user", text: textOf(3000, "second") },
  {
    role: "assistant",
    text: textOf(3000, "reply"),
    usage: { input: 12_000, output: 1000, totalTokens: 13_000 },
  },
];

beforeEach(async () => {
  ({ server: fake, h } = await startServedHarness({
    server: { defaultText: "## Goal\nKeep going." },
    harness: { env: { ECHOED_KEY: "sk-proj-echoed-0123456789" } },
    model: true,
    stream: true,
    keepRecentTokens: 4000,
  }));
  events = [];
  h.api.ctx.events.subscribe((name, payload) => events.push({ name, payload }));
  await set("retry.baseDelayMs", 1);
});

afterEach(() => closeServedHarness({ server: fake, h }));

describe("a chat turn", () => {
  it("streams the reply and appends the user message and the reply with the API's usage", async () => {
    const sessionId = await importSession(smallSession);
    const leafBefore = entries(sessionId).at(-1)?.id;
    fake.enqueue({
      type: "reply",
      chunks: ["Hel", "lo ", "there."],
      usage: { prompt_tokens: 120, completion_tokens: 7 },
      match: isChat,
    });
    const result = await h.call("chat:send", { sessionId, text: "It is src/parse.ts" });

    // Paced (progress-pace.ts): the first chunk at once, the whole reply at the end, and the
    // middle one only if the stream took longer than the interval.
    expect([["Hel", "Hello there."], ["Hel", "Hello ", "Hello there."]]).toContainEqual(
      payloads("chat:progressed").map((p) => p.text),
    );
    expect(result).toMatchObject({
      stopReason: "stop",
      cancelled: false,
      appendedEntryIds: [result.userEntryId, result.assistantEntryId],
    });
    expect(result.autoCompaction).toBeUndefined();
    const user = byId(sessionId, result.userEntryId);
    expect(user.parentId).toBe(leafBefore);
    expect(messageOf(sessionId, result.userEntryId)).toEqual({
      role: "user",
      content: [{ type: "text", text: "It is src/parse.ts" }],
      timestamp: expect.any(Number),
    });
    expect(byId(sessionId, result.assistantEntryId).parentId).toBe(result.userEntryId);
    expect(messageOf(sessionId, result.assistantEntryId)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Hello there." }],
      api: "openai-completions",
      provider: new URL(fake.url).host,
      model: "fake-model",
      usage: {
        input: 120,
        output: 7,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 127,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: expect.any(Number),
      duration: expect.any(Number),
      ttft: expect.any(Number),
    });
    const view = await h.call("context:get", { sessionId });
    expect(view.leafId).toBe(result.assistantEntryId);
    expect(view.measuredTokens).toBe(127);

    const [request] = chatRequests();
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(request?.body).toMatchObject({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(messagesOf(request)).toEqual([
      { role: "user", content: "Fix the parser." },
      { role: "assistant", content: "Which file?" },
      { role: "user", content: "It is src/parse.ts" },
    ]);
  });

  it("without streaming, and an endpoint error is appended as an error reply", async () => {
    await set("model.stream", false);
    const sessionId = await importSession(smallSession);
    fake.enqueue({
      type: "reply",
      text: "Whole reply.",
      usage: { prompt_tokens: 50, completion_tokens: 3 },
      match: isChat,
    });
    const ok = await h.call("chat:send", { sessionId, text: "Go on" });
    expect(messageOf(sessionId, ok.assistantEntryId)).toMatchObject({
      content: [{ type: "text", text: "Whole reply." }],
      usage: { input: 50, output: 3, totalTokens: 53 },
    });
    expect(chatRequests()[0]?.body).not.toHaveProperty("stream_options");

    fake.enqueue({
      type: "error",
      status: 401,
      body: { error: { message: "Incorrect API key provided" } },
      match: isChat,
    });
    const failed = await h.call("chat:send", { sessionId, text: "Again" });
    const refused = "401 Incorrect API key provided — check the API key found under FAKE_KEY";
    expect(failed).toMatchObject({ stopReason: "error", errorMessage: refused });
    expect(messageOf(sessionId, failed.assistantEntryId)).toMatchObject({
      content: [],
      stopReason: "error",
      errorMessage: refused,
    });
    expect((await h.call("context:get", { sessionId })).leafId).toBe(failed.assistantEntryId);
  });

  for (const stream of [true, false]) {
    it(`a reply that is only a tool call (${stream ? "streamed" : "not streamed"}) fails naming the tool, not as "empty"`, async () => {
      await set("model.stream", stream);
      const sessionId = await importSession(smallSession);
      fake.enqueue({
        type: "reply",
        text: "",
        toolCalls: [{ id: "call_1", name: "read", arguments: '{"path":"src/parse.ts"}' }],
        finishReason: "tool_calls",
        match: isChat,
      });
      const result = await h.call("chat:send", { sessionId, text: "Look at it" });
      const expected = "The model asked to run read instead of replying; Canopy runs no tools";
      expect(result).toMatchObject({ stopReason: "error", errorMessage: expected });
      expect(messageOf(sessionId, result.assistantEntryId)).toMatchObject({
        content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/parse.ts" } }],
        errorMessage: expected,
      });
    });
  }

  it("masks the API key in an endpoint error that echoes it, in the reply stored in the session", async () => {
    await set("model.apiKeyEnv", "ECHOED_KEY");
    const sessionId = await importSession(smallSession);
    fake.enqueue({
      type: "error",
      status: 401,
      body: { error: { message: "Incorrect API key provided: sk-proj-echoed-0123456789" } },
      match: isChat,
    });
    const failed = await h.call("chat:send", { sessionId, text: "Again" });
    expect(fake.requests.at(-1)?.headers.authorization).toBe("Bearer sk-proj-echoed-0123456789");
    const masked = "401 Incorrect API key provided: [API key] — check the API key found under ECHOED_KEY";
    expect(failed.errorMessage).toBe(masked);
    expect(messageOf(sessionId, failed.assistantEntryId).errorMessage).toBe(masked);
  });

  it("a key refused because none is set says where Canopy looked for it", async () => {
    await set("model.apiKeyEnv", "CANOPY_TEST_UNSET_KEY");
    const sessionId = await importSession(smallSession);
    fake.enqueue({
      type: "error",
      status: 401,
      body: { error: { message: "Incorrect API key provided: not-needed" } },
      match: isChat,
    });
    const failed = await h.call("chat:send", { sessionId, text: "Again" });
    expect(fake.requests.at(-1)?.headers.authorization).toBe("Bearer not-needed");
    expect(failed.errorMessage).toBe(
      "401 Incorrect API key provided: not-needed — no API key found: set the environment variable CANOPY_TEST_UNSET_KEY before starting Canopy",
    );
  });

  it("refuses a model whose context window is not larger than the compaction reserve, saying what to set", async () => {
    const sessionId = await importSession(smallSession);
    const before = (await h.call("session:get", { sessionId })).entries.length;
    await set("model.contextWindow", 8192);
    const refused = await h.api.call("chat:send", { sessionId, text: "hello" });
    expect(refused).toEqual({
      ok: false,
      error: {
        code: "invalid_input",
        message:
          "The model's context window (8192 tokens) is not larger than compaction.reserveTokens (16384): every reply would start a compaction. Lower compaction.reserveTokens (for example to 2048), or set model.contextWindow to the model's real window",
      },
    });
    expect(chatRequests()).toHaveLength(0);
    expect((await h.call("session:get", { sessionId })).entries).toHaveLength(before);
    await set("compaction.reserveTokens", 2048);
    expect((await h.call("chat:send", { sessionId, text: "hello" })).stopReason).toBe("stop");
  });

  it("refuses without a model, an empty message, and a second turn while one runs", async () => {
    const sessionId = await importSession(smallSession);
    expect(await h.api.call("chat:send", { sessionId, text: "  " })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    fake.enqueue({ type: "reply", text: "slow", headersDelayMs: 10_000, match: isChat });
    const running = h.api.call("chat:send", { sessionId, text: "one" });
    await until(() => chatRequests().length === 1, "the chat request");
    expect(await h.api.call("chat:send", { sessionId, text: "two" })).toMatchObject({
      ok: false,
      error: { code: "conflict" },
    });
    expect(await h.api.call("compaction:run", { sessionId })).toMatchObject({
      ok: false,
      error: { code: "conflict" },
    });
    await h.call("chat:abort", { sessionId });
    await running;
    await set("model", null);
    expect(await h.api.call("chat:send", { sessionId, text: "hello" })).toEqual({
      ok: false,
      error: { code: "invalid_input", message: NO_MODEL_MESSAGE },
    });
  });
});

describe("transient failures of the reply (retry.*, §9.7 auto_retry_*)", () => {
  const unavailable = {
    type: "error" as const,
    status: 503,
    body: { error: { message: "Service Unavailable" } },
    match: isChat,
  };

  it("a 503 and a 429 with a retry-after hint are retried; only the reply that came is appended", async () => {
    const sessionId = await importSession(smallSession);
    fake.enqueue(
      unavailable,
      { ...unavailable, status: 429, body: { error: { message: "Slow down" } }, headers: { "retry-after-ms": "150" } },
      { type: "reply", text: "Here at last.", match: isChat },
    );
    const result = await h.call("chat:send", { sessionId, text: "Hello?" });
    expect(result).toMatchObject({ stopReason: "stop", appendedEntryIds: [result.userEntryId, result.assistantEntryId] });
    expect(messageOf(sessionId, result.assistantEntryId)).toMatchObject({
      content: [{ type: "text", text: "Here at last." }],
      stopReason: "stop",
    });
    expect(chatRequests()).toHaveLength(3);
    expect(payloads("chat:retry-started")).toEqual([
      { sessionId, attempt: 1, maxAttempts: 3, delayMs: 1, errorMessage: "503 Service Unavailable" },
      { sessionId, attempt: 2, maxAttempts: 3, delayMs: 150, errorMessage: "429 Slow down (retry-after-ms=150)" },
    ]);
    expect(payloads("chat:retry-ended")).toEqual([{ sessionId, success: true, attempt: 2 }]);
    expect(entries(sessionId)).toHaveLength(4);
  });

  it("after retry.maxRetries the last failure is appended as the error reply; with retries off, at once", async () => {
    await set("retry.maxRetries", 2);
    const sessionId = await importSession(smallSession);
    fake.enqueue(unavailable, unavailable, unavailable);
    const failed = await h.call("chat:send", { sessionId, text: "One" });
    expect(failed).toMatchObject({ stopReason: "error", errorMessage: "503 Service Unavailable" });
    expect(chatRequests()).toHaveLength(3);
    expect(payloads("chat:retry-ended")).toEqual([
      { sessionId, success: false, attempt: 2, finalError: "503 Service Unavailable" },
    ]);

    await set("retry.enabled", false);
    fake.enqueue(unavailable);
    const again = await h.call("chat:send", { sessionId, text: "Two" });
    expect(again).toMatchObject({ stopReason: "error" });
    expect(chatRequests()).toHaveLength(4);
  });

  it("chat:abort while waiting to retry: nothing is appended", async () => {
    await set("retry.baseDelayMs", 10_000);
    const sessionId = await importSession(smallSession);
    const before = entries(sessionId).length;
    fake.enqueue(unavailable);
    const running = h.api.call("chat:send", { sessionId, text: "Hello?" });
    await until(() => payloads("chat:retry-started").length === 1, "the retry");
    await h.call("chat:abort", { sessionId });
    expect(await running).toMatchObject({ ok: false, error: { code: "cancelled", message: CHAT_CANCELLED } });
    expect(entries(sessionId)).toHaveLength(before);
    expect(chatRequests()).toHaveLength(1);
  });
});

describe("automatic compaction after a turn", () => {
  it("past the threshold: compacts, auto-continues once with a synthetic prompt, no second attempt", async () => {
    const sessionId = await importSession(longSession);
    fake.enqueue(
      {
        type: "reply",
        text: "Done with step one.",
        usage: { prompt_tokens: 190_000, completion_tokens: 1000 },
        match: isChat,
      },
      {
        type: "reply",
        text: "Nothing left to do.",
        usage: { prompt_tokens: 6000, completion_tokens: 20 },
        match: isChat,
      },
    );
    const result = await h.call("chat:send", { sessionId, text: "Next step" });

    expect(payloads("compaction:auto-started")).toEqual([{ sessionId, reason: "threshold" }]);
    const [end] = payloads("compaction:auto-ended");
    expect(end).toMatchObject({ reason: "threshold", aborted: false, willRetry: false });
    expect(result.autoCompaction).toEqual({ reason: "threshold", entryId: end?.entryId, aborted: false });
    const [user, firstReply, compaction, prompt, secondReply] = result.appendedEntryIds;
    expect(result.appendedEntryIds).toHaveLength(5);
    expect(compaction).toBe(end?.entryId);
    expect(byId(sessionId, compaction as string)).toMatchObject({ type: "compaction", parentId: firstReply });
    expect(messageOf(sessionId, prompt as string)).toMatchObject({
      role: "user",
      content: [{ type: "text", text: AUTO_CONTINUE_PROMPT }],
      synthetic: true,
    });
    expect(byId(sessionId, prompt as string).parentId).toBe(compaction);
    expect(result).toMatchObject({ userEntryId: user, assistantEntryId: secondReply, stopReason: "stop" });

    const requests = chatRequests();
    expect(requests).toHaveLength(2);
    const resent = messagesOf(requests[1]);
    expect(String(resent[0]?.content)).toContain("<summary>");
    expect(resent.at(-1)).toEqual({ role: "user", content: AUTO_CONTINUE_PROMPT });
    const view = await h.call("context:get", { sessionId });
    expect(view).toMatchObject({ leafId: secondReply, compactionId: compaction });

    // D12: the next prompt's check does not compact again.
    fake.enqueue({
      type: "reply",
      text: "Fine.",
      usage: { prompt_tokens: 6500, completion_tokens: 5 },
      match: isChat,
    });
    const next = await h.call("chat:send", { sessionId, text: "Thanks" });
    expect(next.autoCompaction).toBeUndefined();
    expect(payloads("compaction:auto-started")).toHaveLength(1);
  });

  for (const [name, bad] of [
    ["no summary text", { tokensBefore: 10 }],
    ["a summary that is not text", { summary: 42, tokensBefore: 10 }],
  ] as const) {
    it(`D11: a hook compaction with ${name} is reported, and the default compaction is saved instead`, async () => {
      await set("compaction.autoContinue", false);
      const sessionId = await importSession(longSession);
      h.api.ctx.hooks.register("bad", "session_before_compact", ({ preparation }) => ({
        compaction: { ...bad, firstKeptEntryId: preparation.firstKeptEntryId } as never,
      }));
      fake.enqueue({
        type: "reply",
        text: "Big.",
        usage: { prompt_tokens: 190_000, completion_tokens: 10 },
        match: isChat,
      });
      const result = await h.call("chat:send", { sessionId, text: "Next" });
      const entryId = result.autoCompaction?.entryId as string;
      const saved = byId(sessionId, entryId) as unknown as Record<string, unknown>;
      expect(saved).toMatchObject({ type: "compaction", summary: expect.stringContaining("## Goal") });
      expect(typeof saved.tokensBefore).toBe("number");
      expect(saved).not.toHaveProperty("fromExtension");
      expect(h.api.ctx.hooks.errors.map((error) => error.message)).toEqual([
        "A hook's compaction has no summary text; ignored",
      ]);
    });
  }

  it("with autoContinue off: compacts and stops", async () => {
    await set("compaction.autoContinue", false);
    const sessionId = await importSession(longSession);
    fake.enqueue({
      type: "reply",
      text: "Big.",
      usage: { prompt_tokens: 190_000, completion_tokens: 10 },
      match: isChat,
    });
    const result = await h.call("chat:send", { sessionId, text: "Next" });
    expect(result.appendedEntryIds).toHaveLength(3);
    expect(chatRequests()).toHaveLength(1);
    expect((await h.call("context:get", { sessionId })).leafId).toBe(result.autoCompaction?.entryId);
  });

  it("on a context-overflow error: the failed reply leaves the path, compaction, one retry of the turn", async () => {
    const sessionId = await importSession(longSession);
    fake.enqueue(
      { type: "error", status: 400, body: { error: { message: OVERFLOW_ERRORS.openai } }, match: isChat },
      {
        type: "reply",
        text: "Answer after recovery.",
        usage: { prompt_tokens: 7000, completion_tokens: 9 },
        match: isChat,
      },
    );
    const result = await h.call("chat:send", { sessionId, text: "Summarize the parser work" });

    const [user, failedReply, compaction, retried] = result.appendedEntryIds;
    expect(result.appendedEntryIds).toHaveLength(4);
    expect(messageOf(sessionId, failedReply as string)).toMatchObject({
      stopReason: "error",
      errorMessage: `400 ${OVERFLOW_ERRORS.openai}`,
    });
    expect(payloads("compaction:auto-ended")).toEqual([
      expect.objectContaining({ reason: "overflow", entryId: compaction, willRetry: true, aborted: false }),
    ]);
    expect(byId(sessionId, compaction as string).parentId).toBe(user);
    expect(byId(sessionId, retried as string).parentId).toBe(compaction);
    expect(result).toMatchObject({
      assistantEntryId: retried,
      stopReason: "stop",
      autoCompaction: { reason: "overflow", entryId: compaction },
    });
    const view = await h.call("context:get", { sessionId });
    expect(view.leafId).toBe(retried);
    expect(view.messageEntryIds).not.toContain(failedReply);
    expect(view.messageEntryIds).toContain(user);

    const requests = chatRequests();
    expect(requests).toHaveLength(2);
    const resent = messagesOf(requests[1]);
    expect(String(resent[0]?.content)).toContain("<summary>");
    expect(resent.at(-1)).toEqual({ role: "user", content: "Summarize the parser work" });
  });

  it("retries the turn only once when the retry overflows too", async () => {
    const sessionId = await importSession(longSession);
    const overflow = {
      type: "error",
      status: 400,
      body: { error: { message: OVERFLOW_ERRORS.anthropic } },
      match: isChat,
    } as const;
    fake.enqueue(overflow, overflow, overflow);
    const result = await h.call("chat:send", { sessionId, text: "Go" });
    expect(chatRequests()).toHaveLength(2);
    expect(result).toMatchObject({ stopReason: "error", errorMessage: `400 ${OVERFLOW_ERRORS.anthropic}` });
  });

  it("a non-retryable failure on every candidate model gives the exact failure messages", async () => {
    await set("fallbackModels", [
      {
        baseUrl: fake.baseUrl,
        id: "fallback-model",
        contextWindow: 100_000,
        apiKeyEnv: "FAKE_KEY",
        stream: false,
      },
    ]);
    const notLoaded = {
      type: "error",
      status: 400,
      body: { error: { message: "model not loaded" } },
      match: isSummary,
    } as const;
    const failure = /^(Turn prefix summarization|Summarization|Short summary) failed: 400 model not loaded$/;
    fake.enqueue(...Array.from({ length: 12 }, () => notLoaded));

    const sessionId = await importSession(longSession);
    fake.enqueue({
      type: "reply",
      text: "Big.",
      usage: { prompt_tokens: 190_000, completion_tokens: 10 },
      match: isChat,
    });
    const threshold = await h.call("chat:send", { sessionId, text: "Next" });
    const thresholdText = threshold.autoCompaction?.errorMessage ?? "";
    expect(thresholdText.startsWith("Auto-compaction failed: ")).toBe(true);
    expect(thresholdText.slice("Auto-compaction failed: ".length)).toMatch(failure);
    expect(threshold.appendedEntryIds).toHaveLength(2);
    const summaryModels = fake.requests
      .filter((r) => isSummary(r.body as Record<string, unknown>))
      .map((r) => (r.body as { model: string }).model);
    expect(new Set(summaryModels)).toEqual(new Set(["fake-model", "fallback-model"]));

    const overflowSession = await importSession(longSession, "overflow");
    fake.enqueue({
      type: "error",
      status: 400,
      body: { error: { message: OVERFLOW_ERRORS.llamaCpp } },
      match: isChat,
    });
    const overflow = await h.call("chat:send", { sessionId: overflowSession, text: "Next" });
    const overflowText = overflow.autoCompaction?.errorMessage ?? "";
    expect(overflowText.startsWith("Context overflow recovery failed: ")).toBe(true);
    expect(overflowText.slice("Context overflow recovery failed: ".length)).toMatch(failure);
    for (const id of [sessionId, overflowSession])
      expect(entries(id).some((e) => e.type === "compaction")).toBe(false);
    // No retry and no auto-continue after a failed compaction.
    expect(chatRequests()).toHaveLength(2);
  });
});

describe("cancelling", () => {
  for (const stream of [true, false]) {
    it(`a running reply (${stream ? "mid-stream" : "before the headers"}): nothing is appended, the connection closes`, async () => {
      await set("model.stream", stream);
      const sessionId = await importSession(smallSession);
      const before = entries(sessionId).map((e) => e.id);
      const viewBefore = (await h.call("context:get", { sessionId })).leafId;
      fake.enqueue(
        stream
          ? { type: "reply", chunks: ["Partial", " never", " sent"], chunkDelayMs: 10_000, match: isChat }
          : { type: "reply", text: "never sent", headersDelayMs: 10_000, match: isChat },
      );
      const running = h.api.call("chat:send", { sessionId, text: "Start" });
      await until(() => chatRequests().length === 1, "the chat request");
      if (stream) await until(() => payloads("chat:progressed").length > 0, "the first chunk");
      expect(await h.call("chat:abort", { sessionId })).toEqual({ aborted: true });
      expect(await running).toEqual({ ok: false, error: { code: "cancelled", message: CHAT_CANCELLED } });
      await until(() => chatRequests()[0]?.clientClosed === true, "the client to close the connection");
      expect(entries(sessionId).map((e) => e.id)).toEqual(before);
      expect((await h.call("context:get", { sessionId })).leafId).toBe(viewBefore);
      expect(await h.call("chat:abort", { sessionId })).toEqual({ aborted: false });
      fake.enqueue({ type: "reply", text: "Back.", match: isChat });
      expect((await h.call("chat:send", { sessionId, text: "Again" })).stopReason).toBe("stop");
    });
  }

  for (const channel of ["chat:abort", "compaction:abort"] as const) {
    it(`the automatic compaction (${channel}): the turn stays, nothing else is appended`, async () => {
      const sessionId = await importSession(longSession);
      fake.enqueue(
        {
          type: "reply",
          text: "Big.",
          usage: { prompt_tokens: 190_000, completion_tokens: 10 },
          match: isChat,
        },
        ...Array.from({ length: 3 }, () => ({
          type: "reply" as const,
          text: "slow",
          headersDelayMs: 10_000,
          match: isSummary,
        })),
      );
      const running = h.api.call("chat:send", { sessionId, text: "Next" });
      await until(
        () => fake.requests.some((r) => isSummary(r.body as Record<string, unknown>)),
        "a summary request",
      );
      expect(await h.call(channel, { sessionId })).toEqual({ aborted: true });
      const result = await running;
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.value).toMatchObject({
        autoCompaction: { reason: "threshold", entryId: null, aborted: true },
        cancelled: channel === "chat:abort",
      });
      expect(result.value.appendedEntryIds).toEqual([
        result.value.userEntryId,
        result.value.assistantEntryId,
      ]);
      expect(entries(sessionId).some((e) => e.type === "compaction")).toBe(false);
      expect((await h.call("context:get", { sessionId })).leafId).toBe(result.value.assistantEntryId);
      expect(chatRequests()).toHaveLength(1);
    });
  }
});
