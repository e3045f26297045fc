// The search results shown in the sidebar follow the library, in Chromium (browser mode): a session
// imported while a search is shown adds its hits, deleting a session takes its hits away, and
// undoing the delete brings them back — without typing the query again, in a second tab as well. (The hits used to stay as
// they were when the query was typed: a deleted session's hit stayed, an imported one's was missing.)
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, openPage, startE2eApp } from "../helpers/e2e-app.ts";
import { sessionLines } from "../helpers/entry-lines.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("search-follows-library");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** What the results say: the count line, or the no-match line. */
async function resultsText(on: Page = page): Promise<string> {
  return (await on.locator(".search-results").textContent()) ?? "";
}

describe("the shown search results", () => {
  it("gain an imported session's hits, lose a deleted one's and get them back on undo", async () => {
    const session = sessionLines("follow-search-1");
    session.user("zanzibarquux", null);
    const file = session.write(path.join(app.work, "follow.jsonl"));
    const search = page.locator("#library-search");
    await search.fill("zanzibarquux");
    await poll(() => resultsText()).toContain("No message matches");

    await page.locator("#import-path").fill(file);
    await page.locator("#import-path").press("Enter");
    await poll(() => page.locator(".import-report").textContent()).toContain("1 imported");
    await poll(() => resultsText()).toContain("1 match");

    await page.getByRole("button", { name: "Delete “zanzibarquux” from the library" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await poll(() =>
      page.getByRole("button", { name: "Delete “zanzibarquux” from the library" }).count(),
    ).toBe(0);
    await poll(() => resultsText()).toContain("No message matches");

    await page.locator(".notice").getByRole("button", { name: "Undo" }).click();
    await poll(() =>
      page.getByRole("button", { name: "Delete “zanzibarquux” from the library" }).count(),
    ).toBe(1);
    await poll(() => resultsText()).toContain("1 match");
  });

  it("follow a delete and its undo made in another tab", async () => {
    const other = await openPage(app);
    await openLibrary({ mode: app.mode, page: other });
    await other.locator("#library-search").fill("zanzibarquux");
    await poll(() => resultsText(other)).toContain("1 match");

    await page.getByRole("button", { name: "Delete “zanzibarquux” from the library" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await poll(() => resultsText(other)).toContain("No message matches");

    await page.locator(".notice").getByRole("button", { name: "Undo" }).click();
    await poll(() => resultsText(other)).toContain("1 match");
    await other.close();
  });
});
