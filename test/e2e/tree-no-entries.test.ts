// A session without entries (its file holds only the header, as an agent writes it before the
// first message), in Chromium (browser mode): the canvas says the session has no entries yet.
// It said "This filter shows no entries of this session.", which sent the user to try other
// filters for entries that were not there.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("tree-no-entries");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a session without entries", () => {
  it("says so on the canvas instead of blaming the filter", async () => {
    const file = path.join(app.work, "header-only.jsonl");
    const header = {
      type: "session",
      version: 3,
      id: "header-only-1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    };
    writeFileSync(file, `${JSON.stringify(header)}\n`);
    await page.locator("#import-path").fill(file);
    await page.locator("#import-path").press("Enter");
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe("header-only-1");
    await poll(() => page.locator(".tree-empty").textContent()).toBe("This session has no entries yet.");
  });
});
