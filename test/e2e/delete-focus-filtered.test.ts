// Deleting from the keyboard the only session a filter shows, in Chromium (browser mode): the
// focus goes to the filter box (the list is empty now), not to the page, where Tab would start
// over from the top. It was lost to the page: the focus went to the first session of the list,
// and there was none.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("delete-focus-filtered");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** The focused element, as its tag and class (or id). */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active ? `${active.tagName.toLowerCase()}.${active.className || active.id}` : "none";
  });

describe("deleting the only session a filter shows, from the keyboard", () => {
  it("leaves the focus in the filter box", async () => {
    await page.locator(".session-filter").fill("Session store tree");
    await poll(() => page.locator("button.session").count()).toBe(1);
    const remove = page.getByRole("button", { name: "Delete “Session store tree” from the library" });
    await remove.focus();
    await page.keyboard.press("Enter");
    await poll(focused).toBe("button.");
    await page.keyboard.press("Enter");
    await poll(() => page.locator("button.session").count()).toBe(0);
    await poll(focused).toBe("input.session-filter");
  });
});
