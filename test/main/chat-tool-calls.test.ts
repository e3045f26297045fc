// A reply that comes with tool calls (Canopy offers none, an OpenAI-compatible endpoint may
// still send them), through the real openai SDK against a real server on 127.0.0.1 that refuses
// unanswered tool calls as api.openai.com does: the calls are kept as the agents' toolCall
// blocks, the result names them as not run, and the next turn's request stays valid.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Channel, RequestInput, RequestOutput } from "../../core/api/contract.ts";
import type { MessageEntry } from "../../core/session/entries.ts";
import { ABORTED_TOOL_TEXT, NO_RESULT_TEXT } from "../../core/session/request-messages.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { loadSessionEntries } from "../../main/library/load.ts";
import {
  type FakeServer,
  type RecordedRequest,
  startFakeOpenAiServer,
} from "../helpers/fake-openai-server.ts";
import { type ChainStep, writeChainSession } from "./auto/session-builder.ts";

let fake: FakeServer;
let api: Api;
let dir: string;

async function call<C extends Channel>(channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> {
  const result = await api.call(channel, input);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return result.value;
}

const session: ChainStep[] = [
  { role: "user", text: "Fix the parser." },
  { role: "assistant", text: "Which file?", usage: { input: 900, output: 100, totalTokens: 1000 } },
];

const messageOf = (sessionId: string, id: string) =>
  (loadSessionEntries(api.ctx.db, sessionId).find((entry) => entry.id === id) as MessageEntry).message;
const messagesOf = (request: RecordedRequest | undefined) =>
  (request?.body as { messages?: Record<string, unknown>[] } | undefined)?.messages ?? [];

const calls = [
  { id: "call_1", name: "read", arguments: '{"path":"src/parse.ts"}' },
  { id: "call_2", name: "bash", arguments: '{"command":"npm test"}' },
];

beforeEach(async () => {
  fake = await startFakeOpenAiServer({ strictToolMessages: true });
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-chat-tools-"));
  api = createApi(
    createAppContext({
      dbPath: path.join(dir, "library.db"),
      seedDemo: false,
      loadUserHooks: false,
      env: { FAKE_KEY: "sk-test" },
    }),
  );
  await call("settings:set", {
    key: "model",
    value: {
      baseUrl: fake.baseUrl,
      id: "fake-model",
      contextWindow: 200_000,
      apiKeyEnv: "FAKE_KEY",
      stream: true,
    },
  });
  const report = await call("library:import", { path: writeChainSession(dir, "s", session) });
  sessionId = report.files[0]?.sessionId as string;
});

let sessionId: string;

afterEach(async () => {
  api.ctx.db.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a reply with text and tool calls", () => {
  for (const stream of [true, false]) {
    it(`(${stream ? "streamed" : "not streamed"}) keeps the calls as toolCall blocks, says they were not run, and the next request answers them`, async () => {
      await call("settings:set", { key: "model.stream", value: stream });
      fake.enqueue({
        type: "reply",
        text: "Let me look at the parser.",
        toolCalls: calls,
        finishReason: "tool_calls",
      });
      const first = await call("chat:send", { sessionId, text: "Look at it" });
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
      const view = await call("context:get", { sessionId });
      expect(view.messages.at(-1)).toMatchObject({
        role: "assistant",
        content: expect.arrayContaining([expect.objectContaining({ type: "toolCall", name: "bash" })]),
      });

      fake.enqueue({ type: "reply", text: "Understood." });
      const second = await call("chat:send", { sessionId, text: "Just tell me" });
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
    const failed = await call("chat:send", { sessionId, text: "Look at it" });
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
    expect(await call("chat:send", { sessionId, text: "Answer in text" })).toMatchObject({
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
