// A branch summary the model fails (a 429 from the local fake OpenAI-compatible server), in
// Debian's Chromium through browser mode: the outcome line says why in one line and offers
// "Retry the branch summary", which asks again with the same instructions — no new drag, no
// dialog, nothing typed again — and moves the view leaf with the summary once the model answers.
// Screenshots: test-artifacts/branch-summary-retry/.
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { branchSummarySuite, retryOffered, retrySummarizes } from "../helpers/branch-summary-suite.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { treeIds } from "../helpers/e2e-app.ts";
import { openMoveDialog } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-summary-retry");
const INSTRUCTIONS = "Keep the parser decisions";

const suite = branchSummarySuite("branch-retry", shots, {
  id: "0195f0c2-2222-7000-8000-00000000b1a5",
  cwd: "/work/retry",
  file: "branch-retry.jsonl",
});
const { outcome } = suite;

describe("a branch summary the model fails", () => {
  it("offers Retry, which asks again with the same instructions and moves the leaf with the summary", async () => {
    const { app, page, fake, sessionId } = suite;
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
    const retry = await retryOffered(suite, before);
    expect((await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId })).viewLeafId).toBe("a3");
    await page.screenshot({ path: path.join(shots, "01-failed-with-retry.png") });

    const { tree } = await retrySummarizes(suite, retry, INSTRUCTIONS);
    expect(tree.nodes).toHaveLength(before.length + 1);
    await page.screenshot({ path: path.join(shots, "02-retried.png") });
  });
});
