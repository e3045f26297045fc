// The keyboard shortcuts in Chromium through browser mode: "?" and the sidebar's "?" button list
// every shortcut, Escape closes the list and gives the focus back; "?" typed in a text field stays
// text; "/" and Ctrl+K put the keyboard in the search box.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHORTCUT_GROUPS, SHOW_SHORTCUTS_EVENT } from "../../renderer/src/features/help/shortcut-list.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("keys");
  ({ page } = app);
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

const dialog = () => page.getByRole("dialog", { name: "Keyboard shortcuts" });
// Nothing focused: keys go to the page itself (body cannot take the focus, so blur what has it).
const focusNothing = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
const activeId = () => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName);
// The list takes the focus (on Close) in an effect after it appears: a key pressed before that
// would go elsewhere.
const focusOnClose = () =>
  expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Close");

describe("keyboard shortcuts", () => {
  it('"?" lists every shortcut; Escape closes the list', async () => {
    await focusNothing();
    await page.keyboard.press("Shift+Slash");
    await dialog().waitFor();
    for (const group of SHORTCUT_GROUPS) {
      const section = dialog().getByRole("group", { name: group.title });
      expect(await section.locator(".shortcut").count()).toBe(group.shortcuts.length);
      for (const shortcut of group.shortcuts) expect(await section.textContent()).toContain(shortcut.what);
    }
    // The keys the tree answers that the list once left out (TreeCanvas, EntryNode, ChainNode).
    const tree = (await dialog().getByRole("group", { name: "Session tree" }).textContent()) ?? "";
    expect(tree).toContain("Space");
    expect(tree).toMatch(/Enter.*collapsed run, expand it/);
    await focusOnClose();
    // Escape closes the list and nothing else: it does not reach the window, where the app-wide
    // Escape cancels running work.
    await page.evaluate(() => {
      const seen = window as unknown as { escapesSeen: number };
      seen.escapesSeen = 0;
      window.addEventListener("keydown", (event) => {
        if (event.key === "Escape") seen.escapesSeen += 1;
      });
    });
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
    expect(await page.evaluate(() => (window as unknown as { escapesSeen: number }).escapesSeen)).toBe(0);
  });

  it("opens at its top, its first shortcuts in sight, though the focus is on Close at its end", async () => {
    await focusNothing();
    await page.keyboard.press("Shift+Slash");
    await dialog().waitFor();
    await focusOnClose();
    // On the 1280×800 page the list is taller than its box, which scrolls.
    const box = await dialog().evaluate((element) => ({
      scrollTop: element.scrollTop,
      scrolls: element.scrollHeight > element.clientHeight,
    }));
    expect(box).toEqual({ scrollTop: 0, scrolls: true });
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
  });

  it('the sidebar\'s "?" button opens the list, and the focus goes back to it when it closes', async () => {
    const button = page.getByRole("button", { name: "Keyboard shortcuts" });
    await button.click();
    await dialog().waitFor();
    await focusOnClose();
    // Tab stays inside the list.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null)).toBe(true);
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Keyboard shortcuts",
    );
  });

  it("Help › Keyboard Shortcuts (the desktop menu's command) opens the list", async () => {
    await page.evaluate((name) => window.dispatchEvent(new Event(name)), SHOW_SHORTCUTS_EVENT);
    await dialog().waitFor();
    await focusOnClose();
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
  });

  it('"?" and "/" typed in a text field stay text', async () => {
    const composer = page.locator("#composer");
    await composer.fill("");
    await composer.focus();
    await page.keyboard.type("why? a/b");
    expect(await composer.inputValue()).toBe("why? a/b");
    expect(await dialog().count()).toBe(0);
    expect(await activeId()).toBe("composer");
    await composer.fill("");
  });

  it('"/" and Ctrl+K put the keyboard in the search box', async () => {
    await focusNothing();
    await page.keyboard.press("Slash");
    expect(await activeId()).toBe("library-search");
    expect(await page.locator("#library-search").inputValue()).toBe("");
    await page.locator("#composer").focus();
    await page.keyboard.press("Control+K");
    expect(await activeId()).toBe("library-search");
  });
});
