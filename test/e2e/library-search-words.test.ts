// The library search box with search-engine syntax, in Chromium (browser mode, demo sessions):
// OR, AND, NOT, quotes and * are not operators here, and a query using them says so next to its
// results (it used to answer "No message matches" for "parser OR zzz" without a word why).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("library-search-words");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

const results = () => page.locator(".search-results");

describe("search syntax in the library search", () => {
  it("says how a query with OR, quotes or * is read, and nothing for plain words", async () => {
    const box = page.getByLabel("Search all sessions");
    await box.fill("parser OR zzzqqq");
    await poll(() => results().textContent()).toContain("No message matches");
    const note = page.getByTestId("search-syntax-note");
    await poll(() => note.count()).toBe(1);
    expect(await note.textContent()).toContain("OR, AND and NOT are searched as words");

    await box.fill('"parser"');
    await poll(() => results().locator(".search-hit").count()).toBeGreaterThan(0);
    await poll(() => note.count()).toBe(1);

    await box.fill("parser");
    await poll(() => results().locator(".search-hit").count()).toBeGreaterThan(0);
    await poll(() => note.count()).toBe(0);
  });
});
