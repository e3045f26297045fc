// Cancelling a slow branch summary with its own "Cancel summary" button (Debian's Chromium,
// browser mode, a local fake OpenAI-compatible server that never answers in time): the button
// goes away with the progress box, and the keyboard focus it had must stay in the tree, so the
// arrow keys go on instead of being lost on <body>.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

const focused = () =>
  page.evaluate(
    `(() => { const a = document.activeElement; return a?.getAttribute("data-entry-id") ?? a?.getAttribute("role") ?? a?.tagName ?? null; })()`,
  );
const selected = () =>
  page.evaluate(`document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`);

beforeAll(async () => {
  ({ app, sessionId } = await startBranchSummaryApp(
    "summary-cancel-focus",
    {
      key: { env: "CANOPY_E2E_SUMMARY_CANCEL_KEY", value: "sk-e2e-summary-cancel" },
      model: { id: "fake-cancel", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000c4a1", cwd: "/work/cancel", file: "summary-cancel.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("cancelling a branch summary with its button", () => {
  it("leaves the keyboard in the tree", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    // Far longer than the test: the summary is still running when Cancel is clicked.
    fake.enqueue({ type: "reply", text: "Too late.", headersDelayMs: 60_000 });
    const dialog = await openMoveDialog(page, "a1");
    await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
    const cancel = page.getByRole("button", { name: "Cancel summary" });
    await cancel.click();
    await poll(() => page.getByTestId("branch-progress").count()).toBe(0);
    await poll(focused).toBe("tree");
    // The tree's keys go on from the view leaf (nothing is selected): its parent.
    expect(await selected()).toBe(null);
    await page.keyboard.press("ArrowUp");
    await poll(selected).toBe("u3");
  });
});
