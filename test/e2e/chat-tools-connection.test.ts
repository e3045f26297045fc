// In Debian's Chromium through browser mode, against the local fake OpenAI-compatible server
// (which refuses unanswered tool calls as OpenAI does): a reply with text and tool calls is
// kept with its calls, the composer says they were not run, the LLM view shows them, and the
// next message goes through. Settings → Test connection against an endpoint that never answers
// is stopped by Cancel and by Escape, and the server sees the request go away; Cancel in one tab
// leaves another tab's test running to its result; a Cancel whose request gets there before its
// test's still stops that test.
// Screenshots: test-artifacts/chat-tools/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionDetail, SessionSummary } from "../../core/api/dto.ts";
import type { MessageEntry } from "../../core/session/entries.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, openLibrary, openPage, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "chat-tools");
const KEY_ENV = "CANOPY_E2E_TOOLS_KEY";

let app: E2eChatApp;
let mode: BrowserMode;
let page: Page;
let fake: FakeServer;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);
const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("tools", {
    server: { strictToolMessages: true },
    key: { env: KEY_ENV, value: "sk-e2e-tools" },
    model: { id: "fake-chat", contextWindow: 1_000_000 },
  });
  ({ mode, page, fake } = app);
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

describe("a reply with tool calls", () => {
  it("is kept with its calls, the composer says they were not run, and the next message goes through", async () => {
    const [session] = await api<SessionSummary[]>("library:list", {});
    if (!session) throw new Error("no demo session");
    await openFromSidebar(page, mode, session.id);
    const llm = page.getByTestId("llm-view");

    fake.enqueue({
      type: "reply",
      text: "I will read the parser first.",
      toolCalls: [{ id: "call_e2e", name: "read", arguments: '{"path":"src/parser.ts"}' }],
      finishReason: "tool_calls",
    });
    await page.locator("#composer").fill("Have a look at the parser.");
    await page.locator("#composer").press("Control+Enter");
    const message = page.getByTestId("chat-message");
    await expect
      .poll(() => message.textContent(), { timeout: 15_000 })
      .toContain("The model also asked to run read; Canopy runs no tools, so it was not run");
    expect(await message.getAttribute("role")).toBe("status");

    const detail = await api<SessionDetail>("session:get", { sessionId: session.id });
    const leaf = detail.entries
      .map(({ entry }) => entry)
      .find((entry) => entry.id === detail.summary.viewLeafId);
    expect((leaf as MessageEntry).message).toMatchObject({
      stopReason: "toolUse",
      content: [
        { type: "text", text: "I will read the parser first." },
        { type: "toolCall", id: "call_e2e", name: "read", arguments: { path: "src/parser.ts" } },
      ],
    });
    // The LLM view shows the call in the reply.
    await expect.poll(() => llm.getAttribute("data-leaf-id")).toBe(leaf?.id ?? "");
    await expect
      .poll(() => llm.locator('[data-role="assistant"]').last().textContent())
      .toContain("tool call read");
    await shot("01-tool-calls-not-run");

    // The next message: the strict server answers only if the call got its tool message.
    fake.enqueue({ type: "reply", text: "The parser reads both dialects." });
    await page.locator("#composer").fill("Just tell me what it does.");
    await page.locator("#composer").press("Control+Enter");
    await expect.poll(() => message.textContent(), { timeout: 15_000 }).toMatch(/^Reply \w+ added\.$/);
    await shot("02-next-turn");
  });
});

describe("Settings → Test connection", () => {
  const modelRequests = () => fake.requests.filter((request) => request.path === "/v1/models");

  async function startHangingTest(): Promise<void> {
    fake.enqueue({ type: "hang", route: "models" });
    const before = modelRequests().length;
    await page.getByRole("button", { name: "Test connection" }).click();
    await page.getByTestId("connection-test-running").waitFor();
    await expect.poll(() => modelRequests().length).toBe(before + 1);
    expect(await page.getByRole("button", { name: "Test connection" }).isDisabled()).toBe(true);
  }

  it("Cancel stops a test of an endpoint that never answers, and the request goes away", async () => {
    const settings = page.locator(".settings-panel");
    if ((await settings.getAttribute("open")) === null) await settings.locator("summary").click();
    await page.getByTestId("settings-panel").waitFor();
    await startHangingTest();
    await shot("03-testing-connection");
    const started = Date.now();
    await page.getByTestId("connection-test-running").getByRole("button", { name: "Cancel" }).click();
    const panel = page.getByTestId("settings-panel");
    await expect.poll(() => panel.getByText("Connection test cancelled.").count()).toBe(1);
    // Well before the 15 s timeout.
    expect(Date.now() - started).toBeLessThan(3000);
    await expect.poll(() => modelRequests().at(-1)?.clientClosed).toBe(true);
    expect(await page.getByTestId("connection-test-running").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Test connection" }).isDisabled()).toBe(false);
    await shot("04-connection-test-cancelled");
  });

  it("Escape stops it too, and a test that can answer then says OK", async () => {
    await startHangingTest();
    const started = Date.now();
    await page.keyboard.press("Escape");
    const panel = page.getByTestId("settings-panel");
    await expect.poll(() => page.getByTestId("connection-test-running").count()).toBe(0);
    await expect.poll(() => panel.getByText("Connection test cancelled.").count()).toBe(1);
    expect(Date.now() - started).toBeLessThan(3000);
    await expect.poll(() => modelRequests().at(-1)?.clientClosed).toBe(true);

    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => panel.getByText(/^OK: /).count()).toBe(1);
    expect(await panel.getByText("Connection test cancelled.").count()).toBe(0);
  });

  it("Cancel in one tab stops that tab's test only: another tab's test runs on to its result", async () => {
    const other = await openPage(app);
    try {
      await other.goto(mode.url);
      const openSettings = async (tab: Page) => {
        const settings = tab.locator(".settings-panel");
        if ((await settings.getAttribute("open")) === null) await settings.locator("summary").click();
        await tab.getByTestId("settings-panel").waitFor();
      };
      await openSettings(page);
      await openSettings(other);
      // A slow model list: both tests still wait for it when the first tab cancels.
      fake.enqueue(
        { type: "models", ids: ["fake-model"], headersDelayMs: 2500 },
        { type: "models", ids: ["fake-model"], headersDelayMs: 2500 },
      );
      const before = modelRequests().length;
      await page.getByRole("button", { name: "Test connection" }).click();
      await other.getByRole("button", { name: "Test connection" }).click();
      await expect.poll(() => modelRequests().length).toBe(before + 2);
      await page.getByTestId("connection-test-running").getByRole("button", { name: "Cancel" }).click();
      const mine = page.getByTestId("settings-panel");
      const theirs = other.getByTestId("settings-panel");
      await expect.poll(() => mine.getByText("Connection test cancelled.").count()).toBe(1);
      // The other tab still tests, and then says OK (not "cancelled").
      expect(await other.getByTestId("connection-test-running").count()).toBe(1);
      await expect.poll(() => theirs.getByText(/^OK: /).count(), { timeout: 10_000 }).toBe(1);
      expect(await theirs.getByText("Connection test cancelled.").count()).toBe(0);
      const closed = modelRequests()
        .slice(before)
        .map((request) => request.clientClosed);
      expect(closed.sort()).toEqual([false, true]);
      await other.screenshot({ path: path.join(shots, "05-other-tab-test-goes-on.png") });
    } finally {
      await other.close();
    }
  });

  it("a Cancel whose request overtakes its test's request still stops that test before it asks the model", async () => {
    const settings = page.locator(".settings-panel");
    if ((await settings.getAttribute("open")) === null) await settings.locator("summary").click();
    const panel = page.getByTestId("settings-panel");
    await panel.waitFor();
    // The test's request is held on its way until the Cancel's has been answered.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let heldRequests = 0;
    const isTest = (url: URL) => decodeURIComponent(url.pathname) === "/api/settings:test-connection";
    await page.route(isTest, async (route) => {
      heldRequests += 1;
      await held;
      await route.continue();
    });
    try {
      const before = modelRequests().length;
      const cancelAnswered = page.waitForResponse(
        (response) => decodeURIComponent(new URL(response.url()).pathname) === "/api/settings:cancel-test-connection",
      );
      await page.getByRole("button", { name: "Test connection" }).click();
      await expect.poll(() => heldRequests).toBe(1);
      await page.getByTestId("connection-test-running").getByRole("button", { name: "Cancel" }).click();
      await cancelAnswered;
      release();
      await expect.poll(() => panel.getByText("Connection test cancelled.").count()).toBe(1);
      expect(await panel.getByText(/^OK: /).count()).toBe(0);
      // The model was never asked.
      expect(modelRequests().length).toBe(before);
      expect(await page.getByRole("button", { name: "Test connection" }).isDisabled()).toBe(false);
    } finally {
      release();
      await page.unroute(isTest);
    }
  });
});
