// The first screen of an empty library (no demo sessions), in Debian's Chromium (browser mode):
// the session bar's Compact… says what it needs, as the desktop menu's Session › Compact… does.
// It did nothing at all when pressed, with no session to compact.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("empty-library", { serve: { seedDemo: false } });
  page = app.page;
  await page.goto(app.mode.url);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("an empty library", () => {
  it("Compact… with no session open says to select one", async () => {
    await poll(() => page.getByText("No sessions yet.").count()).toBe(1);
    await page.getByRole("button", { name: "Compact…" }).click();
    await poll(() => page.getByTestId("notice").textContent()).toContain("Select a session to compact.");
  });
});
