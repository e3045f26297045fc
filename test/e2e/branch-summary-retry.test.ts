// A branch summary the model fails (a 429 from the local fake OpenAI-compatible server), in
// Debian's Chromium through browser mode: the outcome line says why in one line and offers
// "Retry the branch summary", which asks again with the same instructions — no new drag, no
// dialog, nothing typed again — and moves the view leaf with the summary once the model answers.
// Screenshots: test-artifacts/branch-summary-retry/.
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
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-summary-retry");
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
    "branch-retry",
    {
      key: { env: "CANOPY_E2E_BRANCH_RETRY_KEY", value: "sk-e2e-branch-retry" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1a5", cwd: "/work/retry", file: "branch-retry.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a branch summary the model fails", () => {
  it("offers Retry, which asks again with the same instructions and moves the leaf with the summary", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const before = await treeIds(app.mode, sessionId);
    fake.enqueue({
      type: "error",
      status: 429,
      body: { error: { message: "Rate limit reached for fake-branch", type: "rate_limit_error" } },
      headers: { "retry-after": "20" },
    });
    const dialog = await openMoveDialog(page, "a1");
    await dialog.getByRole("button", { name: "Summarize with instructions…" }).click();
    await page.locator("#branch-instructions").fill(INSTRUCTIONS);
    await dialog.getByRole("button", { name: "Summarize with these instructions" }).click();

    await poll(outcome).toBe(
      // As every other window and `canopy navigate --summarize` say it.
      "Branch summary failed: The model's server is rate-limiting requests (429: Rate limit reached for fake-branch); it asked to wait 20 s",
    );
    const retry = page.getByRole("button", { name: "Retry the branch summary" });
    await retry.waitFor();
    expect(await treeIds(app.mode, sessionId)).toEqual(before);
    expect((await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId })).viewLeafId).toBe("a3");
    await page.screenshot({ path: path.join(shots, "01-failed-with-retry.png") });

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
    expect(tree.nodes).toHaveLength(before.length + 1);
    await page.screenshot({ path: path.join(shots, "02-retried.png") });
  });
});
