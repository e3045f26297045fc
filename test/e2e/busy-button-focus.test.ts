// Buttons that start work and are unavailable while it runs (Import, Scan agent folders, Test
// connection), pressed from the keyboard in Chromium (browser mode): the focus stays on the
// button instead of dropping to the page's body, so Tab goes on from there. They used to be
// `disabled` while busy, and a disabled button loses the focus. "Use the defaults", which has
// nothing left to do afterwards, hands the focus to the folder list.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("busy-button-focus");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** The focused element's text, or "(body)" when the focus is on the page itself. */
const focused = () =>
  page.evaluate(() =>
    document.activeElement === null || document.activeElement === document.body
      ? "(body)"
      : (document.activeElement.textContent ?? ""),
  );

describe("a busy button pressed from the keyboard", () => {
  it("Import keeps the focus while the file is imported and after", async () => {
    await page.locator("#import-path").fill(fixturePath("tree-00.jsonl"));
    await page.getByRole("button", { name: "Import", exact: true }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.locator(".import-report").textContent()).toContain("1 imported");
    expect(await focused()).toBe("Import");
  });

  it("Scan agent folders keeps the focus, whatever the scan found", async () => {
    const scan = page.getByRole("button", { name: "Scan agent folders" });
    await scan.focus();
    await page.keyboard.press("Enter");
    // This library's HOME has no agent folders: the scan says so.
    await poll(() => page.locator(".import-form [role=alert]").textContent()).toContain(
      "agent session folders",
    );
    expect(await focused()).toBe("Scan agent folders");
  });

  it("Test connection keeps the focus once the test has answered", async () => {
    await page.getByText("Settings and prompts").click();
    await page.getByTestId("settings-form").waitFor();
    await page.getByRole("button", { name: "Test connection" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("settings-panel").getByRole("status").first().textContent()).toMatch(
      /OK|Failed/,
    );
    expect(await focused()).toBe("Test connection");
  });

  it("Use the defaults, unavailable once they are in effect, leaves the focus in the folder list", async () => {
    // Settings are open from the test before.
    const section = page.getByTestId("agent-folders");
    const box = section.getByLabel("Agent session folders");
    await box.fill(app.work);
    await section.getByRole("button", { name: "Save folders" }).click();
    await poll(() => section.getByText("Folders saved.").count()).toBe(1);
    await section.getByRole("button", { name: "Use the defaults" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => section.getByText("Back to the default folders.").count()).toBe(1);
    expect(await box.evaluate((element) => element === document.activeElement)).toBe(true);
  });
});
