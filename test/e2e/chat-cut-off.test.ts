// In Debian's Chromium through browser mode, against the local fake OpenAI-compatible server: a
// streamed reply the server ends part-way (no finish_reason, no [DONE]) on every attempt. The
// composer says the reply failed and was cut off; the LLM view shows the text that came, marked
// as a reply that ended with an error — never as a finished reply.
// Screenshots: test-artifacts/chat-cut-off/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionSummary } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, openLibrary, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "chat-cut-off");

let app: E2eChatApp;
let mode: BrowserMode;
let page: Page;
let fake: FakeServer;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("cut-off", { model: { id: "fake-chat", contextWindow: 1_000_000 } });
  ({ mode, page, fake } = app);
  await api("settings:set", { key: "retry.maxRetries", value: 1 });
  await api("settings:set", { key: "retry.baseDelayMs", value: 1 });
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

describe("a reply cut off part-way on every attempt", () => {
  it("the composer says it was cut off, and the LLM view keeps its text as an error reply", async () => {
    const [session] = await api<SessionSummary[]>("library:list", {});
    if (!session) throw new Error("no demo session");
    await openFromSidebar(page, mode, session.id);
    const llm = page.getByTestId("llm-view");

    const cut = {
      type: "reply" as const,
      chunks: ["The parser ", "reads both ", "dialects."],
      endAfterChunks: 2,
      chunkDelayMs: 30,
    };
    fake.enqueue(cut, cut);
    await page.locator("#composer").fill("What does the parser do?");
    await page.locator("#composer").press("Control+Enter");
    const message = page.getByTestId("chat-message");
    await expect
      .poll(() => message.textContent(), { timeout: 15_000 })
      .toBe(
        "The reply failed: Connection error: the endpoint ended the stream without a finish_reason — the reply was cut off; what it wrote so far is kept",
      );
    expect(fake.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(2);

    const after = await api<ContextView>("context:get", { sessionId: session.id });
    await expect.poll(() => llm.getAttribute("data-leaf-id")).toBe(after.leafId ?? "");
    const reply = llm.locator('[data-role="assistant"]').last();
    await expect.poll(() => reply.textContent()).toContain("The parser reads both");
    expect(await reply.textContent()).toContain(
      "Reply ended with error: Connection error: the endpoint ended the stream",
    );
    await page.screenshot({ path: path.join(shots, "01-cut-off-reply.png") });
  });
});
