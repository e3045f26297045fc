// A deep link whose entry is not in its session (mistyped, or an entry Canopy added and an undo
// took away again while its address stayed in the bar), in Debian's Chromium (browser mode, demo
// sessions): the session opens at its view leaf, one line says the link's entry is not there, and
// the address bar drops it. It showed "Could not build the LLM view: … has no entry …" with a
// Retry that could never work, an empty toolbar ("No entry") and a whole-tree view.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("deep-link-missing");
  page = app.page;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a deep link to an entry that is not in its session", () => {
  it("opens the session at its view leaf and says the entry is not there", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    const route = `#/session/${encodeURIComponent(session.id)}`;
    await page.goto(`${app.mode.url}${route}?leaf=zzzz9999`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    await poll(() => page.getByTestId("notice").textContent()).toContain("zzzz9999");
    expect(await page.getByTestId("notice").textContent()).toContain("not in this session");
    await poll(() => page.getByTestId("llm-view").textContent()).toContain(`At the view leaf ${session.viewLeafId}`);
    expect(await page.getByTestId("llm-view").textContent()).not.toContain("Could not build");
    await poll(() => page.evaluate(() => window.location.hash)).toBe(route);
  });
});
