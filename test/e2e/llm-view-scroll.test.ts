// The LLM view panel in Chromium when another session is opened: it starts at the top (header
// and context bar in sight), not at the scroll offset the previous session's list was left at;
// a deep link to an entry still scrolls that entry into view.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("llm-scroll");
  ({ mode, page } = app);
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

const panelScrollTop = () => page.locator("section.right").evaluate((element) => element.scrollTop);

describe("the LLM view panel across sessions", () => {
  it("opens another session at the top of its view, not at the previous session's scroll offset", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const [first, second] = sessions;
    if (!first || !second) throw new Error("the demo library has fewer than two sessions");
    await page.goto(`${mode.url}#/session/${encodeURIComponent(first.id)}`);
    await poll(() => page.getByTestId("llm-view").getAttribute("data-message-count")).not.toBeNull();
    await page
      .locator("section.right")
      .evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
    expect(await panelScrollTop()).toBeGreaterThan(0);

    await page.locator(`.session-groups [data-session-id="${second.id}"]`).click();
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(second.id);
    await poll(panelScrollTop).toBe(0);
    expect(await page.getByTestId("llm-view").locator(".llm-view-header").isVisible()).toBe(true);
  });

  it("a deep link to an entry of another session still scrolls that entry into view", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const longest = sessions.reduce((a, b) => (b.messageCount > a.messageCount ? b : a));
    const open = sessions.find((session) => session.id !== longest.id);
    if (!open || !longest.viewLeafId) throw new Error("the demo library has fewer than two sessions");
    await page.goto(`${mode.url}#/session/${encodeURIComponent(open.id)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(open.id);
    // Only the hash changes (no reload), as when a link inside the app is followed.
    const hash = `#/session/${encodeURIComponent(longest.id)}?leaf=${longest.viewLeafId}`;
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
    const selected = page.getByTestId("llm-view").locator('[aria-current="true"]');
    await selected.waitFor();
    await poll(panelScrollTop).toBeGreaterThan(0);
    expect(await selected.isVisible()).toBe(true);
  });
});
