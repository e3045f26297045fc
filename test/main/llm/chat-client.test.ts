// The chat turn's completion (completeChat) against the fake server over real HTTP through the
// real SDK: how a reply ends. A stream that stops part-way — closed cleanly without a finish_reason,
// or with the connection lost — is a retryable error that keeps what came; a stream that finishes
// (finish_reason, usage in its own chunk, with or without [DONE]) is the reply it always was.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CUT_OFF_NOTE, completeChat } from "../../../main/llm/chat-client.ts";
import { STREAM_ENDED_EARLY } from "../../../main/llm/openai-client.ts";
import { isRetryableError } from "../../../main/llm/retry.ts";
import { type FakeServer, replyBodyWithContent, start } from "../../helpers/fake-openai-server.ts";

let server: FakeServer;
beforeEach(async () => {
  server = await start();
});
afterEach(async () => {
  await server.close();
});

const LOST = "Connection error: the connection closed before the response was complete (other side closed)";

function chat(stream: boolean, seen: string[] = []) {
  return completeChat(
    { baseUrl: server.baseUrl, model: "fake-model", contextWindow: 128_000, stream },
    [{ role: "user", content: "Explain the parser." }],
    new AbortController().signal,
    (text) => seen.push(text),
  );
}

const chunks = ["The parser ", "reads both ", "dialects and ", "keeps raw lines."];

describe("a model that goes silent", () => {
  it("headers and then no token: the request times out, saying so (it waited until Cancel)", async () => {
    server.enqueue({ type: "reply", chunks, stallAfterChunks: 0 });
    const reply = await completeChat(
      { baseUrl: server.baseUrl, model: "fake-model", contextWindow: 128_000, stream: true, timeoutMs: 300 },
      [{ role: "user", content: "Explain the parser." }],
      new AbortController().signal,
    );
    expect(reply).toMatchObject({
      text: "",
      stopReason: "error",
      errorMessage: "Request timed out: the model sent nothing for 0.3 s (setting model.timeoutSeconds)",
    });
  });

  it("a reply that stalls part-way keeps what it wrote and says it timed out", async () => {
    server.enqueue({ type: "reply", chunks, stallAfterChunks: 2 });
    const reply = await completeChat(
      { baseUrl: server.baseUrl, model: "fake-model", contextWindow: 128_000, stream: true, timeoutMs: 300 },
      [{ role: "user", content: "Explain the parser." }],
      new AbortController().signal,
    );
    expect(reply).toMatchObject({
      text: "The parser reads both ",
      stopReason: "error",
      errorMessage: `Request timed out: the model's reply stalled, nothing more came for 0.3 s (setting model.timeoutSeconds)${CUT_OFF_NOTE}`,
    });
  });
});

describe("a streamed reply that stops part-way", () => {
  it.each([0, 30])(
    "closed cleanly after 2 chunks (delay %i ms): an error keeping the text, saying it was cut off",
    async (delay) => {
      server.enqueue({ type: "reply", chunks, endAfterChunks: 2, chunkDelayMs: delay });
      const seen: string[] = [];
      const reply = await chat(true, seen);
      expect(reply).toMatchObject({
        text: "The parser reads both ",
        stopReason: "error",
        errorMessage: `${STREAM_ENDED_EARLY}${CUT_OFF_NOTE}`,
      });
      expect(reply.errorMessage).toBe(
        "Connection error: the endpoint ended the stream without a finish_reason — the reply was cut off; what it wrote so far is kept",
      );
      expect(isRetryableError(reply.errorMessage ?? "")).toBe(true);
      expect(seen.at(-1)).toBe("The parser reads both ");
      expect(reply.ttft).toBeTypeOf("number");
    },
  );

  it("closed before any text: an error with nothing to keep", async () => {
    server.enqueue({ type: "reply", chunks, endAfterChunks: 0 });
    const reply = await chat(true);
    expect(reply).toMatchObject({
      text: "",
      thinking: "",
      toolCalls: [],
      stopReason: "error",
      errorMessage: STREAM_ENDED_EARLY,
    });
  });

  it("reasoning only, then closed: the reasoning is kept", async () => {
    server.enqueue({ type: "reply", chunks, reasoning: "Look at the codec first.", endAfterChunks: 0 });
    const reply = await chat(true);
    expect(reply).toMatchObject({
      text: "",
      thinking: "Look at the codec first.",
      stopReason: "error",
      errorMessage: `${STREAM_ENDED_EARLY}${CUT_OFF_NOTE}`,
    });
  });

  it("connection lost after a delay: a retryable connection error keeping the text", async () => {
    server.enqueue({ type: "reply", chunks, dropAfterChunks: 3, chunkDelayMs: 30 });
    const reply = await chat(true);
    // The chunk written just before the socket is destroyed may be lost with it.
    expect(reply.text).toMatch(/^The parser reads both (dialects and )?$/);
    expect(reply).toMatchObject({ stopReason: "error", errorMessage: `${LOST}${CUT_OFF_NOTE}` });
    expect(isRetryableError(reply.errorMessage ?? "")).toBe(true);
  });

  it("connection lost with no delay (before the SDK hands over the stream): a retryable connection error", async () => {
    server.enqueue({ type: "reply", chunks, dropAfterChunks: 2 });
    const reply = await chat(true);
    expect(reply).toMatchObject({ text: "", stopReason: "error" });
    expect(reply.errorMessage).toMatch(/^Connection error/);
    expect(reply.errorMessage).not.toContain(CUT_OFF_NOTE);
    expect(isRetryableError(reply.errorMessage ?? "")).toBe(true);
  });

  it("[DONE] without any finish_reason is not a finished reply either", async () => {
    server.enqueue({ type: "reply", chunks, finishReason: null });
    const reply = await chat(true);
    expect(reply).toMatchObject({
      text: chunks.join(""),
      stopReason: "error",
      errorMessage: `${STREAM_ENDED_EARLY}${CUT_OFF_NOTE}`,
    });
  });
});

describe("a streamed reply that finishes", () => {
  it("finish_reason stop, usage in a chunk of its own, then [DONE]: the reply with its usage, unchanged", async () => {
    server.enqueue({ type: "reply", chunks, usage: { prompt_tokens: 120, completion_tokens: 14 } });
    const reply = await chat(true);
    expect(reply).toMatchObject({
      text: chunks.join(""),
      stopReason: "stop",
      usage: { input: 120, output: 14, totalTokens: 134 },
    });
    expect(reply.errorMessage).toBeUndefined();
    const body = server.requests[0]?.body as { stream_options?: unknown };
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it("a server that sends no [DONE] after the finish_reason and usage: still a finished reply", async () => {
    server.enqueue({
      type: "reply",
      chunks,
      usage: { prompt_tokens: 120, completion_tokens: 14 },
      omitDone: true,
    });
    expect(await chat(true)).toMatchObject({
      text: chunks.join(""),
      stopReason: "stop",
      usage: { input: 120, output: 14 },
    });
  });

  it("a server that sends no usage: a finished reply with zero usage", async () => {
    server.enqueue({ type: "reply", chunks, usage: null, finishReason: "length" });
    expect(await chat(true)).toMatchObject({
      text: chunks.join(""),
      stopReason: "length",
      usage: { input: 0, output: 0 },
    });
  });
});

describe("a reply whose content is not a string", () => {
  it.each([false, true])(
    "an object is an error reply, never the text [object Object] (stream %s)",
    async (stream) => {
      server.enqueue({
        type: "malformed",
        body: replyBodyWithContent(stream, { text: "where the text should be" }),
      });
      const reply = await chat(stream);
      expect(reply.stopReason).toBe("error");
      expect(reply.text).toBe("");
      expect(reply.errorMessage).toMatch(
        /^Invalid response from the model endpoint: the reply's content is an object, not text/,
      );
    },
  );

  it.each([false, true])(
    "a list of content parts gives the text of its text parts (stream %s)",
    async (stream) => {
      const parts = [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "The parser " },
        { type: "text", text: "reads both dialects." },
      ];
      server.enqueue({ type: "malformed", body: replyBodyWithContent(stream, parts) });
      expect(await chat(stream)).toMatchObject({
        text: "The parser reads both dialects.",
        stopReason: "stop",
      });
    },
  );
});

describe("usage figures that are not counts", () => {
  it("are read as numbers (a numeric text) or 0, so the reply's usage is all numbers", async () => {
    const body = {
      id: "x",
      object: "chat.completion",
      created: 1,
      model: "fake-model",
      choices: [{ index: 0, message: { role: "assistant", content: "Done." }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: "120",
        completion_tokens: "14",
        total_tokens: null,
        prompt_tokens_details: { cached_tokens: -3 },
      },
    };
    server.enqueue({ type: "malformed", body: JSON.stringify(body) });
    const reply = await chat(false);
    expect(reply.text).toBe("Done.");
    expect(reply.usage).toEqual({
      input: 120,
      output: 14,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 134,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
  });
});

describe("a reply that is not streamed", () => {
  it("a whole JSON body without a finish_reason is kept as it came: the body was not cut", async () => {
    server.enqueue({ type: "reply", text: "The parser reads both dialects.", finishReason: null });
    expect(await chat(false)).toMatchObject({ text: "The parser reads both dialects.", stopReason: "stop" });
  });

  it("a JSON body with no choices is an error", async () => {
    const body = {
      id: "x",
      object: "chat.completion",
      created: 1,
      model: "fake-model",
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 },
    };
    server.enqueue({ type: "malformed", body: JSON.stringify(body) });
    expect(await chat(false)).toMatchObject({
      text: "",
      stopReason: "error",
      errorMessage: "Model returned no choices",
      usage: { input: 9 },
    });
  });
});
