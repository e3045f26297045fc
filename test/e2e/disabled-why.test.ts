// Controls unavailable while a branch summary runs on the session, in Debian's Chromium through
// browser mode: before, Fork to new session, Archive branch, Undo, Compact… and Prune… were
// aria-disabled and a click did nothing without a word, and no tooltip said why (Redo, disabled
// with nothing to redo, said "Nothing to redo" though the job is what holds it). Each now carries
// the reason as its tooltip (its accessible description), and a click puts one line on the outcome
// line, left as it is on a second click; Send says why in its tooltip, and Ctrl+Enter in the
// composer, which sent nothing silently, says why too. The summary's request is held with page.route.
// Screenshots: test-artifacts/disabled-why/.
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { accessibleDescription } from "../helpers/accessible-description.ts";
import { branchSummarySuite } from "../helpers/branch-summary-suite.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { holdRequests } from "../helpers/held-requests.ts";
import { summarizeBranchTo } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "disabled-why");
const REASON = "A branch summary is running on this session; wait for it or cancel it first (Escape).";
const EDIT_BUSY = "Another edit is being saved on this session; available again once it is done.";
const RUNNING = "a branch summary is running on this session; wait for it or cancel it first (Escape).";

const suite = branchSummarySuite("disabled-why", shots, {
  id: "0195f0c2-2222-7000-8000-00000000b1d7",
  cwd: "/work/disabled-why",
  file: "disabled-why.jsonl",
});
const { outcome } = suite;
const button = (name: string) => suite.page.getByRole("button", { name, exact: true });

describe("controls unavailable while a job or an edit runs", () => {
  it("say why in their tooltip, and a click says why on the outcome line once", async () => {
    const { app, page, fake, sessionId } = suite;
    // An edit to undo, so that Undo is held by the job alone; nothing to redo.
    await apiCall(app.mode, "edits:label", { sessionId, targetId: "u2", label: "kept" });
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "The abandoned branch settled the parser." });
    const sessionsBefore = (await apiCall<unknown[]>(app.mode, "library:list", {})).length;

    const release = await holdRequests(page, "navigation:navigate");
    try {
      // The compaction plan open before the summary starts: its Close is held by the summary too.
      await button("Compact…").click();
      const plan = page.getByRole("region", { name: "Compaction" });
      await plan.getByRole("button", { name: "Run compaction", exact: true }).waitFor();
      await summarizeBranchTo(page, "a1");

      for (const name of ["Fork to new session", "Archive branch", "Undo", "Redo", "Compact…", "Prune…", "Send"]) {
        await poll(() => button(name).getAttribute("title")).toBe(REASON);
        expect(await accessibleDescription(button(name))).toBe(REASON);
      }
      await button("Fork to new session").hover();
      await page.screenshot({ path: path.join(shots, "01-fork-tooltip.png") });

      for (const name of ["Fork to new session", "Archive branch", "Undo", "Compact…", "Prune…"]) {
        await button(name).click({ force: true }); // aria-disabled: a real click still lands
        await poll(outcome).toBe(`${name} did nothing: ${RUNNING}`);
      }
      const closePlan = plan.getByRole("button", { name: "Close", exact: true });
      expect(await closePlan.getAttribute("title")).toBe(REASON);
      await closePlan.click({ force: true });
      await poll(outcome).toBe(`The compaction plan's Close did nothing: ${RUNNING}`);
      // A second click: the one line stays as it is, not stacked.
      await button("Prune…").click({ force: true });
      expect(await page.getByTestId("job-message").count()).toBe(1);
      expect(await outcome()).toBe(`Prune… did nothing: ${RUNNING}`);
      await page.screenshot({ path: path.join(shots, "02-click-refused.png") });

      // Ctrl+Enter in the composer: nothing sent, the message stays, the line says why.
      const composer = page.getByLabel(/^Message from the view leaf/);
      await composer.fill("Go on");
      await composer.press("Control+Enter");
      await poll(outcome).toBe(`Ctrl+Enter sent nothing: ${RUNNING}`);
      expect(await composer.inputValue()).toBe("Go on");

      const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
      expect(tree.nodes.find((node) => node.id === "u2")?.label).toBe("kept");
      expect(tree.nodes.some((node) => node.archived)).toBe(false);
      expect((await apiCall<unknown[]>(app.mode, "library:list", {})).length).toBe(sessionsBefore);
    } finally {
      await release();
    }
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
    // The job over: the tooltips are the controls' own again.
    await poll(() => button("Redo").getAttribute("title")).toBe("Nothing to redo.");
    expect(await button("Fork to new session").getAttribute("title")).toBeNull();
  });

  it("Rename while another edit is saved opens the title field, as F2 does (the save waits its turn)", async () => {
    const { app, page, sessionId } = suite;
    await openSessionShowingAll(page, app.mode, sessionId);
    const release = await holdRequests(page, "edits:label");
    try {
      const labelField = page.getByLabel("Label", { exact: true });
      await labelField.fill("during");
      await labelField.press("Enter");
      await poll(() => button("Fork to new session").getAttribute("disabled")).toBe("");
      expect(await button("Fork to new session").getAttribute("title")).toBe(EDIT_BUSY);
      // The library's × (disabled meanwhile) says why too, not only "Delete from the library".
      const remove = page.getByRole("button", { name: /^Delete “.*” from the library$/ }).first();
      expect(await remove.isDisabled()).toBe(true);
      expect(await remove.getAttribute("title")).toBe(EDIT_BUSY);
      // Before, Rename was aria-disabled meanwhile and a click did nothing (F2 opened the field).
      await button("Rename").click({ force: true });
      await page.getByLabel("Session title").waitFor();
      await page.screenshot({ path: path.join(shots, "03-rename-during-edit.png") });
      await page.getByLabel("Session title").press("Escape");
    } finally {
      await release();
    }
    await poll(() => button("Fork to new session").getAttribute("disabled")).toBeNull();
  });
});
