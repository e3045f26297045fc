// A branch summary refused because the view leaf moved while the model wrote it (another window,
// the CLI or the agent moved it), in Debian's Chromium through browser mode: the outcome line
// says so and offers "Retry the branch summary", which summarizes the branch left from where the
// view leaf is now — no new drag, no dialog, the instructions not typed again.
// Screenshots: test-artifacts/branch-summary-leaf-moved/.
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

const shots = path.join(artifactsDir(), "branch-summary-leaf-moved");
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
    "branch-leaf-moved",
    {
      key: { env: "CANOPY_E2E_BRANCH_LEAF_MOVED_KEY", value: "sk-e2e-branch-leaf-moved" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1a6", cwd: "/work/leaf-moved", file: "branch-leaf-moved.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a branch summary refused because the view leaf moved meanwhile", () => {
  it("offers Retry, which summarizes the branch left from the view leaf as it is now", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const before = await treeIds(app.mode, sessionId);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({ type: "reply", chunks: ["The branch ", "settled the parser."], holdRest: held });
    const dialog = await openMoveDialog(page, "a1");
    await dialog.getByRole("button", { name: "Summarize with instructions…" }).click();
    await page.locator("#branch-instructions").fill(INSTRUCTIONS);
    await dialog.getByRole("button", { name: "Summarize with these instructions" }).click();
    // The model is writing the summary of u2…a3 (the view leaf a3): another window moves the leaf.
    await poll(() => chatBodies().length).toBe(1);
    await apiCall(app.mode, "session:set-view-leaf", { sessionId, leafId: "a2" });
    release();

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
    // The retry left from a2: it summarized u2, a2 — a shorter branch than the refused u2…a3.
    expect((bodies[1] as string).length).toBeLessThan((bodies[0] as string).length);
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const summary = tree.nodes.find((node) => node.id === tree.viewLeafId);
    expect(summary?.type).toBe("branch_summary");
    expect(summary?.parentId).toBe("a1");
    expect(tree.nodes).toHaveLength(before.length + 1);
    await page.screenshot({ path: path.join(shots, "02-retried.png") });
  });
});
