// A branch summary refused because the view leaf moved while the model wrote it (another window,
// the CLI or the agent moved it), in Debian's Chromium through browser mode: the outcome line
// says so and offers "Retry the branch summary", which summarizes the branch left from where the
// view leaf is now — no new drag, no dialog, the instructions not typed again.
// Screenshots: test-artifacts/branch-summary-leaf-moved/.
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  branchSummarySuite,
  openWithHeldReply,
  retryOffered,
  retrySummarizes,
} from "../helpers/branch-summary-suite.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { openMoveDialog } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-summary-leaf-moved");
const INSTRUCTIONS = "Keep the parser decisions";

const suite = branchSummarySuite("branch-leaf-moved", shots, {
  id: "0195f0c2-2222-7000-8000-00000000b1a6",
  cwd: "/work/leaf-moved",
  file: "branch-leaf-moved.jsonl",
});
const { outcome, chatBodies } = suite;

describe("a branch summary refused because the view leaf moved meanwhile", () => {
  it("offers Retry, which summarizes the branch left from the view leaf as it is now", async () => {
    const { app, page, sessionId } = suite;
    const { before, release } = await openWithHeldReply(suite);
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
    const retry = await retryOffered(suite, before);
    await page.screenshot({ path: path.join(shots, "01-refused-with-retry.png") });

    const { bodies, tree } = await retrySummarizes(suite, retry, INSTRUCTIONS);
    // The retry left from a2: it summarized u2, a2 — a shorter branch than the refused u2…a3.
    expect((bodies[1] as string).length).toBeLessThan((bodies[0] as string).length);
    expect(tree.nodes).toHaveLength(before.length + 1);
    await page.screenshot({ path: path.join(shots, "02-retried.png") });
  });
});
