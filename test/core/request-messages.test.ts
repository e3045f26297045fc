// The request-level step after convertToLlm (SPEC §3.6 steps 4–6): synthetic results for
// unanswered tool calls, failed replies dropped, blocked images, thinking rules per target — on
// built sessions and on every expected leaf of the shared fixtures and the real v1 sessions.
import { describe, expect, it } from "vitest";
import type { AssistantMessage, LlmMessage, ToolCall } from "../../core/session/entries.ts";
import { parseSessionText } from "../../core/session/jsonl.ts";
import { buildLlmView } from "../../core/session/llm-view.ts";
import {
  ABORTED_TOOL_TEXT,
  IMAGES_BLOCKED_TEXT,
  NO_RESULT_TEXT,
  planRequest,
  type RequestTarget,
  sessionRequestTarget,
} from "../../core/session/request-messages.ts";
import { requestChangeText } from "../../core/session/request-notes.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import { readExpectedContexts, readFixture } from "../helpers/fixtures.ts";
import { assistant, chain, msg, plainTemplates, toolResult, user } from "./_builders.ts";

const agent: RequestTarget = { provider: "anthropic", api: "anthropic-messages", sender: "agent" };
const canopy: RequestTarget = { provider: "127.0.0.1:1234", api: "openai-completions", sender: "canopy" };
const off = { blockImages: false };
const call = (id: string, name = "bash"): ToolCall => ({
  type: "toolCall",
  id,
  name,
  arguments: { command: "ls" },
});

/** The LLM view at `leaf` of a session built from `entries`. */
function viewOf(entries: ReturnType<typeof chain>, leaf?: string): LlmMessage[] {
  return buildLlmView(entries, leaf, plainTemplates, buildTreeIndex(entries)).messages;
}

/** Tool calls of the view with no result in the run of results right after their reply. */
function unanswered(view: readonly LlmMessage[]): { id: string; before: number }[] {
  const out: { id: string; before: number }[] = [];
  view.forEach((message, index) => {
    if (message.role !== "assistant") return;
    let next = index + 1;
    const answered = new Set<string>();
    for (; view[next]?.role === "toolResult"; next++)
      answered.add((view[next] as { toolCallId: string }).toolCallId);
    for (const block of message.content)
      if (block.type === "toolCall" && !answered.has(block.id)) out.push({ id: block.id, before: next });
  });
  return out;
}

/** Every reply's tool calls are answered once, in the results right after it; no stray result. */
function protocolErrors(messages: readonly LlmMessage[]): string[] {
  const errors: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === "toolResult") {
      let back = index - 1;
      while (messages[back]?.role === "toolResult") back--;
      const owner = messages[back];
      const ids =
        owner?.role === "assistant"
          ? owner.content.filter((b) => b.type === "toolCall").map((b) => (b as ToolCall).id)
          : [];
      if (!ids.includes(message.toolCallId))
        errors.push(`${index}: result ${message.toolCallId} without its call`);
    }
    if (message.role !== "assistant") return;
    const calls = message.content.filter((b) => b.type === "toolCall").map((b) => (b as ToolCall).id);
    const results: string[] = [];
    for (let next = index + 1; messages[next]?.role === "toolResult"; next++)
      results.push((messages[next] as { toolCallId: string }).toolCallId);
    if ([...results].sort().join() !== [...calls].sort().join())
      errors.push(`${index}: calls ${calls} answered by ${results}`);
  });
  return errors;
}

describe("planRequest on built sessions", () => {
  const entries = chain(
    msg("u1", null, user("list the files")),
    msg(
      "a1",
      null,
      assistant("", { content: [{ type: "text", text: "Looking." }, call("c1"), call("c2", "read")] }),
    ),
    msg("r1", null, toolResult("a.ts", { toolCallId: "c1", toolName: "bash" })),
    msg("u2", null, user("stop, do something else")),
    msg("a2", null, assistant("", { content: [call("c3")], stopReason: "toolUse" })),
  );

  it("adds a 'No result provided' error result for each unanswered call, before the next message and at the end", () => {
    const view = viewOf(entries);
    const plan = planRequest(view, agent, off);
    expect(plan.added.map((a) => [a.message.toolCallId, a.before, a.callIndex, a.reason])).toEqual([
      ["c2", 3, 1, "no-result"],
      ["c3", 5, 4, "no-result"],
    ]);
    expect(plan.added.map((a) => [a.message.isError, a.message.toolName, a.message.content])).toEqual([
      [true, "read", [{ type: "text", text: NO_RESULT_TEXT }]],
      [true, "bash", [{ type: "text", text: NO_RESULT_TEXT }]],
    ]);
    expect(plan.messages.map((m) => (m.role === "toolResult" ? `result ${m.toolCallId}` : m.role))).toEqual([
      "user",
      "assistant",
      "result c1",
      "result c2",
      "user",
      "assistant",
      "result c3",
    ]);
    expect(plan.sources).toEqual([0, 1, 2, null, 3, 4, null]);
    expect(plan.changes.every((list) => list.length === 0)).toBe(true);
    expect(protocolErrors(plan.messages)).toEqual([]);
  });

  it("leaves a view whose calls all have results as it is", () => {
    const view = viewOf(entries, "r1").slice(0, 2);
    const answered = [...view, toolResult("x", { toolCallId: "c1" }), toolResult("y", { toolCallId: "c2" })];
    const plan = planRequest(answered, agent, off);
    expect(plan.messages).toEqual(answered);
    expect(plan.added).toEqual([]);
  });

  it("drops a failed reply of another provider with its results, and an empty failed reply of the target", () => {
    const view: LlmMessage[] = [
      user("go"),
      assistant("", {
        content: [{ type: "text", text: "partial" }, call("gone")],
        provider: "openai",
        api: "openai-responses",
        stopReason: "error",
      }),
      toolResult("never sent", { toolCallId: "gone" }),
      assistant("", { content: [], stopReason: "aborted" }),
      user("again"),
    ];
    const plan = planRequest(view, agent, off);
    expect(plan.changes).toEqual([
      [],
      [{ kind: "dropped", reason: "failed-foreign" }],
      [{ kind: "dropped", reason: "result-of-dropped" }],
      [{ kind: "dropped", reason: "failed-empty" }],
      [],
    ]);
    expect(plan.messages).toEqual([view[0], view[4]]);
  });

  it("answers the calls of a failed reply of the target with 'Tool execution was aborted'", () => {
    const view: LlmMessage[] = [
      user("go"),
      assistant("", { content: [{ type: "text", text: "half" }, call("cut")], stopReason: "aborted" }),
      user("why did you stop?"),
    ];
    const plan = planRequest(view, agent, off);
    expect(plan.added).toHaveLength(1);
    expect(plan.added[0]).toMatchObject({ before: 2, reason: "aborted" });
    expect(plan.added[0]?.message.content).toEqual([{ type: "text", text: ABORTED_TOOL_TEXT }]);
    // The same reply is foreign to Canopy's configured model: dropped instead.
    expect(planRequest(view, canopy, off).changes[1]).toEqual([
      { kind: "dropped", reason: "failed-foreign" },
    ]);
  });

  it("replaces images in user messages and tool results when images.blockImages is on, collapsing repeats", () => {
    const png = { type: "image" as const, data: "QQ==", mimeType: "image/png" };
    const view: LlmMessage[] = [
      { role: "user", content: [{ type: "text", text: "look" }, png, png], timestamp: 1 },
      assistant("", { content: [call("shot")] }),
      toolResult("", { toolCallId: "shot", content: [png, { type: "text", text: "saved" }, png] }),
    ];
    expect(planRequest(view, agent, off).messages).toEqual(view);
    const plan = planRequest(view, agent, { blockImages: true });
    expect(plan.changes[0]).toEqual([{ kind: "images-blocked", count: 2 }]);
    expect(plan.changes[2]).toEqual([{ kind: "images-blocked", count: 2 }]);
    expect(plan.messages[0]?.content).toEqual([
      { type: "text", text: "look" },
      { type: "text", text: IMAGES_BLOCKED_TEXT },
    ]);
    expect(plan.messages[2]?.content).toEqual([
      { type: "text", text: IMAGES_BLOCKED_TEXT },
      { type: "text", text: "saved" },
      { type: "text", text: IMAGES_BLOCKED_TEXT },
    ]);
  });

  it("applies each target's thinking rule: kept (same provider), text (foreign), removed (cerebras, Canopy)", () => {
    const thinking = (provider: string): AssistantMessage =>
      assistant("", {
        provider,
        content: [
          { type: "thinking", thinking: "reasoning" },
          { type: "thinking", thinking: "  " },
          { type: "text", text: "answer" },
        ],
      });
    const same = planRequest([thinking("anthropic")], agent, off);
    expect(same.messages[0]?.content).toHaveLength(3);
    const foreign = planRequest([thinking("google")], agent, off);
    expect(foreign.changes[0]).toEqual([{ kind: "thinking-as-text" }]);
    expect(foreign.messages[0]?.content).toEqual([
      { type: "text", text: "reasoning" },
      { type: "text", text: "answer" },
    ]);
    const cerebras = planRequest(
      [thinking("cerebras")],
      { provider: "cerebras", api: "openai-completions", sender: "agent" },
      off,
    );
    expect(cerebras.changes[0]).toEqual([{ kind: "thinking-removed", reason: "cerebras" }]);
    const ours = planRequest([thinking("anthropic")], canopy, off);
    expect(ours.changes[0]).toEqual([{ kind: "thinking-removed", reason: "canopy" }]);
    expect(ours.messages[0]?.content).toEqual([{ type: "text", text: "answer" }]);
  });

  it("a foreign reply whose thinking is all empty sends none, and says so rather than 'sent as plain text'", () => {
    const reply = assistant("", {
      provider: "google",
      api: "google-generative-ai",
      content: [
        { type: "thinking", thinking: "" },
        { type: "thinking", thinking: " \n" },
        { type: "text", text: "answer" },
      ],
    });
    const plan = planRequest([reply], agent, off);
    expect(plan.messages[0]?.content).toEqual([{ type: "text", text: "answer" }]);
    expect(plan.changes[0]).toEqual([{ kind: "thinking-removed", reason: "empty" }]);
    expect(requestChangeText({ kind: "thinking-removed", reason: "empty" })).toBe(
      "Empty thinking not sent: a reply of another provider/API carries no empty thinking.",
    );
  });

  it("Canopy's request says it leaves out blocks of other kinds (redacted thinking), which chat completions cannot carry", () => {
    const reply = assistant("", {
      content: [
        { type: "redactedThinking", data: "ENC" },
        { type: "fallback", from: { model: "a" }, to: { model: "b" } },
        { type: "text", text: "answer" },
        call("c1"),
      ] as unknown as AssistantMessage["content"],
    });
    const ours = planRequest([reply, toolResult("out", { toolCallId: "c1" })], canopy, off);
    expect(ours.changes[0]).toEqual([{ kind: "blocks-removed", count: 2 }]);
    expect(ours.messages[0]?.content).toEqual([{ type: "text", text: "answer" }, call("c1")]);
    expect(requestChangeText({ kind: "blocks-removed", count: 2 })).toBe(
      "2 blocks of other kinds (redacted thinking, a model-fallback marker…) not sent: Canopy's OpenAI-compatible request carries only text, images and tool calls.",
    );
    // The agent's own request to the reply's provider carries them as they are.
    const theirs = planRequest([reply, toolResult("out", { toolCallId: "c1" })], agent, off);
    expect(theirs.changes[0]).toEqual([]);
    expect(theirs.messages[0]).toBe(reply);
  });

  it("Canopy's request leaves out a reply of only thinking and sends a result no call waits for as user text", () => {
    const view: LlmMessage[] = [
      user("hi"),
      assistant("", {
        content: [{ type: "thinking", thinking: "hmm" }],
        provider: canopy.provider,
        api: "openai-completions",
      }),
      toolResult("out", { toolCallId: "orphan", toolName: "grep" }),
    ];
    const plan = planRequest(view, canopy, off);
    expect(plan.changes[1]).toEqual([{ kind: "dropped", reason: "nothing-to-send" }]);
    expect(plan.changes[2]).toEqual([{ kind: "result-as-user" }]);
    expect(plan.messages[1]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "Result of tool grep:\nout" }],
    });
    // The agent's request passes such a result on as it is.
    expect(planRequest(view, agent, off).messages[2]).toBe(view[2]);
  });

  it("sessionRequestTarget is the model in effect at the leaf: a model change after the last reply wins", () => {
    const view = viewOf(entries);
    // Another provider: its API is not known (no reply of it on the path).
    expect(sessionRequestTarget(view, { provider: "openai", modelId: "gpt-b" })).toEqual({
      provider: "openai",
      api: null,
      model: "gpt-b",
      sender: "agent",
      from: "session",
    });
    // The same provider, another model: the API of that provider's last reply.
    expect(sessionRequestTarget(view, { provider: "anthropic", modelId: "claude-other" })).toEqual({
      provider: "anthropic",
      api: "anthropic-messages",
      model: "claude-other",
      sender: "agent",
      from: "session",
    });
    // A model change with no reply on the path still names the model.
    expect(sessionRequestTarget([user("x")], { provider: "openai", modelId: "gpt-b" })).toMatchObject({
      provider: "openai",
      model: "gpt-b",
    });
  });

  it("sessionRequestTarget is the last reply's provider, API and model", () => {
    expect(sessionRequestTarget([user("x")])).toBeNull();
    expect(sessionRequestTarget(viewOf(entries))).toEqual({
      provider: "anthropic",
      api: "anthropic-messages",
      model: "claude-test",
      sender: "agent",
      from: "session",
    });
  });
});

describe("planRequest on the shared fixtures", () => {
  it("every expected leaf: one synthetic result per unanswered call, where the agent inserts it, and nothing else changes", () => {
    let leaves = 0;
    let withUnanswered = 0;
    let midView = 0;
    for (const tree of ["tree-00", "tree-01", "tree-02", "tree-03"]) {
      for (const [leaf, expected] of Object.entries(readExpectedContexts(tree).contexts)) {
        const view = expected.messages as LlmMessage[];
        const plan = planRequest(view, agent, off);
        const want = unanswered(view);
        expect(
          plan.added.map((a) => ({ id: a.message.toolCallId, before: a.before })),
          `${tree} ${leaf}`,
        ).toEqual(want);
        expect(plan.added.every((a) => a.reason === "no-result" && a.message.isError)).toBe(true);
        expect(plan.messages.filter((_, i) => plan.sources[i] !== null)).toEqual(view);
        expect(protocolErrors(plan.messages), `${tree} ${leaf}`).toEqual([]);
        leaves++;
        if (want.length > 0) withUnanswered++;
        if (want.some((w) => w.before < view.length)) midView++;
      }
    }
    expect(leaves).toBe(120);
    expect(withUnanswered).toBeGreaterThan(30);
    expect(midView).toBeGreaterThan(10);
  });
});

describe("planRequest on the real v1 sessions (aborted and errored replies)", () => {
  for (const file of ["real-large-session.v1.jsonl", "real-before-compaction.v1.jsonl"]) {
    it(`${file}: failed replies follow the target's rules`, () => {
      const entries = parseSessionText(readFixture(file)).entries.map((e) => e.entry);
      const view = buildLlmView(entries, undefined, plainTemplates, buildTreeIndex(entries)).messages;
      const failedReplies = view.flatMap((m, i) =>
        m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error") ? [i] : [],
      );
      expect(failedReplies.length).toBeGreaterThan(5);

      // Canopy's configured model: every reply is foreign, so every failed one goes, with its results.
      const ours = planRequest(view, canopy, off);
      for (const i of failedReplies)
        expect(ours.changes[i]).toEqual([{ kind: "dropped", reason: "failed-foreign" }]);
      expect(
        ours.messages.some(
          (m) => m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error"),
        ),
      ).toBe(false);
      expect(protocolErrors(ours.messages)).toEqual([]);

      // The agent's own model: empty failed replies go; the others stay, their calls answered as aborted.
      const target = sessionRequestTarget(view);
      expect(target).toMatchObject({ provider: "anthropic", api: "anthropic-messages" });
      const theirs = planRequest(view, target as RequestTarget, off);
      for (const i of failedReplies) {
        const reply = view[i] as AssistantMessage;
        if (reply.provider !== "anthropic") continue;
        if (reply.content.length === 0)
          expect(theirs.changes[i]).toEqual([{ kind: "dropped", reason: "failed-empty" }]);
        else expect(theirs.changes[i]?.some((c) => c.kind === "dropped")).toBe(false);
      }
      const aborted = theirs.added.filter((a) => a.reason === "aborted");
      const failedCalls = unanswered(view).filter((u) =>
        failedReplies.some(
          (i) =>
            (view[i] as AssistantMessage).provider === "anthropic" &&
            (view[i] as AssistantMessage).content.some((b) => b.type === "toolCall" && b.id === u.id),
        ),
      );
      expect(aborted.map((a) => a.message.toolCallId)).toEqual(failedCalls.map((u) => u.id));
      expect(aborted.length).toBeGreaterThan(0);
      expect(protocolErrors(theirs.messages)).toEqual([]);
    });
  }
});
