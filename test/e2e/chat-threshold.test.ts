// Issue 5 acceptance in Debian's Chromium (browser mode, bundled demo data, the local fake
// OpenAI-compatible server): the composer continues a demo session from its view leaf; a reply
// whose usage passes contextWindow − reserveTokens triggers a threshold compaction and one
// auto-continue, which the tree (compaction node, then "Continue if you have next steps.") and
// the LLM view (starts with the summary) show. Escape during a slow reply leaves the session
// unchanged and puts the text back. Without a model, the composer's message links to Settings,
// whose key section shows browser mode's refusal. Screenshots: test-artifacts/chat/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionDetail, SessionSummary } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar, viewportSettled } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, openLibrary, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer, RequestMatcher } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "chat");
const KEY_ENV = "CANOPY_E2E_CHAT_KEY";
const SUMMARY_TEXT = "## Goal\nE2E-CHAT-SUMMARY: keep refactoring the parser.";
const CONTINUE_PROMPT = "Continue if you have next steps.";
const RESERVE = 16384;

/** Chat turns send the LLM view as is; summary calls carry an output cap. */
const isChat: RequestMatcher = (body) => !("max_tokens" in body);

let app: E2eChatApp;
let mode: BrowserMode;
let page: Page;
let fake: FakeServer;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);
const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

async function demoSessions(): Promise<SessionSummary[]> {
  return api<SessionSummary[]>("library:list", {});
}

function openSession(sessionId: string): Promise<ContextView> {
  return openFromSidebar(page, mode, sessionId);
}

async function entryIds(sessionId: string): Promise<string[]> {
  const detail = await api<SessionDetail>("session:get", { sessionId });
  return detail.entries.map(({ entry }) => entry.id);
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("chat", {
    server: { defaultText: SUMMARY_TEXT },
    key: { env: KEY_ENV, value: "sk-e2e-chat" },
  });
  ({ mode, page, fake } = app);
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

describe("continuing a session from the composer", () => {
  it("without a model, says so and links to the settings, where browser mode explains keys", async () => {
    const [session] = await demoSessions();
    if (!session) throw new Error("no demo session");
    await openSession(session.id);
    const before = await entryIds(session.id);
    await page.locator("#composer").fill("Hello?");
    await page.getByRole("button", { name: "Send" }).click();
    const message = page.getByTestId("chat-message");
    await expect.poll(() => message.textContent()).toContain("No model configured");
    expect(await page.locator("#composer").inputValue()).toBe("Hello?");
    await message.getByRole("button", { name: "Open settings" }).click();
    await page.getByTestId("settings-panel").waitFor();
    await expect.poll(() => page.getByTestId("secrets-note").textContent()).toContain("environment");
    await shot("01-no-model-settings");
    expect(await entryIds(session.id)).toEqual(before);
    await page.locator("#composer").fill("");
  });

  it("crosses the threshold: compacts, auto-continues once, and the tree and LLM view show it", async () => {
    const sessions = await demoSessions();
    const session = sessions.find((s) => s.title?.startsWith("Refactor the parser")) ?? sessions[0];
    if (!session) throw new Error("no demo session");
    const start = await openSession(session.id);
    // A window the demo's last reply stays under, but the next reply (usage below) passes.
    const measured = start.measuredTokens ?? start.estimatedTokens;
    const contextWindow = Math.ceil((measured + RESERVE + 8000) / 1000) * 1000;
    await api("settings:set", {
      key: "model",
      value: { baseUrl: fake.baseUrl, id: "fake-chat", contextWindow, apiKeyEnv: KEY_ENV, stream: true },
    });
    expect(measured).toBeLessThan(contextWindow - RESERVE);

    // The settings now show the model's key as set from the environment (never its value).
    await page.locator(".settings-panel summary").click();
    await page.locator(".settings-panel summary").click();
    await expect
      .poll(() => page.locator(`[data-secret="${KEY_ENV}"] [data-testid="secret-state"]`).textContent())
      .toBe("set (from the environment)");
    expect(await page.locator(`#secret-${KEY_ENV}`).count()).toBe(0);

    const before = await entryIds(session.id);
    // The rest of the reply comes once its start has been seen (150 ms later raced a loaded machine).
    let releaseRest = () => {};
    const holdRest = new Promise<void>((resolve) => {
      releaseRest = resolve;
    });
    fake.enqueue({
      type: "reply",
      chunks: ["The parser ", "now reads ", "the omp dialect."],
      chunkDelayMs: 150,
      holdRest,
      usage: { prompt_tokens: contextWindow - 2000, completion_tokens: 500 },
      match: isChat,
    });
    await page.locator("#composer").fill("Please finish the parser refactor.");
    await page.locator("#composer").press("Control+Enter");
    await expect.poll(() => page.getByTestId("chat-reply").textContent()).toContain("The parser");
    await shot("02-streaming");
    releaseRest();

    await expect.poll(() => page.getByTestId("chat-message").textContent(), { timeout: 15_000 }).toMatch(
      /passed the threshold: compaction \w+ summarized/,
    );
    expect(await page.getByTestId("auto-compaction").getAttribute("data-status")).toBe("done");
    expect(await page.getByTestId("auto-compaction").getAttribute("data-reason")).toBe("threshold");
    expect(await page.locator("#composer").inputValue()).toBe("");

    // What was appended: user, reply, compaction, the auto-continue prompt and its reply.
    const detail = await api<SessionDetail>("session:get", { sessionId: session.id });
    const added = detail.entries.map(({ entry }) => entry).filter((entry) => !before.includes(entry.id));
    expect(added.map((entry) => entry.type)).toEqual(["message", "message", "compaction", "message", "message"]);
    const [, , compaction, prompt, reply] = added as [SessionEntry, SessionEntry, SessionEntry, SessionEntry, SessionEntry];
    expect(prompt.parentId).toBe(compaction.id);
    expect(JSON.stringify(prompt)).toContain(CONTINUE_PROMPT);
    expect(detail.summary.viewLeafId).toBe(reply.id);
    // Auto-continue ran once: one more chat request after the summary, no second compaction.
    expect(added.filter((entry) => entry.type === "compaction")).toHaveLength(1);

    // The tree: the compaction node, and after it the auto-continue message.
    await page.getByRole("button", { name: "Go to leaf" }).click();
    const canvas = page.getByTestId("tree-canvas");
    await expect.poll(() => canvas.locator(`[data-entry-id="${reply.id}"]`).first().getAttribute("data-view-leaf")).toBe("true");
    const collapse = page.getByLabel("Collapse long chains");
    if (await collapse.isChecked()) await collapse.uncheck();
    await page.getByRole("button", { name: "Go to leaf" }).click();
    await viewportSettled(page);
    // Centred on the leaf, the canvas shows the auto-continue message above it; the compaction
    // above that is off this window's canvas once the pan has ended (a check that came during
    // the pan saw it; a loaded machine's came after). The arrow up from the message selects it,
    // and the canvas shows it.
    const promptNode = canvas.locator(`.tree-node[data-entry-id="${prompt.id}"]`);
    await expect.poll(() => promptNode.textContent()).toContain("Continue if you have");
    const selected = () =>
      page.evaluate(`document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`);
    await promptNode.click();
    await expect.poll(selected).toBe(prompt.id);
    await page.keyboard.press("ArrowUp");
    await expect.poll(selected).toBe(compaction.id);
    expect(await canvas.locator(`.tree-node[data-entry-id="${compaction.id}"]`).getAttribute("data-kind")).toBe(
      "compaction",
    );
    await shot("03-tree-after-threshold-compaction");
    // Back to the view leaf's LLM view.
    await page.keyboard.press("Escape");
    await expect.poll(selected).toBe(null);

    // The LLM view starts with the summary.
    const view = await api<ContextView>("context:get", { sessionId: session.id });
    expect(view.compactionId).toBe(compaction.id);
    const llm = page.getByTestId("llm-view");
    await expect.poll(() => llm.getAttribute("data-leaf-id")).toBe(reply.id);
    await expect.poll(() => llm.getAttribute("data-message-count")).toBe(String(view.messages.length));
    const first = llm.locator("[data-role]").first();
    await expect.poll(() => first.textContent()).toContain("E2E-CHAT-SUMMARY");
    await shot("04-llm-view-starts-with-summary");
  });

  it("Escape during a slow reply changes nothing and puts the text back", async () => {
    const sessions = await demoSessions();
    const session = sessions.find((s) => !s.title?.startsWith("Refactor the parser")) ?? sessions[0];
    if (!session) throw new Error("no demo session");
    const start = await openSession(session.id);
    // A window far above this session's measured usage: the automatic check before the prompt
    // must not compact (that compaction would rightly stay after the reply is cancelled).
    await api("settings:set", {
      key: "model",
      value: { baseUrl: fake.baseUrl, id: "fake-chat", contextWindow: 1_000_000, apiKeyEnv: KEY_ENV, stream: true },
    });
    const before = await entryIds(session.id);
    fake.enqueue({
      type: "reply",
      chunks: ["Let me think ", "about this ", "for a very ", "long time."],
      // Longer than the test: Escape must find it running however slow the steps before it are
      // (1.5 s a chunk let it finish first on a loaded machine).
      chunkDelayMs: 60_000,
      match: isChat,
    });
    const text = "Summarize what we did so far.";
    await page.locator("#composer").fill(text);
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByTestId("chat-reply").textContent()).toContain("Let me think");
    await shot("05-slow-reply");
    await page.locator("#composer").press("Escape");
    await expect.poll(() => page.getByTestId("chat-message").textContent()).toContain("Reply cancelled");
    expect(await page.locator("#composer").inputValue()).toBe(text);
    await expect.poll(() => page.getByTestId("chat-stream").count()).toBe(0);
    await shot("06-cancelled");
    expect(await entryIds(session.id)).toEqual(before);
    const after = await api<ContextView>("context:get", { sessionId: session.id });
    expect(after.leafId).toBe(start.leafId);
    expect(await page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(start.leafId ?? "");
  });
});
