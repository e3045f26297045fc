// The composer from the keyboard (Debian's Chromium, browser mode, a local fake OpenAI-compatible
// server): Send, Continue from here and Cancel each go away or become unavailable once pressed,
// which dropped the keyboard focus on the page's body; the message box keeps it instead, so
// Escape still cancels the reply and the next message can be typed.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { planSession } from "../helpers/plan-session.ts";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

/** The focused element's id, else its text, or "body" when nothing has the focus. */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) return "body";
    return active.id || (active.textContent ?? "").trim();
  });
const streaming = () => page.getByTestId("chat-stream").count();

beforeAll(async () => {
  app = await startE2eChatApp("composer-focus", {
    key: { env: "CANOPY_E2E_COMPOSER_FOCUS_KEY", value: "sk-e2e-composer-focus" },
    model: { id: "fake-composer-focus", contextWindow: 128000 },
  });
  ({ page, fake } = app);
  // Ends with a user message: "Continue from here" is offered.
  const { header, line, turn } = planSession("0195f0c2-2222-7000-8000-00000000c0f0", "/work/composer", "2026-02-01T10:00:00.000Z");
  const file = path.join(app.work, "composer-focus.jsonl");
  writeFileSync(file, `${[header, ...turn(1), line("u2", "a1", "user", 10)].join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the composer's buttons pressed from the keyboard", () => {
  it("Continue from here, then Cancel: the message box has the focus throughout", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "Too late.", headersDelayMs: 30_000 });
    await page.getByRole("button", { name: "Continue from here" }).focus();
    await page.keyboard.press("Enter");
    await poll(streaming).toBe(1);
    expect(await focused()).toBe("composer");
    // Cancel, reached with Tab, pressed with Enter: the reply stops, the box has the focus.
    await page.getByTestId("composer").getByRole("button", { name: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    await poll(streaming).toBe(0);
    expect(await focused()).toBe("composer");
  });

  it("Send: the message box has the focus while the reply streams and after", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "Answered.", headersDelayMs: 1_500 });
    await page.locator("#composer").fill("One more question");
    await page.getByRole("button", { name: "Send" }).focus();
    await page.keyboard.press("Enter");
    await poll(streaming).toBe(1);
    expect(await focused()).toBe("composer");
    await poll(streaming).toBe(0);
    expect(await focused()).toBe("composer");
  });
});
