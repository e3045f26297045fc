// Automatic compaction (SPEC §9.3–9.4, behaviours 65–67, D12, D17) against a real
// OpenAI-compatible server on 127.0.0.1, with a recording fake of the conversation (AgentPort).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Events } from "../../../core/api/contract.ts";
import type { AssistantMessage, MessageEntry } from "../../../core/session/entries.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { loadSessionEntries } from "../../../main/library/load.ts";
import { AUTO_CONTINUE_PROMPT, type AgentPort, checkCompaction } from "../../../main/pipelines/auto-compaction.ts";
import { type FakeServer, OVERFLOW_ERRORS, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { type ChainStep, textOf, writeChainSession } from "./session-builder.ts";

let fake: FakeServer;
let api: Api;
let dir: string;
let events: { name: string; payload: unknown; at: number }[];

interface AgentCall {
  kind: "continue" | "prompt";
  text?: string;
  at: number;
}

function fakeAgent(queued = false): AgentPort & { calls: AgentCall[] } {
  const calls: AgentCall[] = [];
  return {
    calls,
    continue: () => void calls.push({ kind: "continue", at: performance.now() }),
    prompt: (text) => void calls.push({ kind: "prompt", text, at: performance.now() }),
    hasQueuedMessages: () => queued,
  };
}

async function set(key: string, value: unknown) {
  const result = await api.call("settings:set", { key, value });
  if (!result.ok) throw new Error(result.error.message);
}

async function importSession(steps: ChainStep[], name = "s"): Promise<string> {
  const result = await api.call("library:import", { path: writeChainSession(dir, name, steps) });
  if (!result.ok) throw new Error(result.error.message);
  return result.value.files[0]?.sessionId as string;
}

function lastAssistant(sessionId: string): AssistantMessage {
  const entries = loadSessionEntries(api.ctx.db, sessionId) as MessageEntry[];
  const last = entries.filter((entry) => entry.type === "message" && entry.message.role === "assistant").at(-1);
  return last?.message as AssistantMessage;
}

function ended(): Events["compaction:auto-ended"][] {
  return events.filter((e) => e.name === "compaction:auto-ended").map((e) => e.payload as Events["compaction:auto-ended"]);
}

/** A conversation whose last reply measured 191,000 context tokens (window 200,000, reserve 16,384). */
const bigSession: ChainStep[] = [
  { role: "user", text: textOf(3000, "first") },
  { role: "assistant", text: textOf(3000, "answer") },
  { role: "user", text: textOf(3000, "second") },
  { role: "assistant", text: textOf(3000, "reply"), usage: { input: 190_000, output: 1000, totalTokens: 191_000 } },
];

beforeEach(async () => {
  fake = await startFakeOpenAiServer({ defaultText: "## Goal\nKeep going." });
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-auto-"));
  api = createApi(
    createAppContext({ dbPath: path.join(dir, "library.db"), seedDemo: false, loadUserHooks: false, env: { FAKE_KEY: "sk-test" } }),
  );
  events = [];
  api.ctx.events.subscribe((name, payload) => events.push({ name, payload, at: performance.now() }));
  await set("model", { baseUrl: fake.baseUrl, id: "fake-model", contextWindow: 200_000, apiKeyEnv: "FAKE_KEY", stream: false });
  await set("compaction.keepRecentTokens", 4000);
  await set("retry.baseDelayMs", 1);
});

afterEach(async () => {
  api.ctx.db.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("threshold compaction", () => {
  it("B65: with autoContinue off and a queued message, compacts and continues once ~100 ms after the end event", async () => {
    await set("compaction.autoContinue", false);
    const sessionId = await importSession(bigSession);
    const agent = fakeAgent(true);
    const outcome = await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent });
    expect(outcome.ran).toBe("threshold");
    const [end] = ended();
    expect(end).toMatchObject({ reason: "threshold", aborted: false, willRetry: false });
    expect(end?.entryId).toBeTruthy();
    expect(agent.calls.map((c) => c.kind)).toEqual(["continue"]);
    const endAt = events.find((e) => e.name === "compaction:auto-ended")?.at ?? 0;
    expect((agent.calls[0]?.at ?? 0) - endAt).toBeGreaterThanOrEqual(95);
    // The summary calls went to the model: history (13107), turn prefix (8192) of the split turn, short (512).
    const budgets = fake.requests.map((r) => (r.body as { max_tokens: number }).max_tokens).sort((a, b) => a - b);
    expect(budgets).toEqual([512, 8192, 13107]);
  });

  it("auto-continue sends the synthetic prompt once, and D12: the next check does not compact again", async () => {
    const sessionId = await importSession(bigSession);
    const agent = fakeAgent();
    await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent });
    expect(agent.calls).toEqual([expect.objectContaining({ kind: "prompt", text: AUTO_CONTINUE_PROMPT })]);
    // The pre-prompt check sees the last kept assistant, whose usage triggered the threshold.
    const again = await checkCompaction(api.ctx, {
      sessionId,
      assistant: lastAssistant(sessionId),
      skipAborted: false,
      agent,
    });
    expect(again.ran).toBeNull();
    expect(events.filter((e) => e.name === "compaction:auto-started")).toHaveLength(1);
  });

  it("stays quiet below the threshold and when compaction is disabled", async () => {
    const small = bigSession.map((step) => (step.usage ? { ...step, usage: { input: 1000, output: 10 } } : step));
    const sessionId = await importSession(small);
    expect((await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() })).ran).toBeNull();
    await set("compaction.enabled", false);
    const big = await importSession(bigSession, "big");
    expect((await checkCompaction(api.ctx, { sessionId: big, assistant: lastAssistant(big), agent: fakeAgent() })).ran).toBeNull();
    expect(fake.requests).toHaveLength(0);
  });

  it("skips an aborted reply after a run, but checks it before a prompt", async () => {
    const aborted = bigSession.map((step) => (step.usage ? { ...step, stopReason: "aborted" as const } : step));
    const sessionId = await importSession(aborted);
    const agent = fakeAgent();
    expect((await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent })).ran).toBeNull();
    const before = await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), skipAborted: false, agent });
    expect(before.ran).toBe("threshold");
  });
});

describe("overflow recovery", () => {
  const overflowing = (model: string): ChainStep[] => [
    ...bigSession.slice(0, 3),
    { role: "assistant", text: "", model, stopReason: "error", errorMessage: OVERFLOW_ERRORS.anthropic },
  ];

  it("B66: removes the failed reply from the active path (kept in the library), compacts, and retries after 100 ms", async () => {
    const sessionId = await importSession(overflowing("fake-model"));
    const failed = loadSessionEntries(api.ctx.db, sessionId).at(-1);
    const agent = fakeAgent();
    const outcome = await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent });
    expect(outcome.ran).toBe("overflow");
    expect(ended()[0]).toMatchObject({ reason: "overflow", willRetry: true, aborted: false });
    expect(agent.calls.map((c) => c.kind)).toEqual(["continue"]);
    const entries = loadSessionEntries(api.ctx.db, sessionId);
    expect(entries.some((entry) => entry.id === failed?.id)).toBe(true);
    const compaction = entries.find((entry) => entry.type === "compaction");
    expect(compaction?.parentId).toBe(failed?.parentId);
    const view = await api.call("context:get", { sessionId });
    expect(view.ok && view.value.leafId).toBe(compaction?.id);
  });

  it("B66: an overflow error from a different model does not compact", async () => {
    const sessionId = await importSession(overflowing("other-model"));
    const outcome = await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() });
    expect(outcome.ran).toBeNull();
    expect(fake.requests).toHaveLength(0);
  });

  it("D12: a reply older than the latest compaction on the path is ignored", async () => {
    const sessionId = await importSession(overflowing("fake-model"));
    await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() });
    const requests = fake.requests.length;
    const stale = lastAssistant(sessionId);
    const outcome = await checkCompaction(api.ctx, { sessionId, assistant: stale, agent: fakeAgent() });
    expect(outcome.ran).toBeNull();
    expect(fake.requests).toHaveLength(requests);
  });
});

describe("failures, retries and candidate models (D17)", () => {
  it("B67: a non-retryable failure on every candidate ends with the exact messages", async () => {
    // Every summary call of these runs fails (history, turn prefix and short summary alike).
    const notLoaded = { type: "error", status: 400, body: { error: { message: "model not loaded" } } } as const;
    const failure = /^(Turn prefix summarization|Summarization|Short summary) failed: 400 model not loaded$/;
    const sessionId = await importSession(bigSession);
    fake.enqueue(notLoaded, notLoaded, notLoaded);
    await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() });
    const threshold = ended()[0]?.errorMessage ?? "";
    expect(threshold.startsWith("Auto-compaction failed: ")).toBe(true);
    expect(threshold.slice("Auto-compaction failed: ".length)).toMatch(failure);

    const overflowSession = await importSession(
      [...bigSession.slice(0, 3), { role: "assistant", text: "", stopReason: "error", errorMessage: OVERFLOW_ERRORS.openai }],
      "overflow",
    );
    fake.enqueue(notLoaded, notLoaded, notLoaded);
    await checkCompaction(api.ctx, { sessionId: overflowSession, assistant: lastAssistant(overflowSession), agent: fakeAgent() });
    const overflow = ended()[1]?.errorMessage ?? "";
    expect(overflow.startsWith("Context overflow recovery failed: ")).toBe(true);
    expect(overflow.slice("Context overflow recovery failed: ".length)).toMatch(failure);
    for (const id of [sessionId, overflowSession]) {
      expect(loadSessionEntries(api.ctx.db, id).some((entry) => entry.type === "compaction")).toBe(false);
    }
  });

  it("retries a transient failure on the same model with retry events", async () => {
    const sessionId = await importSession(bigSession);
    fake.enqueue({ type: "error", status: 429, body: { error: { message: "Rate limit reached" } }, headers: { "retry-after-ms": "5" } });
    await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() });
    expect(ended()[0]?.entryId).toBeTruthy();
    expect(events.filter((e) => e.name === "compaction:retry-started")).toHaveLength(1);
    expect(events.find((e) => e.name === "compaction:retry-ended")?.payload).toMatchObject({ success: true, attempt: 1 });
  });

  it("D17: the current model first, then the configured fallback", async () => {
    await set("fallbackModels", [
      { baseUrl: fake.baseUrl, id: "fallback-model", contextWindow: 100_000, apiKeyEnv: "FAKE_KEY", stream: false },
    ]);
    const sessionId = await importSession(bigSession);
    fake.enqueue({ type: "error", status: 400, body: { error: { message: "bad request" } } });
    await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() });
    expect(ended()[0]?.entryId).toBeTruthy();
    const models = fake.requests
      .filter((r) => r.path === "/v1/chat/completions")
      .map((r) => (r.body as { model: string }).model);
    expect(models[0]).toBe("fake-model");
    const switchedAt = models.indexOf("fallback-model");
    expect(switchedAt).toBeGreaterThan(0);
    expect(models.slice(0, switchedAt).every((model) => model === "fake-model")).toBe(true);
    expect(models.slice(switchedAt).every((model) => model === "fallback-model")).toBe(true);
  });
});

describe("pruning inside the check (§7.2, D9)", () => {
  it("prunes old tool outputs and subtracts the savings from the threshold comparison", async () => {
    const steps: ChainStep[] = [{ role: "user", text: "start" }];
    for (let i = 0; i < 5; i++) {
      steps.push({ role: "assistant", text: "run", stopReason: "toolUse" });
      steps.push({ role: "toolResult", text: textOf(15_000, `out${i}`), toolName: "bash" });
    }
    // 186,000 measured: above the threshold (183,616) before pruning, below it after (-29,982).
    steps.push({ role: "assistant", text: "done", usage: { input: 185_000, output: 1000, totalTokens: 186_000 } });
    const sessionId = await importSession(steps);
    const outcome = await checkCompaction(api.ctx, { sessionId, assistant: lastAssistant(sessionId), agent: fakeAgent() });
    expect(outcome.prunedTokens).toBe(29_982);
    expect(outcome.ran).toBeNull();
    const view = await api.call("context:get", { sessionId });
    const notices = view.ok
      ? view.value.messages.filter((m) => m.role === "toolResult" && JSON.stringify(m.content).includes("[Output truncated - 15000 tokens]"))
      : [];
    expect(notices).toHaveLength(2);
  });
});

describe("manual compaction", () => {
  it("B64: emits no automatic-compaction events", async () => {
    const sessionId = await importSession(bigSession);
    const result = await api.call("compaction:run", { sessionId });
    expect(result.ok).toBe(true);
    const names = events.map((e) => e.name);
    expect(names).toContain("session:changed");
    expect(names.filter((name) => name.startsWith("compaction:auto-"))).toEqual([]);
  });
});

