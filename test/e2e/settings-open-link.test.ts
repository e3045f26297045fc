// "Open settings" under the composer's "No model configured" message, in Debian's Chromium
// (browser mode, demo sessions, the tests' 1280×800 page): the settings open in the sidebar with
// the model form in sight. They opened at the bottom of the sidebar with only their heading
// showing, the model form below the window's edge, so the link seemed to do nothing.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar, poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("settings-open-link");
  page = app.page;
  // A library of a few sessions more than the demos, as a user's: the list fills the sidebar.
  for (const file of ["real-large-session.v1.jsonl", "tree-03.jsonl"]) {
    await apiCall<ImportReport>(app.mode, "library:import", { path: fixturePath(file) });
  }
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** Whether the whole of the element is inside the page's window. */
async function inSight(selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return false;
  return box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width;
}

describe("the composer's Open settings link", () => {
  it("opens the settings with the model form in sight", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    await openFromSidebar(page, app.mode, session.id);
    await page.locator("#composer").fill("Hello?");
    await page.getByRole("button", { name: "Send" }).click();
    const message = page.getByTestId("chat-message");
    await poll(() => message.textContent()).toContain("No model configured");
    await message.getByRole("button", { name: "Open settings" }).click();
    await page.getByTestId("settings-panel").waitFor();
    await poll(() => inSight(".settings-panel summary")).toBe(true);
    await poll(() => inSight('.settings-panel legend:has-text("Model")')).toBe(true);
  });

  it("pressed from the keyboard, puts the focus in the model form it shows", async () => {
    await page.locator(".settings-panel summary").click();
    await poll(() =>
      page.locator(".settings-panel").evaluate((details) => (details as HTMLDetailsElement).open),
    ).toBe(false);
    await page.locator("#composer").focus();
    await page.keyboard.press("Control+Enter");
    const link = page.getByTestId("chat-message").getByRole("button", { name: "Open settings" });
    await link.focus();
    await page.keyboard.press("Enter");
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe("setting-model-baseUrl");
    expect(await inSight("#setting-model-baseUrl")).toBe(true);
  });
});
