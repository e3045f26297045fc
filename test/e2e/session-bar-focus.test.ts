// The session bar and the compaction plan from the keyboard (Debian's Chromium, browser mode, a
// local fake OpenAI-compatible server): a button pressed while the session is busy, or whose
// request fails, keeps the keyboard focus instead of dropping it on the page's body.
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

/** The focused element's label or text, or "body" when nothing has the focus. */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) return "body";
    return active.getAttribute("aria-label") ?? (active.textContent ?? "").trim();
  });
const isChannel = (channel: string) => (url: URL) => decodeURIComponent(url.pathname) === `/api/${channel}`;

beforeAll(async () => {
  app = await startE2eChatApp("session-bar-focus", {
    key: { env: "CANOPY_E2E_SESSION_BAR_KEY", value: "sk-e2e-session-bar" },
    model: { id: "fake-session-bar", contextWindow: 128000 },
  });
  ({ page, fake } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the session bar from the keyboard", () => {
  it("Save title whose rename fails keeps the focus, with the field still open", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const header = page.getByTestId("session-header");
    const refuse = (route: Route) => route.abort("connectionrefused");
    await page.route(isChannel("edits:rename"), refuse);
    try {
      await header.getByRole("button", { name: "Rename", exact: true }).focus();
      await page.keyboard.press("Enter");
      await poll(focused).toBe("Session title");
      await page.keyboard.type("Never saved");
      await header.getByRole("button", { name: "Save title" }).focus();
      await page.keyboard.press("Enter");
      await poll(() => page.getByRole("alert").count()).toBeGreaterThan(0);
      await poll(() => header.getByRole("button", { name: "Save title" }).getAttribute("aria-disabled")).not.toBe("true");
      expect(await focused()).toBe("Save title");
      // Escape from there closes the field, and Rename has the focus.
      await page.keyboard.press("Escape");
      await poll(focused).toBe("Rename");
    } finally {
      await page.unroute(isChannel("edits:rename"), refuse);
    }
  });

  it("Ctrl+Z with the focus on Rename keeps it there while the undo runs and after", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const tree = await apiCall<{ viewLeafId: string }>(app.mode, "session:tree", { sessionId });
    await apiCall(app.mode, "edits:label", { sessionId, targetId: tree.viewLeafId, label: "undo-me" });
    const undo = page.getByTestId("edit-actions").getByRole("button", { name: "Undo", exact: true });
    await poll(() => undo.getAttribute("title")).toContain("label");
    const slow = async (route: Route) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await route.continue().catch(() => undefined);
    };
    await page.route(isChannel("edits:undo"), slow);
    try {
      await page.getByTestId("session-header").getByRole("button", { name: "Rename", exact: true }).focus();
      await page.keyboard.press("Control+z");
      await poll(() => page.getByTestId("job-message").textContent()).toContain("Undid");
      expect(await focused()).toBe("Rename");
    } finally {
      await page.unroute(isChannel("edits:undo"), slow);
    }
  });

  it("Escape in the compaction plan closes it, and Compact… has the focus again", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Compact…" }).focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("compaction-plan").waitFor();
    await page.locator("#compaction-instructions").focus();
    await page.keyboard.press("Escape");
    await poll(() => page.getByTestId("compaction-plan").count()).toBe(0);
    await poll(focused).toBe("Compact…");
  });

  it("an edit button with the focus while another window compacts the session keeps it, and does nothing meanwhile", async () => {
    // Another session than the other tests' (each compacts the one it opens).
    const store = await demoSessionId(app.mode, "Session store tree");
    await openSessionShowingAll(page, app.mode, store);
    const fork = page.getByTestId("edit-actions").getByRole("button", { name: "Fork to new session" });
    await fork.focus();
    const sessions = async () => (await apiCall<unknown[]>(app.mode, "library:list", {})).length;
    const before = await sessions();
    fake.enqueue({ type: "reply", text: "## Goal\nLate.", headersDelayMs: 3_000 }, { type: "reply", text: "Prefix.", headersDelayMs: 3_000 });
    const elsewhere = apiCall(app.mode, "compaction:run", { sessionId: store });
    await poll(() => textOf(page.locator(".compaction-panel .running"))).toContain("Compacting…");
    expect(await focused()).toBe("Fork to new session");
    expect(await fork.getAttribute("aria-disabled")).toBe("true");
    await page.keyboard.press("Enter");
    await elsewhere.catch(() => undefined);
    await poll(() => textOf(page.locator(".compaction-panel .running"))).toBeNull();
    expect(await focused()).toBe("Fork to new session");
    expect(await sessions()).toBe(before);
  });

  it("Compact… with the focus on it while another window compacts the session keeps the focus", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const compact = page.getByRole("button", { name: "Compact…" });
    await compact.focus();
    fake.enqueue({ type: "reply", text: "## Goal\nLate.", headersDelayMs: 3_000 }, { type: "reply", text: "Prefix.", headersDelayMs: 3_000 });
    const elsewhere = apiCall(app.mode, "compaction:run", { sessionId });
    await poll(() => textOf(page.locator(".compaction-panel .running"))).toContain("Compacting…");
    expect(await focused()).toBe("Compact…");
    await elsewhere.catch(() => undefined);
    await poll(() => textOf(page.locator(".compaction-panel .running"))).toBeNull();
    expect(await focused()).toBe("Compact…");
  });
});
