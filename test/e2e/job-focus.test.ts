// Where the keyboard focus goes when a branch summary ends, in Debian's Chromium through browser
// mode against a local fake OpenAI-compatible server: the compaction panel's "Compact…" must not
// take it (it only gives the focus back after a compaction it ran), and "Retry the branch
// summary", which goes away once pressed, must not leave it on the page's body.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

/** The focused element: a tree node's entry id, else its role or text, "body" when nothing has it. */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) return "body";
    return (
      active.getAttribute("data-entry-id") ?? active.getAttribute("role") ?? (active.textContent ?? "").trim()
    );
  });
const outcome = () => textOf(page.getByTestId("job-message"));

beforeAll(async () => {
  ({ app, sessionId } = await startBranchSummaryApp(
    "job-focus",
    {
      key: { env: "CANOPY_E2E_JOB_FOCUS_KEY", value: "sk-e2e-job-focus" },
      model: { id: "fake-job-focus", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000f0c5", cwd: "/work/focus", file: "job-focus.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the focus when a branch summary ends", () => {
  it("stays in the tree after a summary asked from the keyboard, not on Compact…", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "The branch settled the parser.", headersDelayMs: 500 });
    const dialog = await openMoveDialog(page, "a1");
    await dialog.getByRole("button", { name: "Summarize", exact: true }).focus();
    await page.keyboard.press("Enter");
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
    await poll(() => page.getByTestId("branch-progress").count()).toBe(0);
    // The move dialog gave it to the entry moved to; the panel's Cancel (Esc) no longer takes it.
    expect(await focused()).toBe("a1");
  });

  it("Retry the branch summary, pressed with Enter, does not drop the focus on the page", async () => {
    // Back to a3 (no summary), then a summary the model refuses.
    await apiCall(app.mode, "navigation:navigate", { sessionId, targetId: "a3", summarize: false });
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({
      type: "error",
      status: 429,
      body: { error: { message: "Rate limit reached for fake-job-focus", type: "rate_limit_error" } },
    });
    const dialog = await openMoveDialog(page, "a2");
    await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
    const retry = page.getByRole("button", { name: "Retry the branch summary" });
    await retry.waitFor();
    fake.enqueue({ type: "reply", text: "Second try.", headersDelayMs: 500 });
    await retry.focus();
    await page.keyboard.press("Enter");
    await poll(outcome).toMatch(/with branch summary \S+\.$/);
    await poll(() => page.getByTestId("branch-progress").count()).toBe(0);
    // The entry the leaf moved to, as after the move dialog.
    expect(await focused()).toBe("a2");
  });
});
