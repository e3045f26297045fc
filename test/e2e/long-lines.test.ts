// The line above the tree that says what an edit did, with a long word in it (a label without
// spaces), in Debian's Chromium (browser mode, demo sessions): it wraps inside the middle column.
// It ran on past the column, under the LLM view, and was cut there.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar, poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("long-lines");
  page = app.page;
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a long word in the line an edit leaves", () => {
  it("wraps inside the middle column", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    await openFromSidebar(page, app.mode, session.id);
    const label = "releasecandidate_".repeat(12);
    await page.getByPlaceholder("Label").fill(label);
    await page.getByRole("button", { name: "Set label" }).click();
    const line = page.getByTestId("job-message");
    await poll(() => line.textContent()).toContain(label);
    const fits = await line.evaluate((element) => {
      const column = element.closest(".center");
      const right = column?.getBoundingClientRect().right ?? 0;
      return element.scrollWidth <= element.clientWidth && element.getBoundingClientRect().right <= right;
    });
    expect(fits).toBe(true);
  });
});
