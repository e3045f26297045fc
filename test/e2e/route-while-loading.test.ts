// A link to an entry followed while its session is still loading (Debian's Chromium, browser
// mode, demo sessions): the entry stays selected once the tree arrives. The first open's older
// route (no entry) used to win when its tree came in, and threw the selection away again.
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("route-while-loading");
  page = app.page;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a link to an entry followed while the session loads", () => {
  it("keeps that entry selected when the tree arrives", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    const view = await apiCall<ContextView>(app.mode, "context:get", { sessionId: session.id, agentMessages: false });
    const entry = view.messageEntryIds[0];
    if (!entry || entry === session.viewLeafId) throw new Error("the demo session has too few messages");
    // The session's tree is held on its way until the link has been followed.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let heldRequests = 0;
    const isTree = (url: URL) => decodeURIComponent(url.pathname) === "/api/session:tree";
    await page.route(isTree, async (route: Route) => {
      heldRequests += 1;
      await held;
      await route.continue();
    });
    try {
      const base = `#/session/${encodeURIComponent(session.id)}`;
      await page.goto(`${app.mode.url}${base}`);
      await poll(() => heldRequests).toBe(1);
      await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(session.viewLeafId);
      await page.evaluate(`window.location.hash = ${JSON.stringify(`${base}?leaf=${entry}`)}`);
      await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(entry);
      release();
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
      await page.locator(`[data-testid=llm-view] li.message[data-entry-id="${entry}"][aria-current="true"]`).waitFor();
      expect(await page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(entry);
      expect(await page.evaluate(() => window.location.hash)).toBe(`${base}?leaf=${entry}`);
    } finally {
      release();
      await page.unroute(isTree);
    }
  });
});
