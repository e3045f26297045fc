// A branch summary started elsewhere (another tab on the same server, or the CLI; here an API
// call) and refused because the view leaf moved while the model wrote it, seen in a window that
// did not start it (Debian's Chromium, browser mode): before, that window showed the refusal,
// "… Run it again.", with no way to run it again but the drag and the dialog (only the window that
// started it offered Retry). job:ended now tells the move asked for and why it failed, so this
// window offers "Retry the branch summary" too, which asks again from the view leaf as it is now,
// with the same instructions. Screenshots: test-artifacts/branch-summary-refused-elsewhere/.
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

const shots = path.join(artifactsDir(), "branch-summary-refused-elsewhere");
const INSTRUCTIONS = "Keep the parser decisions";

const suite = branchSummarySuite("branch-refused-elsewhere", shots, {
  id: "0195f0c2-2222-7000-8000-00000000b1c9",
  cwd: "/work/refused-elsewhere",
  file: "refused-elsewhere.jsonl",
});
const { outcome, chatBodies } = suite;

describe("a branch summary started elsewhere, refused because the view leaf moved", () => {
  it("this window offers Retry too, which asks again with the same instructions", async () => {
    const { app, page, sessionId } = suite;
    const { before, release } = await openWithHeldReply(suite);
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
    const retry = await retryOffered(suite, before);
    await page.screenshot({ path: path.join(shots, "01-refused-with-retry.png") });

    await retrySummarizes(suite, retry, INSTRUCTIONS);
    await page.screenshot({ path: path.join(shots, "02-retried.png") });
  });
});
