// A chat turn's threshold compaction whose summary reply stopped at the output limit
// (finish_reason "length"), in Debian's Chromium (browser mode, demo data, the fake
// OpenAI-compatible server): the composer's line and the automatic compaction's status line
// both say which summary was cut off and at what limit. Screenshot: test-artifacts/chat-cut-off/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ContextView, SessionSummary } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, openLibrary, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer, RequestMatcher } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "chat-cut-off");
const KEY_ENV = "CANOPY_E2E_CUT_KEY";
const RESERVE = 16384;
const CUT = /The history summary was cut off at the output limit \(13107 tokens\) and saved as it came/;

const isChat: RequestMatcher = (body) => !("max_tokens" in body);
const isSummary: RequestMatcher = (body) => "max_tokens" in body;

let app: E2eChatApp;
let mode: BrowserMode;
let page: Page;
let fake: FakeServer;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("chat-cut-off", {
    server: { defaultText: "## Goal\nWhole summary." },
    key: { env: KEY_ENV, value: "sk-e2e-cut" },
  });
  ({ mode, page, fake } = app);
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

it("a threshold compaction whose summary was cut off says so in the composer's and the status line", async () => {
  const sessions = await api<SessionSummary[]>("library:list", {});
  const session = sessions.find((s) => s.title?.startsWith("Refactor the parser")) ?? sessions[0];
  if (!session) throw new Error("no demo session");
  const start: ContextView = await openFromSidebar(page, mode, session.id);
  const measured = start.measuredTokens ?? start.estimatedTokens;
  const contextWindow = Math.ceil((measured + RESERVE + 8000) / 1000) * 1000;
  await api("settings:set", {
    key: "model",
    value: { baseUrl: fake.baseUrl, id: "fake-chat", contextWindow, apiKeyEnv: KEY_ENV, stream: true },
  });
  await api("settings:set", { key: "compaction.autoContinue", value: false });
  fake.enqueue(
    {
      type: "reply",
      text: "Big reply.",
      usage: { prompt_tokens: contextWindow - 2000, completion_tokens: 500 },
      match: isChat,
    },
    { type: "reply", text: "## Goal\nHalf a summ", finishReason: "length", match: isSummary },
  );
  await page.locator("#composer").fill("Please finish the parser refactor.");
  await page.getByRole("button", { name: "Send" }).click();
  const message = page.getByTestId("chat-message");
  await expect
    .poll(() => message.textContent(), { timeout: 15_000 })
    .toMatch(/passed the threshold: compaction \w+ summarized/);
  expect(await message.textContent()).toMatch(CUT);
  const status = page.getByTestId("auto-compaction");
  expect(await status.getAttribute("data-status")).toBe("done");
  expect(await status.textContent()).toMatch(CUT);
  await page.screenshot({ path: path.join(shots, "01-cut-off.png") });
});
