// Keyboard-only use of the modal export dialog in Chromium: Tab and Shift+Tab cycle through its
// own controls and never reach the page it covers, so Escape still closes it after any number of
// Tabs and Enter never acts behind it.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserMode, startBrowserMode } from "../../main/serve.ts";
import { buildRendererInto } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { launchChromium } from "../helpers/chromium.ts";

let mode: BrowserMode;
let browser: Browser;
let page: Page;
let work: string | undefined;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "canopy-dialog-keyboard-e2e-"));
  const rendererDir = await buildRendererInto(path.join(work, "renderer"));
  mode = await startBrowserMode({ dbPath: path.join(work, "library.db"), rendererDir, watch: false });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await mode?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Whether the focused element is inside the export dialog. */
const focusInDialog = async () =>
  (await page.locator('[role="dialog"][aria-labelledby="export-dialog-title"] :focus').count()) === 1;

describe("the export dialog with the keyboard only", () => {
  it("keeps Tab and Shift+Tab inside the dialog, so Escape closes it after any number of Tabs", async () => {
    await page.goto(mode.url);
    await page.getByTestId("tree-canvas").waitFor();
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.waitFor();
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Tab");
      expect(await focusInDialog()).toBe(true);
    }
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Shift+Tab");
      expect(await focusInDialog()).toBe(true);
    }
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
  });
});
