// A compaction with no model configured (Debian's Chromium, browser mode): the built-in offline
// summarizer writes the summary, so the compaction panel's running line never says it waits for
// the model's first token (it used to, "… 0 s", for the moment the job ran).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { recordRunningTexts, runningTexts } from "../helpers/job-page.ts";

let app: E2eApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp("offline-waiting");
  ({ page } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a compaction by the built-in offline summarizer", () => {
  it("says the offline summarizer writes the summary, never that it waits for a model", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Compact…" }).click();
    await page.getByTestId("compaction-plan").waitFor();
    await recordRunningTexts(page);
    await page.getByRole("button", { name: "Run compaction" }).click();
    await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/^Compaction \S+ added/);
    const texts = await runningTexts(page);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).not.toContain("model's first token");
    expect(texts.some((text) => text.includes("The built-in offline summarizer is writing the summary…"))).toBe(true);
  });
});
