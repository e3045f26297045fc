// OpenAI-compatible summarizer against the fake server over real HTTP through the real SDK:
// request shape, streaming, error texts with status and retry hints, aborts, connection test.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SummaryRequest } from "../../../core/compaction/types.ts";
import { APIConnectionError } from "openai";
import {
  createOpenAiSummarizer,
  describeError,
  type OpenAiSummarizerConfig,
  STREAM_ENDED_EARLY,
  testConnection,
} from "../../../main/llm/openai-client.ts";
import { isContextOverflow, isOverflowError } from "../../../main/llm/overflow.ts";
import { isRetryableError, parseRetryAfterHint } from "../../../main/llm/retry.ts";
import { type FakeServer, OVERFLOW_ERRORS, replyBodyWithContent, start } from "../../helpers/fake-openai-server.ts";

let server: FakeServer;
beforeEach(async () => {
  server = await start({ models: ["fake-model", "other-model"] });
});
afterEach(async () => {
  await server.close();
});

function request(overrides: Partial<SummaryRequest> = {}): SummaryRequest {
  return {
    purpose: "history",
    systemPrompt: "You are a summarizer.",
    prompt: "<conversation>\n[User]: hello\n</conversation>\n\nSummarize.",
    maxTokens: 13107,
    messages: [],
    ...overrides,
  };
}

/** The JSON body of the n-th recorded request. */
function bodyOf(index: number): Record<string, unknown> {
  return (server.requests[index]?.body ?? {}) as Record<string, unknown>;
}

function summarizer(extra: Partial<OpenAiSummarizerConfig> = {}) {
  return createOpenAiSummarizer({
    baseUrl: server.baseUrl,
    model: "fake-model",
    contextWindow: 128_000,
    ...extra,
  });
}

describe("createOpenAiSummarizer", () => {
  it("sends system prompt, one user message and max_tokens; returns the reply", async () => {
    server.enqueue({ type: "reply", text: "## Goal\nShip it." });
    const backend = summarizer();
    expect(backend.kind).toBe("openai");
    expect(backend.contextWindow).toBe(128_000);
    const result = await backend.summarize(request());
    expect(result).toEqual({ text: "## Goal\nShip it.", stopReason: "stop" });
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe("Bearer not-needed");
    expect(sent?.body).toEqual({
      model: "fake-model",
      messages: [
        { role: "system", content: "You are a summarizer." },
        { role: "user", content: "<conversation>\n[User]: hello\n</conversation>\n\nSummarize." },
      ],
      max_tokens: 13107,
    });
  });

  it.each([
    [401, "sk-refused-key", "env", "401 Unauthorized — check the API key found under MY_KEY"],
    [403, undefined, "safe-storage", "403 Forbidden — no API key found under MY_KEY: store one in Settings, or set that environment variable before starting Canopy"],
    [401, undefined, "env", "401 Unauthorized — no API key found: set the environment variable MY_KEY before starting Canopy"],
  ] as const)("a %i with key %s (%s keys) says where the key is looked up", async (status, apiKey, keyStore, expected) => {
    server.enqueue({ type: "error", status, body: status === 401 ? "Unauthorized" : "Forbidden" });
    const result = await summarizer({ apiKey, keyName: "MY_KEY", keyStore }).summarize(request());
    expect(result).toEqual({ text: "", stopReason: "error", errorMessage: expected });
  });

  it("sends the configured API key", async () => {
    await summarizer({ apiKey: "sk-test" }).summarize(request());
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("sends reasoning_effort only when the model supports it and the request asks", async () => {
    await summarizer().summarize(request({ reasoning: "high" }));
    await summarizer({ reasoning: true }).summarize(request());
    await summarizer({ reasoning: true }).summarize(request({ reasoning: "high" }));
    const bodies = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => b.reasoning_effort)).toEqual([undefined, undefined, "high"]);
  });

  it("can send max_completion_tokens instead", async () => {
    const backend = createOpenAiSummarizer({
      baseUrl: server.baseUrl,
      model: "o-model",
      contextWindow: 200_000,
      maxTokensField: "max_completion_tokens",
    });
    await backend.summarize(request({ maxTokens: 512 }));
    const body = bodyOf(0);
    expect(body.max_completion_tokens).toBe(512);
    expect(body.max_tokens).toBeUndefined();
  });

  it("streams: onText receives the growing text, the result is the whole text", async () => {
    server.enqueue({ type: "reply", chunks: ["## Goal", "\nShip", " it", "."], chunkDelayMs: 5 });
    const seen: string[] = [];
    const result = await summarizer({ stream: true }).summarize(
      request({ onText: (text) => seen.push(text) }),
    );
    expect(result).toEqual({ text: "## Goal\nShip it.", stopReason: "stop" });
    expect(seen).toEqual(["## Goal", "## Goal\nShip", "## Goal\nShip it", "## Goal\nShip it."]);
    expect(bodyOf(0).stream).toBe(true);
  });

  it.each([false, true])("maps finish_reason length to stopReason length (stream %s)", async (stream) => {
    server.enqueue({ type: "reply", text: "cut sho", finishReason: "length" });
    expect(await summarizer({ stream }).summarize(request())).toEqual({
      text: "cut sho",
      stopReason: "length",
    });
  });

  it("reports an empty reply as an error", async () => {
    server.enqueue({ type: "reply", text: "" });
    const result = await summarizer().summarize(request());
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/empty reply/);
  });

  it.each([false, true])("maps a malformed body to an error (stream %s)", async (stream) => {
    server.enqueue({ type: "malformed" });
    const result = await summarizer({ stream }).summarize(request());
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^Invalid response from the model endpoint/);
  });

  it.each([false, true])(
    "a reply whose content is not text is an invalid response, never a summary (stream %s)",
    async (stream) => {
      const content = { type: "text", text: "an object where the text should be" };
      server.enqueue({ type: "malformed", body: replyBodyWithContent(stream, content) });
      const result = await summarizer({ stream }).summarize(request());
      expect(result).toMatchObject({ text: "", stopReason: "error" });
      expect(result.errorMessage).toMatch(
        /^Invalid response from the model endpoint: the reply's content is an object, not text/,
      );
    },
  );

  it("maps a dropped stream to a retryable connection error", async () => {
    server.enqueue({ type: "reply", chunks: ["a", "b", "c"], dropAfterChunks: 2 });
    const seen: string[] = [];
    const result = await summarizer({ stream: true }).summarize(request({ onText: (t) => seen.push(t) }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^Connection error/);
    expect(isRetryableError(result.errorMessage ?? "")).toBe(true);
  });

  // A summary cut off part-way must never be saved as a compaction's summary.
  it.each([0, 30])("a stream the server ends cleanly part-way (delay %i ms) is a retryable connection error", async (delay) => {
    server.enqueue({ type: "reply", chunks: ["## Goal", "\nFix", " the parser."], endAfterChunks: 2, chunkDelayMs: delay });
    const result = await summarizer({ stream: true }).summarize(request());
    expect(result).toEqual({ text: "", stopReason: "error", errorMessage: STREAM_ENDED_EARLY });
    expect(isRetryableError(result.errorMessage ?? "")).toBe(true);
  });

  it("a connection lost part-way after a delay is a retryable connection error", async () => {
    server.enqueue({ type: "reply", chunks: ["## Goal", "\nFix", " the parser."], dropAfterChunks: 2, chunkDelayMs: 30 });
    const result = await summarizer({ stream: true }).summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Connection error: the connection closed before the response was complete (other side closed)",
    });
    expect(isRetryableError(result.errorMessage ?? "")).toBe(true);
  });

  it("a stream whose finish_reason and usage come in separate chunks, with or without [DONE], is a finished summary", async () => {
    server.enqueue({ type: "reply", chunks: ["## Goal", "\nShip."] }, { type: "reply", chunks: ["## Goal", "\nShip."], omitDone: true });
    expect(await summarizer({ stream: true }).summarize(request())).toEqual({ text: "## Goal\nShip.", stopReason: "stop" });
    expect(await summarizer({ stream: true }).summarize(request())).toEqual({ text: "## Goal\nShip.", stopReason: "stop" });
  });
});

describe("error texts", () => {
  it("400 overflow keeps the status and the server's text, and is detected as overflow", async () => {
    server.enqueue({
      type: "error",
      status: 400,
      body: { error: { message: OVERFLOW_ERRORS.anthropic, type: "invalid_request_error" } },
    });
    const result = await summarizer().summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "400 prompt is too long: 213462 tokens > 200000 maximum",
    });
    expect(isContextOverflow(result)).toBe(true);
  });

  it.each([
    ["openai", { error: { message: OVERFLOW_ERRORS.openai, code: "context_length_exceeded" } }],
    [
      "llama.cpp",
      { error: { code: 400, message: OVERFLOW_ERRORS.llamaCpp, type: "exceed_context_size_error" } },
    ],
    ["ollama string error", { error: OVERFLOW_ERRORS.anthropic }],
    [
      "vLLM flat error",
      { object: "error", message: OVERFLOW_ERRORS.openai, type: "BadRequestError", code: 400 },
    ],
  ])("overflow from %s bodies is detected", async (_name, body) => {
    server.enqueue({ type: "error", status: 400, body });
    const result = await summarizer({ stream: true }).summarize(request());
    expect(result.errorMessage).toMatch(/^400 /);
    expect(result.errorMessage).not.toMatch(/^400 "/);
    expect(isOverflowError(result.errorMessage)).toBe(true);
  });

  it("413 without a body is the (no body) overflow form", async () => {
    server.enqueue({ type: "error", status: 413, body: "" });
    const result = await summarizer().summarize(request());
    expect(result.errorMessage).toBe("413 status code (no body)");
    expect(isContextOverflow(result)).toBe(true);
  });

  it("429 carries the retry hints from the response headers", async () => {
    server.enqueue({
      type: "error",
      status: 429,
      body: { error: { message: "Rate limit reached for requests", type: "requests" } },
      headers: { "retry-after": "3", "retry-after-ms": "2500", "x-ratelimit-reset-ms": "4000" },
    });
    const result = await summarizer().summarize(request());
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "429 Rate limit reached for requests (retry-after-ms=2500, retry-after=3, x-ratelimit-reset-ms=4000)",
    );
    expect(parseRetryAfterHint(result.errorMessage ?? "", Date.now())).toBe(2500);
    expect(isRetryableError(result.errorMessage ?? "")).toBe(true);
    expect(isContextOverflow(result)).toBe(false);
  });

  it("500 with a plain-text body is retryable and not an overflow", async () => {
    server.enqueue({ type: "error", status: 500, body: "upstream exploded" });
    const result = await summarizer({ stream: true }).summarize(request());
    expect(result.errorMessage).toBe("500 upstream exploded");
    expect(isRetryableError(result.errorMessage ?? "")).toBe(true);
    expect(isContextOverflow(result)).toBe(false);
  });

  it("a refused connection is a connection error", async () => {
    const url = server.baseUrl;
    await server.close();
    const backend = createOpenAiSummarizer({ baseUrl: url, model: "m", contextWindow: 1000 });
    const result = await backend.summarize(request());
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^Connection error: fetch failed/);
    const port = new URL(url).port;
    expect(result.errorMessage).toContain(
      `(nothing answers at 127.0.0.1:${port}: is the model server running, on that port?)`,
    );
    server = await start();
  });

  it("a host name that does not resolve says to check the base URL", () => {
    const lookup = new Error("getaddrinfo ENOTFOUND llm.example.invalid");
    const error = new APIConnectionError({ cause: Object.assign(new TypeError("fetch failed"), { cause: lookup }) });
    expect(describeError(error)).toBe(
      "Connection error: fetch failed: getaddrinfo ENOTFOUND llm.example.invalid (no host named llm.example.invalid: check the base URL in the settings)",
    );
  });

  it("a timeout is reported with its duration", async () => {
    server.enqueue({ type: "reply", text: "late", headersDelayMs: 2000 });
    const backend = createOpenAiSummarizer({
      baseUrl: server.baseUrl,
      model: "m",
      contextWindow: 1,
      timeoutMs: 100,
    });
    const result = await backend.summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Request timed out: the model sent nothing for 0.1 s (setting model.timeoutSeconds)",
    });
  });

  // The SDK's timeout does not reach a stream's chunks: a server that sent the headers and then
  // nothing was waited on until Cancel (the job said "Summarizing…" for ever).
  it("a stream that sends its headers and then no token times out, saying so", async () => {
    server.enqueue({ type: "reply", chunks: ["never"], stallAfterChunks: 0 });
    const started = Date.now();
    const result = await summarizer({ stream: true, timeoutMs: 300 }).summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Request timed out: the model sent nothing for 0.3 s (setting model.timeoutSeconds)",
    });
    expect(Date.now() - started).toBeLessThan(5000);
    await vi.waitFor(() => expect(server.requests[0]?.clientClosed).toBe(true));
  });

  it("a reply not streamed whose body never comes after the headers times out", async () => {
    server.enqueue({ type: "reply", text: "never", stallAfterChunks: 0 });
    const result = await summarizer({ stream: false, timeoutMs: 300 }).summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Request timed out: the model sent nothing for 0.3 s (setting model.timeoutSeconds)",
    });
  });

  it("a stream that stalls part-way times out once nothing more comes for that long", async () => {
    server.enqueue({ type: "reply", chunks: ["one ", "two ", "three"], chunkDelayMs: 150, stallAfterChunks: 2 });
    const seen: string[] = [];
    const result = await summarizer({ stream: true, timeoutMs: 400 }).summarize(
      request({ onText: (text) => seen.push(text) }),
    );
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage:
        "Request timed out: the model's reply stalled, nothing more came for 0.4 s (setting model.timeoutSeconds)",
    });
    // Chunks 150 ms apart never reach the 400 ms limit: only the silence after them does.
    expect(seen.at(-1)).toBe("one two ");
  });
});

describe("abort", () => {
  it("aborting a slow response resolves aborted quickly; the server saw the request", async () => {
    server.enqueue({ type: "reply", text: "too late", headersDelayMs: 10_000 });
    const controller = new AbortController();
    const started = Date.now();
    const pending = summarizer().summarize(request({ signal: controller.signal }));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    expect(await pending).toEqual({ text: "", stopReason: "aborted" });
    expect(Date.now() - started).toBeLessThan(2000);
    await vi.waitFor(() => expect(server.requests[0]?.clientClosed).toBe(true));
  });

  it("aborting mid-stream resolves aborted after partial text", async () => {
    server.enqueue({ type: "reply", chunks: ["one ", "two ", "three ", "four"], chunkDelayMs: 200 });
    const controller = new AbortController();
    const seen: string[] = [];
    const result = await summarizer({ stream: true }).summarize(
      request({
        signal: controller.signal,
        onText: (text) => {
          seen.push(text);
          controller.abort();
        },
      }),
    );
    expect(result).toEqual({ text: "", stopReason: "aborted" });
    expect(seen).toEqual(["one "]);
  });

  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await summarizer().summarize(request({ signal: controller.signal }))).toEqual({
      text: "",
      stopReason: "aborted",
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe("testConnection", () => {
  const config = () => ({ baseUrl: server.baseUrl, model: "fake-model", contextWindow: 1000 });

  it("ok when the model list names the model", async () => {
    const result = await testConnection(config());
    expect(result).toMatchObject({ ok: true, model: "fake-model" });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/models"]);
  });

  it("falls back to a 1-token completion when the list lacks the model or is missing", async () => {
    server.enqueue(
      { type: "models", ids: ["llama"] },
      { type: "error", route: "models", status: 404, body: "" },
    );
    expect((await testConnection(config())).ok).toBe(true);
    expect((await testConnection(config())).ok).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual([
      "/v1/models",
      "/v1/chat/completions",
      "/v1/models",
      "/v1/chat/completions",
    ]);
    expect(bodyOf(1).max_tokens).toBe(1);
  });

  it("masks the API key when the endpoint's error echoes it", async () => {
    const key = "sk-live-echoed-abcdef123456";
    server.enqueue({
      type: "error",
      route: "models",
      status: 401,
      body: { error: { message: `Invalid key ${key} (key ${key} revoked)` } },
    });
    expect(await testConnection({ ...config(), apiKey: key })).toEqual({
      ok: false,
      message: "401 Invalid key [API key] (key [API key] revoked)",
    });
    server.enqueue({ type: "error", status: 403, body: `forbidden for ${key}` });
    const summary = await summarizer({ apiKey: key, stream: false }).summarize(request());
    expect(summary).toEqual({ text: "", stopReason: "error", errorMessage: "403 forbidden for [API key]" });
  });

  it("reports authentication failures and unknown models with the server's text", async () => {
    server.enqueue({
      type: "error",
      route: "models",
      status: 401,
      body: { error: { message: "Incorrect API key" } },
    });
    expect(await testConnection(config())).toEqual({ ok: false, message: "401 Incorrect API key" });
    server.enqueue(
      { type: "models", ids: ["llama"] },
      { type: "error", status: 404, body: { error: { message: "model 'fake-model' not found" } } },
    );
    expect(await testConnection(config())).toEqual({
      ok: false,
      message: "404 model 'fake-model' not found (the endpoint lists: llama)",
    });
  });

  // Bounded by the SDK's own timeout already (a stream is not): kept so that it stays so.
  it("a completion whose body never comes after the headers times out", async () => {
    server.enqueue({ type: "models", ids: ["llama"] }, { type: "reply", text: "x", stallAfterChunks: 0 });
    expect(await testConnection({ ...config(), timeoutMs: 300 })).toEqual({
      ok: false,
      message: "Request timed out after 300 ms (the endpoint lists: llama)",
    });
  });

  it("reports an unreachable endpoint", async () => {
    const url = server.baseUrl;
    await server.close();
    const result = await testConnection({ baseUrl: url, model: "m", contextWindow: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^Connection error/);
    server = await start();
  });
});
