// Cancelling a slow branch summary with its own "Cancel summary" button (Debian's Chromium,
// browser mode, a local fake OpenAI-compatible server that never answers in time): the button
// goes away with the progress box, and the keyboard focus it had must stay in the tree, so the
// arrow keys go on instead of being lost on <body>. A cancel whose request gets to the main side
// before the one that starts the summary (held with page.route) cancels it once it starts.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { holdRequests } from "../helpers/held-requests.ts";
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

  it("cancels it when the cancel gets to the main side before the request that starts it", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "Too late.", headersDelayMs: 60_000 });
    const dialog = await openMoveDialog(page, "a1");
    const release = await holdRequests(page, "navigation:navigate");
    try {
      await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
      // The window shows the summary at once; its cancel is answered while nothing runs yet.
      const answered = page.waitForResponse(
        (response) => decodeURIComponent(new URL(response.url()).pathname) === "/api/navigation:abort",
      );
      await page.getByRole("button", { name: "Cancel summary" }).click();
      await answered;
    } finally {
      await release();
    }
    await poll(() => textOf(page.getByTestId("job-message"))).toBe(
      "Branch summarization cancelled; nothing changed.",
    );
    await poll(() => page.getByTestId("branch-progress").count()).toBe(0);
    expect((await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId })).viewLeafId).toBe("a3");
    expect(await apiCall(app.mode, "job:list", {})).toEqual([]);
  });
});
