// The compaction plan's "Additional focus (optional)" box (Debian's Chromium, browser mode): what
// was typed stays with its session when Escape or Close takes the plan away, and comes back when
// Compact… opens it again; it is not shown (nor sent) in another session's plan, where it used to
// follow, and it is cleared once that session's compaction is added.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;
let parser: string;
let store: string;

beforeAll(async () => {
  app = await startE2eApp("plan-instructions");
  ({ page } = app);
  parser = await demoSessionId(app.mode, "Refactor the parser");
  store = await demoSessionId(app.mode, "Session store tree");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

const box = () => page.getByLabel("Additional focus (optional)");
const plan = () => page.getByTestId("compaction-plan");

/** Compact… on the open session; the plan's box's text once it shows. */
async function openPlan(): Promise<string> {
  await page.getByRole("button", { name: "Compact…" }).click();
  await plan().waitFor();
  return box().inputValue();
}

/** Opens a session from the list, as a user does (the page is not loaded again). */
async function openFromList(title: string, sessionId: string) {
  await page.locator(".sidebar").getByText(title).first().click();
  await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
}

describe("the plan's additional focus", () => {
  it("stays with its session across Escape and Close, not shown in another's, cleared once it ran", async () => {
    await openSessionShowingAll(page, app.mode, parser);
    expect(await openPlan()).toBe("");
    await box().fill("keep the parser notes");
    await box().press("Escape");
    await plan().waitFor({ state: "detached" });
    expect(await openPlan()).toBe("keep the parser notes");
    await page.getByRole("button", { name: "Close" }).click();
    await plan().waitFor({ state: "detached" });

    await openFromList("Session store tree", store);
    expect(await openPlan()).toBe("");
    await page.getByRole("button", { name: "Close" }).click();
    await plan().waitFor({ state: "detached" });

    await openFromList("Refactor the parser", parser);
    expect(await openPlan()).toBe("keep the parser notes");
    const leaf = (await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId: parser })).viewLeafId;
    await page.getByRole("button", { name: "Run compaction" }).click();
    await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/^Compaction \S+ added/);
    // Back to where it was compacted (from elsewhere: the CLI), so that a plan can be made again.
    await apiCall(app.mode, "navigation:navigate", { sessionId: parser, targetId: leaf, summarize: false });
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(leaf);
    expect(await openPlan()).toBe("");
  });
});
