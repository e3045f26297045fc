// The notice's buttons from the keyboard (Chromium, browser mode): Undo on "Deleted … from the
// library" and Dismiss both take themselves away; the focus goes on to the notice's Dismiss, then
// back to the page (the session list), never to the page's body. Undo clicked while the delete
// still updates the list waits for it (as Ctrl+Z does), instead of being dropped.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { holdRequests } from "../helpers/held-requests.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("notice-focus");
  ({ page } = app);
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

/** The focused element's label or text, or "body" when nothing has the focus. */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) return "body";
    return active.getAttribute("aria-label") ?? (active.textContent ?? "").trim();
  });

describe("the notice from the keyboard", () => {
  it("Undo the delete, then Dismiss, keep the focus on the page", async () => {
    const notice = page.getByTestId("notice");
    await page.getByRole("button", { name: /^Delete “Refactor the parser/ }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("alertdialog", { name: "Delete this session from the library?" }).waitFor();
    await page.keyboard.press("Enter");
    await poll(() => notice.textContent()).toContain("Deleted “Refactor the parser");
    await page.getByRole("button", { name: "Undo the delete" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByRole("button", { name: "Undo the delete" }).count()).toBe(0);
    await poll(() => notice.textContent()).toContain("Refactor the parser");
    expect(await focused()).toBe("Dismiss");
    await page.keyboard.press("Enter");
    await poll(() => notice.count()).toBe(0);
    expect(await focused()).not.toBe("body");
    expect(await page.evaluate(() => document.activeElement?.closest(".sidebar, aside, nav") !== null)).toBe(
      true,
    );
  });

  it("Undo clicked while the delete still updates the library waits for it, then restores the session", async () => {
    const notice = page.getByTestId("notice");
    const undo = page.getByRole("button", { name: "Undo the delete" });
    // The delete has answered (the notice offers Undo) but the list it asks for next has not.
    const release = await holdRequests(page, "library:list");
    try {
      await page.getByRole("button", { name: /^Delete “Refactor the parser/ }).click();
      await page
        .getByRole("alertdialog", { name: "Delete this session from the library?" })
        .getByRole("button", { name: "Delete", exact: true })
        .click();
      await poll(() => notice.textContent()).toContain("Deleted “Refactor the parser");
      await undo.click();
    } finally {
      await release();
    }
    await poll(() => notice.textContent()).toContain("Restored “Refactor the parser");
    expect(await undo.count()).toBe(0);
    const listed = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    expect(listed.some((session) => session.title?.startsWith("Refactor the parser"))).toBe(true);
  });
});
