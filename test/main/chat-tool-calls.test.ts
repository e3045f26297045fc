// A reply that comes with tool calls (Canopy offers none, an OpenAI-compatible endpoint may
// still send them), through the real openai SDK against a real server on 127.0.0.1 that refuses
// unanswered tool calls as h.api.openai.com does: the calls are kept as the agents' toolCall
// blocks, the result names them as not run, and the next turn's request stays valid.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MessageEntry } from "../../core/session/entries.ts";
import { ABORTED_TOOL_TEXT, NO_RESULT_TEXT } from "../../core/session/request-messages.ts";
import { loadSessionEntries } from "../../main/library/load.ts";
import type { FakeServer, RecordedRequest } from "../helpers/fake-openai-server.ts";
import { type ChainStep, writeChainSession } from "./auto/session-builder.ts";
import { closeServedHarness, type Harness, startServedHarness } from "./pipelines/harness.ts";

let fake: FakeServer;
let h: Harness;

const session: ChainStep[] = [
  { role: "user", text: "Fix the parser." },
  { role: "assistant", text: "Which file?", usage: { input: 900, output: 100, totalTokens: 1000 } },
];

const messageOf = (sessionId: string, id: string) =>
  (loadSessionEntries(h.api.ctx.db, sessionId).find((entry) => entry.id === id) as MessageEntry).message;
const messagesOf = (request: RecordedRequest | undefined) =>
  (request?.body as { messages?: Record<string, unknown>[] } | undefined)?.messages ?? [];

const calls = [
  { id: "call_1", name: "read", arguments: '{"path":"src/parse.ts"}' },
  { id: "call_2", name: "bash", arguments: '{"command":"npm test"}' },
];

beforeEach(async () => {
  ({ server: fake, h } = await startServedHarness({
    server: { strictToolMessages: true },
    model: true,
    stream: true,
  }));
  const report = await h.call("library:import", { path: writeChainSession(h.dir, "s", session) });
  sessionId = report.files[0]?.sessionId as string;
});

let sessionId: string;

afterEach(() => closeServedHarness({ server: fake, h }));

describe("a reply with text and tool calls", () => {
  for (const stream of [true, false]) {
    it(`(${stream ? "streamed" : "not streamed"}) keeps the calls as toolCall blocks, says they were not run, and the next request answers them`, async () => {
      await h.call("settings:set", { key: "model.stream", value: stream });
      fake.enqueue({
        type: "reply",
        text: "Let me look at the parser.",
        toolCalls: calls,
        finishReason: "tool_calls",
      });
      const first = await h.call("chat:send", { sessionId, text: "Look at it" });
      expect(first).toMatchObject({ stopReason: "toolUse", toolCallsNotRun: ["read", "bash"] });
      expect(first.errorMessage).toBeUndefined();
      expect(messageOf(sessionId, first.assistantEntryId)).toMatchObject({
        role: "assistant",
        stopReason: "toolUse",
        content: [
          { type: "text", text: "Let me look at the parser." },
          { type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/parse.ts" } },
          { type: "toolCall", id: "call_2", name: "bash", arguments: { command: "npm test" } },
        ],
      });
      // What the model sees at the new leaf shows the calls, as the agents would.
      const view = await h.call("context:get", { sessionId });
      expect(view.messages.at(-1)).toMatchObject({
        role: "assistant",
        content: expect.arrayContaining([expect.objectContaining({ type: "toolCall", name: "bash" })]),
      });

      fake.enqueue({ type: "reply", text: "Understood." });
      const second = await h.call("chat:send", { sessionId, text: "Just tell me" });
      // The server refuses unanswered tool calls with a 400: this reply went through.
      expect(second).toMatchObject({ stopReason: "stop" });
      expect(second.toolCallsNotRun).toBeUndefined();
      expect(messagesOf(fake.requests.at(-1)).slice(-4)).toEqual([
        {
          role: "assistant",
          content: "Let me look at the parser.",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "read", arguments: '{"path":"src/parse.ts"}' },
            },
            {
              id: "call_2",
              type: "function",
              function: { name: "bash", arguments: '{"command":"npm test"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: NO_RESULT_TEXT },
        { role: "tool", tool_call_id: "call_2", content: NO_RESULT_TEXT },
        { role: "user", content: "Just tell me" },
      ]);
    });
  }
});

describe("a reply of tool calls only", () => {
  it("fails naming the tool, keeps the call in the reply, and the next request answers it", async () => {
    fake.enqueue({
      type: "reply",
      text: "",
      toolCalls: [calls[0] as (typeof calls)[0]],
      finishReason: "tool_calls",
    });
    const failed = await h.call("chat:send", { sessionId, text: "Look at it" });
    expect(failed).toMatchObject({
      stopReason: "error",
      errorMessage: "The model asked to run read instead of replying; Canopy runs no tools",
    });
    // Said once, by the error: not again as a notice.
    expect(failed.toolCallsNotRun).toBeUndefined();
    expect(messageOf(sessionId, failed.assistantEntryId)).toMatchObject({
      stopReason: "error",
      content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/parse.ts" } }],
    });
    fake.enqueue({ type: "reply", text: "Sorry, here it is." });
    expect(await h.call("chat:send", { sessionId, text: "Answer in text" })).toMatchObject({
      stopReason: "stop",
    });
    expect(messagesOf(fake.requests.at(-1)).slice(-3)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "read", arguments: '{"path":"src/parse.ts"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: ABORTED_TOOL_TEXT },
      { role: "user", content: "Answer in text" },
    ]);
  });
});

describe("the strict test server", () => {
  it("refuses an assistant message whose tool calls get no tool message, as OpenAI does", async () => {
    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "fake-model",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: "x",
            tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
          },
          { role: "user", content: "next" },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^An assistant message with 'tool_calls' must be followed by tool messages .*: c1$/,
    );
  });
});
