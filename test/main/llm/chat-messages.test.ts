// The LLM view as OpenAI chat messages (SPEC §3.4, §3.6 step 6): roles, tool calls and results,
// images, thinking left out, failed replies of other providers dropped, synthetic tool results;
// and valid chat-completions message lists for every expected leaf of the shared fixtures.
import { describe, expect, it } from "vitest";
import type {
  AssistantMessage,
  LlmMessage,
  ToolResultMessage,
  UserMessage,
} from "../../../core/session/entries.ts";
import { ABORTED_TOOL_TEXT, NO_RESULT_TEXT } from "../../../core/session/request-messages.ts";
import { type OpenAiMessage, TOOL_IMAGES_TEXT, toOpenAiMessages } from "../../../main/llm/chat-messages.ts";
import { readExpectedContexts } from "../../helpers/fixtures.ts";

const target = { provider: "127.0.0.1:1234", api: "openai-completions" };
const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content, timestamp: 1 });
const assistant = (
  content: AssistantMessage["content"],
  extra: Partial<AssistantMessage> = {},
): AssistantMessage => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude",
  stopReason: "stop",
  timestamp: 2,
  ...extra,
});
const result = (
  toolCallId: string,
  content: ToolResultMessage["content"],
  toolName = "bash",
): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName,
  content,
  isError: false,
  timestamp: 3,
});
const call = (id: string, name = "bash", args: Record<string, unknown> = { command: "ls" }) => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: args,
});

describe("toOpenAiMessages", () => {
  it("keeps roles and content, sends tool calls and results, never thinking", () => {
    const messages: LlmMessage[] = [
      user("plain text"),
      user([
        { type: "text", text: "look" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "image", data: "blob:sha256:abc", mimeType: "image/png" },
      ]),
      assistant([
        { type: "thinking", thinking: "private reasoning" },
        { type: "text", text: "Running " },
        { type: "text", text: "it." },
        call("call_1"),
      ]),
      result("call_1", [
        { type: "text", text: "a.ts" },
        { type: "text", text: "b.ts" },
      ]),
      assistant([{ type: "thinking", thinking: "only thinking" }]),
      user([{ type: "text", text: "single block" }]),
    ];
    expect(toOpenAiMessages(messages, target)).toEqual([
      { role: "user", content: "plain text" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "text", text: "[image not available: blob:sha256:abc]" },
        ],
      },
      {
        role: "assistant",
        content: "Running it.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "a.ts\nb.ts" },
      { role: "user", content: "single block" },
    ]);
  });

  it("sends a tool result's images in a user message after the tool messages", () => {
    const out = toOpenAiMessages(
      [
        assistant([call("a"), call("b", "read")]),
        result("a", [{ type: "image", data: "QQ==", mimeType: "image/jpeg" }]),
        result("b", [{ type: "text", text: "content" }], "read"),
      ],
      target,
    );
    expect(out.slice(1)).toEqual([
      { role: "tool", tool_call_id: "a", content: "(see the attached image)" },
      { role: "tool", tool_call_id: "b", content: "content" },
      {
        role: "user",
        content: [
          { type: "text", text: TOOL_IMAGES_TEXT },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,QQ==" } },
        ],
      },
    ]);
  });

  it("inserts a synthetic result for tool calls left unanswered, before the next message and at the end", () => {
    const out = toOpenAiMessages(
      [
        assistant([call("x"), call("y")]),
        result("x", [{ type: "text", text: "ok" }]),
        user("stop that"),
        assistant([call("z")]),
      ],
      target,
    );
    expect(out.map((m) => (m.role === "tool" ? `${m.tool_call_id}:${m.content}` : m.role))).toEqual([
      "assistant",
      "x:ok",
      `y:${NO_RESULT_TEXT}`,
      "user",
      "assistant",
      `z:${NO_RESULT_TEXT}`,
    ]);
  });

  it("drops failed replies of another provider with their results, and empty failed replies of the target", () => {
    const out = toOpenAiMessages(
      [
        user("go"),
        assistant([{ type: "text", text: "partial" }, call("gone")], {
          stopReason: "error",
          errorMessage: "overloaded",
        }),
        result("gone", [{ type: "text", text: "never sent" }]),
        assistant([], { ...target, stopReason: "error", errorMessage: "prompt is too long" }),
        assistant([{ type: "text", text: "half" }, call("cut")], { ...target, stopReason: "aborted" }),
      ],
      target,
    );
    expect(out).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "half",
        tool_calls: [
          { id: "cut", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
        ],
      },
      { role: "tool", tool_call_id: "cut", content: ABORTED_TOOL_TEXT },
    ]);
  });

  it("makes tool-call ids acceptable (characters, ≤ 40) without merging two of them", () => {
    const long = `toolu_${"x".repeat(50)}`;
    const out = toOpenAiMessages(
      [
        assistant([call("fc|abc/1"), call(long), call(`${long}y`)]),
        result("fc|abc/1", [{ type: "text", text: "1" }]),
        result(long, [{ type: "text", text: "2" }]),
        result(`${long}y`, [{ type: "text", text: "3" }]),
      ],
      target,
    );
    const first = out[0];
    const ids = first?.role === "assistant" ? (first.tool_calls ?? []).map((c) => c.id) : [];
    expect(ids[0]).toBe("fc_abc_1");
    expect(ids.every((id) => id.length <= 40 && /^[A-Za-z0-9_-]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    expect(out.slice(1).map((m) => (m.role === "tool" ? m.tool_call_id : ""))).toEqual(ids);
  });

  it("sends a tool result without a known call as user text", () => {
    expect(
      toOpenAiMessages([user("hi"), result("orphan", [{ type: "text", text: "out" }], "grep")], target),
    ).toEqual([
      { role: "user", content: "hi" },
      { role: "user", content: "Result of tool grep:\nout" },
    ]);
  });
});

/** The rules chat-completions endpoints enforce on a message list. */
function protocolErrors(out: OpenAiMessage[]): string[] {
  const errors: string[] = [];
  out.forEach((message, index) => {
    if (message.role === "assistant") {
      const calls = message.tool_calls ?? [];
      if (message.content === null && calls.length === 0) errors.push(`${index}: empty assistant message`);
      const answered: string[] = [];
      for (let next = index + 1; out[next]?.role === "tool"; next++)
        answered.push((out[next] as { tool_call_id: string }).tool_call_id);
      if (JSON.stringify(answered) !== JSON.stringify(calls.map((call) => call.id)))
        errors.push(`${index}: tool calls not answered in order`);
      for (const call of calls)
        if (call.id.length > 40 || !/^[A-Za-z0-9_-]+$/.test(call.id))
          errors.push(`${index}: bad id ${call.id}`);
    }
    if (message.role === "tool") {
      const previous = out[index - 1];
      if (previous?.role !== "tool" && previous?.role !== "assistant")
        errors.push(`${index}: tool message without its call`);
    }
  });
  return errors;
}

describe("on the shared fixtures", () => {
  it("every expected leaf's LLM view converts to a valid chat-completions message list", () => {
    let checked = 0;
    for (const tree of ["tree-00", "tree-01", "tree-02", "tree-03"]) {
      for (const [leaf, expected] of Object.entries(readExpectedContexts(tree).contexts)) {
        const out = toOpenAiMessages(expected.messages as LlmMessage[], target);
        expect(protocolErrors(out), `${tree} leaf ${leaf}`).toEqual([]);
        expect(out.filter((m) => m.role !== "tool").length).toBeGreaterThan(0);
        checked += 1;
      }
    }
    expect(checked).toBe(120);
  });
});

describe("blocks of other kinds in a user message or tool result", () => {
  it("are left out of Canopy's request, as its plan says, never sent as text without text", async () => {
    const { planRequest } = await import("../../../core/session/request-messages.ts");
    const odd = { type: "document", source: "x.pdf" } as never;
    const messages: LlmMessage[] = [
      user([{ type: "text", text: "read this" }, odd]),
      assistant([call("c1")]),
      result("c1", [{ type: "text", text: "done" }, odd, null as never]),
    ];
    const sent = toOpenAiMessages(messages, target);
    expect(JSON.stringify(sent)).not.toContain('"type":"text"}');
    for (const message of sent) {
      if (Array.isArray(message.content))
        for (const part of message.content) if (part.type === "text") expect(typeof part.text).toBe("string");
    }
    expect(sent[0]).toEqual({ role: "user", content: "read this" });
    expect(sent[2]).toEqual({ role: "tool", tool_call_id: "c1", content: "done" });
    const plan = planRequest(messages, { ...target, sender: "canopy" }, { blockImages: false });
    expect(plan.changes[0]).toEqual([{ kind: "blocks-removed", count: 1 }]);
    expect(plan.changes[2]).toEqual([{ kind: "blocks-removed", count: 2 }]);
    // The agent's own request keeps them: only Canopy's chat completions cannot carry them.
    const agents = planRequest(messages, { ...target, sender: "agent" }, { blockImages: false });
    expect(agents.changes[0]).toEqual([]);
  });
});
