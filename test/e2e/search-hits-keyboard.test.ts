// The library search's hits from the keyboard, in Chromium (browser mode): ArrowDown in the search
// box goes to the first hit, the arrows move between hits (and back up into the box), and Enter
// opens the focused hit with the focus left on it, so the next one is one ArrowDown away. (The
// arrows did nothing: the hits were reached only with Tab, one per hit, past the box's clear button.)
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("search-hits-keyboard");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** Which hit has the focus (its index among the hits), "box" for the search box, else null. */
async function focused(): Promise<number | "box" | null> {
  return (await page.evaluate(`(() => {
    const active = document.activeElement;
    if (active?.id === "library-search") return "box";
    const at = [...document.querySelectorAll(".search-hit")].indexOf(active);
    return at < 0 ? null : at;
  })()`)) as number | "box" | null;
}

describe("the search hits from the keyboard", () => {
  it("are reached with ArrowDown from the box, walked with the arrows and opened with Enter", async () => {
    await page.keyboard.press("/");
    await poll(focused).toBe("box");
    await page.keyboard.type("parser");
    await poll(() => page.locator(".search-hit").count()).toBeGreaterThan(2);
    await page.keyboard.press("ArrowDown");
    await poll(focused).toBe(0);
    await page.keyboard.press("ArrowDown");
    await poll(focused).toBe(1);
    const second = page.locator(".search-hit").nth(1);
    const session = await second.getAttribute("data-hit-session-id");
    const entry = await second.getAttribute("data-hit-entry-id");
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session);
    await poll(() => page.evaluate(() => window.location.hash)).toContain(`leaf=${entry}`);
    expect(await focused()).toBe(1);
    await page.keyboard.press("ArrowUp");
    await poll(focused).toBe(0);
    await page.keyboard.press("ArrowUp");
    await poll(focused).toBe("box");
  });
});
