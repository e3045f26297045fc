// A session row in the library list whose title is cut ("Refactor the parser (omp dialect co…")
// says the whole title in its tooltip, in Debian's Chromium (browser mode, demo sessions): the
// tooltip named the file, dates and counts, never the title, so sessions whose titles (or first
// messages) start alike could not be told apart. A search hit's tooltip likewise named only the
// file and the session id, its title cut in the sidebar.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("session-row-tooltip");
  page = app.page;
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a session row's tooltip", () => {
  it("starts with the whole title when the row cuts it", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    const long = "Port the user message selector to the theme system and keep its keyboard handling as it was";
    await apiCall(app.mode, "edits:rename", { sessionId: session.id, title: long });
    const row = page.locator(`button.session[data-session-id="${session.id}"]`);
    await poll(() => row.locator(".session-title").textContent()).toBe(long);
    expect(await row.locator(".session-title").evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    const tooltip = (await row.getAttribute("title")) ?? "";
    expect(tooltip.split("\n")[0]).toBe(long);
    expect(tooltip).toContain(`created ${session.created}`);
  });
});

describe("a search hit's tooltip", () => {
  it("starts with the whole title when the hit cuts it", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions[1] as SessionSummary;
    const long = "Refactor the authentication middleware so that session tokens rotate on every privileged request";
    await apiCall(app.mode, "edits:rename", { sessionId: session.id, title: long });
    await page.getByPlaceholder("words in any message").fill("gamma");
    const hit = page.locator(`.search-hit[data-hit-session-id="${session.id}"]`).first();
    await poll(() => hit.locator(".hit-title").textContent()).toBe(long);
    expect(await hit.locator(".hit-title").evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    const tooltip = (await hit.getAttribute("title")) ?? "";
    expect(tooltip.split("\n")[0]).toBe(long);
    expect(tooltip).toContain(`session ${session.id}`);
  });
});
