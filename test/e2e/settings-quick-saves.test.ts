// Settings saved again before the previous save of the same field has answered (Debian's
// Chromium, browser mode, the answers slowed): a checkbox ticked off and on quickly, a number
// saved twice in a row. Each save named the value the field showed before the first answer as
// `expected`, so the second was refused as "changed elsewhere" and the first one's value stayed.
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Settings } from "../../core/settings/schema.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

const stored = () => apiCall<Settings>(app.mode, "settings:get", {});
const isSave = (url: URL) => decodeURIComponent(url.pathname) === "/api/settings:set";
const slow = async (route: Route) => {
  await new Promise((resolve) => setTimeout(resolve, 600));
  await route.continue().catch(() => undefined);
};
const alerts = () => page.getByTestId("settings-form").locator('[role="alert"]').count();

beforeAll(async () => {
  app = await startE2eApp("settings-quick-saves");
  page = app.page;
  await page.goto(app.mode.url);
  await page.getByTestId("llm-view").waitFor();
  await page.getByText("Settings and prompts").click();
  await page.getByTestId("settings-form").waitFor();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a setting saved again while its last save is on its way", () => {
  it("saves each change in order: a checkbox ticked off and on is on, a number saved twice is the second", async () => {
    await page.route(isSave, slow);
    try {
      const box = page.getByTestId("settings-form").getByLabel("Automatic compaction");
      expect(await box.isChecked()).toBe(true);
      await box.click();
      await box.click();
      await poll(() => box.getAttribute("aria-busy")).toBe("false");
      expect(await alerts()).toBe(0);
      expect((await stored()).compaction.enabled).toBe(true);
      expect(await box.isChecked()).toBe(true);

      const retries = page.locator("#setting-retry-maxRetries");
      await retries.fill("5");
      await retries.press("Enter");
      await retries.fill("6");
      await retries.press("Enter");
      await poll(() => retries.getAttribute("aria-busy")).toBe("false");
      expect(await alerts()).toBe(0);
      expect((await stored()).retry.maxRetries).toBe(6);
      expect(await retries.inputValue()).toBe("6");
    } finally {
      await page.unroute(isSave, slow);
    }
  });
});
