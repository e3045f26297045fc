// What the request does to the LLM view (SPEC §3.6), through context:get and the CLI: synthetic
// results for unanswered tool calls and dropped failed replies are reported next to the view,
// for the session's own model without a configured one and for Canopy's configured model;
// `context --json` stays the agent's message list, `--json --request` is the request's.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ContextView } from "../../core/api/dto.ts";
import type { LlmMessage } from "../../core/session/entries.ts";
import { ABORTED_TOOL_TEXT, NO_RESULT_TEXT } from "../../core/session/request-messages.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { fixturePath, readExpectedContexts, withoutSummaryFraming } from "../helpers/fixtures.ts";

let dir: string;
let db: string;
let api: Api;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-request-"));
  db = path.join(dir, "library.db");
  api = createApi(createAppContext({ dbPath: db, seedDemo: false, loadUserHooks: false, env: {} }));
});

afterEach(() => {
  api.ctx.db.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, s)).toISOString();
const reply = (content: unknown[], stopReason: string) => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
  stopReason,
  timestamp: 2,
});
const userMessage = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });

/** u1 → a1 (calls read c1, never answered) → u2 → a2 (aborted, calls bash c2) → u3. */
function writeSession(): string {
  const lines = [
    { type: "session", version: 3, id: "5e55105e-0000-4000-8000-000000000001", timestamp: at(0), cwd: "/w" },
    { type: "message", id: "u1", parentId: null, timestamp: at(1), message: userMessage("Read the config.") },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: at(2),
      message: reply(
        [
          { type: "text", text: "Reading it." },
          { type: "toolCall", id: "c1", name: "read", arguments: { path: "config.json" } },
        ],
        "toolUse",
      ),
    },
    {
      type: "message",
      id: "u2",
      parentId: "a1",
      timestamp: at(3),
      message: userMessage("Never mind. Run the tests."),
    },
    {
      type: "message",
      id: "a2",
      parentId: "u2",
      timestamp: at(4),
      message: reply(
        [{ type: "toolCall", id: "c2", name: "bash", arguments: { command: "npm test" } }],
        "aborted",
      ),
    },
    { type: "message", id: "u3", parentId: "a2", timestamp: at(5), message: userMessage("Go on.") },
  ];
  const file = path.join(dir, "session.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

async function viewOf(file: string): Promise<ContextView> {
  const imported = await api.call("library:import", { path: file });
  if (!imported.ok) throw new Error(imported.error.message);
  const view = await api.call("context:get", { sessionId: imported.value.files[0]?.sessionId as string });
  if (!view.ok) throw new Error(view.error.message);
  return view.value;
}

async function configureModel(): Promise<void> {
  const set = await api.call("settings:set", {
    key: "model",
    value: { baseUrl: "http://127.0.0.1:9/v1", id: "local-model" },
  });
  if (!set.ok) throw new Error(set.error.message);
}

describe("context:get request annotations", () => {
  it("without a model: the session's model, a 'No result provided' result and an aborted one, nothing dropped", async () => {
    const view = await viewOf(writeSession());
    expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(view.request.target).toEqual({
      provider: "anthropic",
      api: "anthropic-messages",
      model: "claude-test",
      sender: "agent",
      from: "session",
    });
    expect(view.request.changes).toEqual([[], [], [], [], []]);
    expect(
      view.request.added.map((a) => [
        a.message.toolCallId,
        a.before,
        a.callIndex,
        a.reason,
        a.message.content,
      ]),
    ).toEqual([
      ["c1", 2, 1, "no-result", [{ type: "text", text: NO_RESULT_TEXT }]],
      ["c2", 4, 3, "aborted", [{ type: "text", text: ABORTED_TOOL_TEXT }]],
    ]);
    expect(view.request.messageCount).toBe(7);
  });

  it("without a model, after a model change: the request goes to the model changed to, as the agent resumes with it", async () => {
    // tree-01's leaf 8b98149e: anthropic replies, then a model_change to openai/gpt-b (SPEC §3.2).
    const imported = await api.call("library:import", { path: fixturePath("tree-01.jsonl") });
    if (!imported.ok) throw new Error(imported.error.message);
    const sessionId = imported.value.files[0]?.sessionId as string;
    const view = await api.call("context:get", { sessionId, leafId: "8b98149e" });
    if (!view.ok) throw new Error(view.error.message);
    const expected = readExpectedContexts("tree-01").contexts["8b98149e"];
    expect(expected?.model).toEqual({ provider: "openai", modelId: "gpt-b" });
    expect(view.value.request.target).toEqual({
      provider: "openai",
      api: null,
      model: "gpt-b",
      sender: "agent",
      from: "session",
    });
    // Thinking of the anthropic replies reaches openai as plain text.
    const withThinking = view.value.messages.flatMap((m, i) =>
      m.role === "assistant" && m.content.some((b) => b.type === "thinking") ? [i] : [],
    );
    expect(withThinking.length).toBeGreaterThan(0);
    for (const i of withThinking) expect(view.value.request.changes[i]).toContainEqual({ kind: "thinking-as-text" });
  });

  it("with a configured model: Canopy's request drops the aborted reply of another provider with its call", async () => {
    await configureModel();
    const view = await viewOf(writeSession());
    expect(view.request.target).toMatchObject({
      provider: "127.0.0.1:9",
      api: "openai-completions",
      sender: "canopy",
      from: "configured",
    });
    expect(view.request.changes[3]).toEqual([{ kind: "dropped", reason: "failed-foreign" }]);
    expect(view.request.added.map((a) => a.message.toolCallId)).toEqual(["c1"]);
    expect(view.request.messageCount).toBe(5);
  });

  it("images.blockImages is reported on the messages whose images the request replaces", async () => {
    const file = path.join(dir, "image.jsonl");
    const image = { type: "image", data: "QQ==", mimeType: "image/png" };
    const lines = [
      {
        type: "session",
        version: 3,
        id: "5e55105e-0000-4000-8000-000000000002",
        timestamp: at(0),
        cwd: "/w",
      },
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: at(1),
        message: { role: "user", content: [{ type: "text", text: "see" }, image], timestamp: 1 },
      },
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    expect((await viewOf(file)).request.changes).toEqual([[]]);
    const set = await api.call("settings:set", { key: "images.blockImages", value: true });
    expect(set.ok).toBe(true);
    const view = await viewOf(file);
    expect(view.request).toMatchObject({
      target: null,
      blockImages: true,
      changes: [[{ kind: "images-blocked", count: 1 }]],
    });
  });
});

describe("canopy context and the request", () => {
  it("--json stays the agent's list; --json --request is the request's; the text form marks both", async () => {
    const file = writeSession();
    const json = await runCliCaptured(["context", file, "--json", "--db", db]);
    expect(json.code).toBe(0);
    const messages = JSON.parse(json.out) as LlmMessage[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(json.out).not.toContain(NO_RESULT_TEXT);

    const request = await runCliCaptured(["context", file, "--json", "--request", "--db", db]);
    expect(request.code).toBe(0);
    const sent = JSON.parse(request.out) as LlmMessage[];
    expect(
      sent.map((m) =>
        m.role === "toolResult" ? `${m.toolCallId}: ${(m.content[0] as { text: string }).text}` : m.role,
      ),
    ).toEqual([
      "user",
      "assistant",
      `c1: ${NO_RESULT_TEXT}`,
      "user",
      "assistant",
      `c2: ${ABORTED_TOOL_TEXT}`,
      "user",
    ]);

    const text = await runCliCaptured(["context", file, "--db", db]);
    expect(text.code).toBe(0);
    expect(text.out).toContain(
      "Request as the agent sends it to the session's model (anthropic · anthropic-messages · claude-test)",
    );
    expect(text.out).toContain(
      "── [+] tool result · read · added by the request · answers [2]\nAdded by the request: tool call read (c1) has no result.\n[error] No result provided",
    );
    expect(text.out).toContain("Added by the request: tool call bash (c2) of a failed reply has no result.");
    // The added result sits where the request puts it: before the next user message.
    expect(text.out.indexOf("(c1) has no result")).toBeLessThan(text.out.indexOf("── [3] user"));
  });

  it("with a configured model the text form says which reply is not sent and why", async () => {
    const file = writeSession();
    const set = await runCliCaptured([
      "settings",
      "set",
      "model",
      '{"baseUrl":"http://127.0.0.1:9/v1","id":"local-model"}',
      "--db",
      db,
    ]);
    expect(set.code).toBe(0);
    const text = await runCliCaptured(["context", file, "--db", db]);
    expect(text.out).toContain(
      "Request as Canopy sends it to the configured model (127.0.0.1:9 · openai-completions · local-model, OpenAI-compatible). It carries 5 messages.",
    );
    expect(text.out).toContain("── [4] [not sent] assistant · anthropic/claude-test · aborted · entry a2 · ~");
    expect(text.out).toContain(
      "request: Not sent: a reply that ended in aborted from another provider/API (anthropic · anthropic-messages) is dropped, with its tool results.",
    );
    const request = await runCliCaptured(["context", file, "--json", "--request", "--db", db]);
    expect((JSON.parse(request.out) as LlmMessage[]).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
      "user",
    ]);
  });

  it("a long session with a configured model: 'thinking not sent' is one line naming every reply; the rare note stays on its message", async () => {
    const turns = 40;
    const lines: object[] = [
      { type: "session", version: 3, id: "5e55105e-0000-4000-8000-000000000002", timestamp: at(0), cwd: "/w" },
    ];
    let parent: string | null = null;
    for (let i = 0; i < turns; i++) {
      lines.push({ type: "message", id: `u${i}`, parentId: parent, timestamp: at(2 * i + 1), message: userMessage(`Question ${i}`) });
      const content = [
        { type: "thinking", thinking: `Thinking about ${i}.` },
        { type: "text", text: `Answer ${i}.` },
      ];
      lines.push({ type: "message", id: `a${i}`, parentId: `u${i}`, timestamp: at(2 * i + 2), message: reply(content, "stop") });
      parent = `a${i}`;
    }
    // The note that matters: a tool result no call of the request waits for.
    lines.push({
      type: "message",
      id: "stray",
      parentId: parent,
      timestamp: at(100),
      message: { role: "toolResult", toolCallId: "gone", toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 3 },
    });
    const file = path.join(dir, "long.jsonl");
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    await configureModel();
    const text = await runCliCaptured(["context", file, "--db", db]);
    expect(text.code).toBe(0);
    const replyNumbers = Array.from({ length: turns }, (_, i) => `${2 * i + 2}`).join(", ");
    expect(text.out).toContain(
      `request: Thinking of ${turns} replies is not sent: Canopy's OpenAI-compatible request carries none. Messages ${replyNumbers}.`,
    );
    expect(text.out.match(/Thinking not sent/g) ?? []).toHaveLength(0);
    expect(text.out.match(/Thinking of 40 replies/g) ?? []).toHaveLength(1);
    // Each reply keeps a short mark; the stray result keeps its own note in place.
    expect(text.out).toContain("── [2] [thinking not sent] assistant · anthropic/claude-test · entry a0 · ~");
    expect(text.out).toContain(
      "── [81] tool result · bash · entry stray · ~1 tokens\nrequest: Sent as a user message: no tool call of the request waits for this result.",
    );
    // --json stays the agent's message list: no notes in it.
    const json = await runCliCaptured(["context", file, "--json", "--db", db]);
    expect((JSON.parse(json.out) as LlmMessage[]).length).toBe(81);
  });

  it("--request without --json is a usage error", async () => {
    const run = await runCliCaptured(["context", writeSession(), "--request", "--db", db]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("--request goes with --json");
  });

  it("a fixture leaf with unanswered calls: --json is the expected file, --json --request adds their results", async () => {
    const expected = readExpectedContexts("tree-00");
    const found = Object.entries(expected.contexts).find(([, want]) => {
      const view = want.messages as LlmMessage[];
      const results = new Set(view.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : [])));
      return view.some(
        (m, i) =>
          i < view.length - 2 &&
          m.role === "assistant" &&
          m.content.some((b) => b.type === "toolCall" && !results.has(b.id)),
      );
    });
    if (!found) throw new Error("tree-00 has no leaf with an unanswered tool call mid-view");
    const [leaf, want] = found;
    const file = fixturePath("tree-00.jsonl");
    const json = await runCliCaptured(["context", file, "--leaf", leaf, "--json", "--db", db]);
    const got = JSON.parse(json.out) as unknown[];
    expect(got.map(withoutSummaryFraming)).toEqual(want.messages.map(withoutSummaryFraming));
    const request = await runCliCaptured([
      "context",
      file,
      "--leaf",
      leaf,
      "--json",
      "--request",
      "--db",
      db,
    ]);
    const sent = JSON.parse(request.out) as LlmMessage[];
    const added = sent.filter(
      (m) =>
        m.role === "toolResult" && m.isError && (m.content[0] as { text?: string })?.text === NO_RESULT_TEXT,
    );
    expect(added.length).toBeGreaterThan(0);
    expect(sent.length).toBe(got.length + added.length);
  });
});
