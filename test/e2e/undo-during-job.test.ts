// Ctrl+Z / Ctrl+Shift+Z pressed while a branch summary runs (no edit busy), in Debian's Chromium
// through browser mode: undo and redo wait for no job, so the press does nothing — before, without
// a word; the outcome line now says why, one line however long the key is held (its repeats do
// not stack), and the summary's own outcome replaces it once the job ends. The summary's request
// is held at the page (page.route) until the presses are made, so it is running meanwhile.
// Screenshots: test-artifacts/undo-during-job/.
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { branchSummarySuite } from "../helpers/branch-summary-suite.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { holdRequests } from "../helpers/held-requests.ts";
import { summarizeBranchTo } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "undo-during-job");
const RUNNING = "a branch summary is running on this session; wait for it or cancel it first (Escape).";

const suite = branchSummarySuite("undo-during-job", shots, {
  id: "0195f0c2-2222-7000-8000-00000000b1c1",
  cwd: "/work/undo-during-job",
  file: "undo-job.jsonl",
});
const { outcome } = suite;

describe("Ctrl+Z while a branch summary runs", () => {
  it("does nothing and says why, once however long the key is held", async () => {
    const { app, page, fake, sessionId } = suite;
    // An edit to undo: were the press not refused, it would undo this label.
    await apiCall(app.mode, "edits:label", { sessionId, targetId: "u2", label: "kept" });
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "The abandoned branch settled the parser." });

    const release = await holdRequests(page, "navigation:navigate");
    try {
      await summarizeBranchTo(page, "a1");

      await page.keyboard.press("Control+z");
      await poll(outcome).toBe(`Ctrl+Z did nothing: ${RUNNING}`);
      // Held down: the repeats keep the one line.
      await page.keyboard.down("Control");
      for (let i = 0; i < 5; i++) await page.keyboard.down("z");
      await page.keyboard.up("z");
      await page.keyboard.up("Control");
      expect(await page.getByTestId("job-message").count()).toBe(1);
      expect(await outcome()).toBe(`Ctrl+Z did nothing: ${RUNNING}`);
      await page.screenshot({ path: path.join(shots, "01-undo-refused.png") });

      await page.keyboard.press("Control+Shift+z");
      await poll(outcome).toBe(`Ctrl+Shift+Z did nothing: ${RUNNING}`);
      const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
      expect(tree.nodes.find((node) => node.id === "u2")?.label).toBe("kept");
    } finally {
      await release();
    }
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
    expect((await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId })).nodes.find((n) => n.id === "u2")?.label).toBe(
      "kept",
    );
  });
});
