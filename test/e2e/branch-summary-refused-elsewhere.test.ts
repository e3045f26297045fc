// A branch summary started elsewhere (another tab on the same server, or the CLI; here an API
// call) and refused because the view leaf moved while the model wrote it, seen in a window that
// did not start it (Debian's Chromium, browser mode): before, that window showed the refusal,
// "… Run it again.", with no way to run it again but the drag and the dialog (only the window that
// started it offered Retry). job:ended now tells the move asked for and why it failed, so this
// window offers "Retry the branch summary" too, which asks again from the view leaf as it is now,
// with the same instructions. Screenshots: test-artifacts/branch-summary-refused-elsewhere/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, treeIds } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { startBranchSummaryApp } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-summary-refused-elsewhere");
const INSTRUCTIONS = "Keep the parser decisions";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

const outcome = () => textOf(page.getByTestId("job-message"));
const chatBodies = () =>
  fake.requests.filter((request) => request.path === "/v1/chat/completions").map((request) => JSON.stringify(request.body));

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  ({ app, sessionId } = await startBranchSummaryApp(
    "branch-refused-elsewhere",
    {
      key: { env: "CANOPY_E2E_BRANCH_REFUSED_ELSEWHERE_KEY", value: "sk-e2e-branch-refused-elsewhere" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1c9", cwd: "/work/refused-elsewhere", file: "refused-elsewhere.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a branch summary started elsewhere, refused because the view leaf moved", () => {
  it("this window offers Retry too, which asks again with the same instructions", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const before = await treeIds(app.mode, sessionId);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({ type: "reply", chunks: ["The branch ", "settled the parser."], holdRest: held });
    // Started by another client of the same server: this window only hears of it.
    const elsewhere = apiCall(app.mode, "navigation:navigate", {
      sessionId,
      targetId: "a1",
      summarize: true,
      customInstructions: INSTRUCTIONS,
    }).then(
      () => "done",
      (error: Error) => error.message,
    );
    await poll(() => chatBodies().length).toBe(1);
    await page.getByText("Summarizing the branch…", { exact: false }).first().waitFor();
    await apiCall(app.mode, "session:set-view-leaf", { sessionId, leafId: "a2" });
    release();
    expect(await elsewhere).toContain("The view leaf was moved while the summary was being written");

    await poll(outcome).toBe(
      "Branch summary failed: The view leaf was moved while the summary was being written; nothing was saved. Run it again.",
    );
    const retry = page.getByRole("button", { name: "Retry the branch summary" });
    await retry.waitFor();
    expect(await treeIds(app.mode, sessionId)).toEqual(before);
    await page.screenshot({ path: path.join(shots, "01-refused-with-retry.png") });

    fake.enqueue({ type: "reply", text: "The abandoned branch settled the parser." });
    await retry.click();
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
    expect(await retry.count()).toBe(0);
    const bodies = chatBodies();
    expect(bodies).toHaveLength(2);
    for (const body of bodies) expect(body).toContain(INSTRUCTIONS);
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const summary = tree.nodes.find((node) => node.id === tree.viewLeafId);
    expect(summary?.type).toBe("branch_summary");
    expect(summary?.parentId).toBe("a1");
    await page.screenshot({ path: path.join(shots, "02-retried.png") });
  });
});
