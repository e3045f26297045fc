// The import form's report of a folder with many files that were not imported, in Chromium
// (browser mode): the first five are named with why, and a button shows the others (it used to
// stop at five with nothing saying more were left out), and shows fewer again.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("import-report");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the report of a folder import", () => {
  it("names every file that was not imported, five at first and the others on asking", async () => {
    const folder = path.join(app.work, "not-sessions");
    mkdirSync(folder);
    for (let i = 1; i <= 8; i++) writeFileSync(path.join(folder, `bad${i}.jsonl`), '{"x":1}\n');
    await page.locator("#import-path").fill(folder);
    await page.locator("#import-path").press("Enter");
    const report = page.locator(".import-report");
    await poll(() => report.textContent()).toContain("8 skipped");
    const named = report.locator(".import-problem-path");
    expect(await named.count()).toBe(5);
    const more = report.getByRole("button", { name: "Show the other 3 files" });
    await more.click();
    expect(await named.allTextContents()).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `bad${i}.jsonl`));
    const fewer = report.getByRole("button", { name: "Show fewer" });
    expect(await fewer.evaluate((button) => button === document.activeElement)).toBe(true);
    await fewer.click();
    expect(await named.count()).toBe(5);
  });
});
