// A move whose branch left holds no message a summary reads (only a model change here: SPEC §8.2
// reads messages but tool results, custom messages and summaries), in Debian's Chromium through
// browser mode: the move dialog says so before Summarize is pressed — the summary the agents write
// then (§8.1) only says "No content to summarize" — instead of promising to cover "1 entry".
// Its Summarize buttons, off when nothing is left behind or no instructions are typed, say why.
// Screenshots: test-artifacts/branch-summary-no-messages/.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import { planSession } from "../helpers/plan-session.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-summary-no-messages");

let app: E2eChatApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  ({ app } = await startBranchSummaryApp(
    "branch-no-messages",
    {
      key: { env: "CANOPY_E2E_BRANCH_NO_MESSAGES_KEY", value: "sk-e2e-branch-no-messages" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1a8", cwd: "/work/no-messages", file: "plan.jsonl" },
  ));
  ({ page } = app);
  // u1, a1, then a model change below a1: the view leaf (the file's last line).
  const { header, turn } = planSession("0195f0c2-2222-7000-8000-00000000b1b0", "/work/no-messages", "2026-02-01T10:00:00.000Z");
  const change = JSON.stringify({
    type: "model_change",
    id: "m2",
    parentId: "a1",
    timestamp: "2026-02-01T10:00:09.000Z",
    model: "openai/gpt-other",
  });
  const file = path.join(app.work, "no-messages.jsonl");
  writeFileSync(file, `${[header, ...turn(1), change].join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a branch left with no message in it", () => {
  it("the move dialog says a summary would have nothing to read", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    expect((await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId })).viewLeafId).toBe("m2");
    await openMoveDialog(page, "u1");
    // The branch left below u1 is a1, m2: a reply in it.
    await poll(() => textOf(page.getByTestId("branch-summary-count"))).toBe(
      "A summary would cover the 2 entries of the branch you leave (highlighted).",
    );
    await page.keyboard.press("Escape");
    await page.getByRole("dialog", { name: "Move the view leaf" }).waitFor({ state: "detached" });

    await openMoveDialog(page, "a1");
    await poll(() => textOf(page.getByTestId("branch-summary-count"))).toBe(
      "The branch you leave has 1 entry, none of them a message: a summary would only say “No content to summarize”.",
    );
    await page.screenshot({ path: path.join(shots, "01-no-messages.png") });
  });

  it("the Summarize buttons say why they are off: nothing left behind, or no instructions typed", async () => {
    // Before, they were greyed with no tooltip. The dialog on a1 is open from the case before.
    const dialog = page.getByRole("dialog", { name: "Move the view leaf" });
    const summarizeWith = dialog.getByRole("button", { name: "Summarize with instructions…" });
    await summarizeWith.click();
    const these = dialog.getByRole("button", { name: "Summarize with these instructions" });
    expect(await these.isDisabled()).toBe(true);
    expect(await these.getAttribute("title")).toBe("Type what the summary should focus on first.");
    await page.getByLabel("What the summary should focus on").fill("The model change");
    await poll(() => these.isDisabled()).toBe(false);
    expect(await these.getAttribute("title")).toBeNull();
    await page.getByLabel("What the summary should focus on").press("Escape");
    // Moved to a1 without a summary, the dialog on m2 (a1's child) leaves nothing behind.
    await dialog.getByRole("button", { name: "No summary" }).click();
    await dialog.waitFor({ state: "detached" });
    await poll(
      async () => (await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId })).viewLeafId,
    ).toBe("a1");
    // And the page has the move's answer: before it, m2 is still the view leaf there and Enter on
    // it opens no dialog.
    await poll(() => page.locator('.tree-node[data-entry-id="a1"]').getAttribute("data-view-leaf")).toBe(
      "true",
    );
    const again = await openMoveDialog(page, "m2");
    await poll(() => textOf(page.getByTestId("branch-summary-count"))).toBe(
      "Nothing to summarize: the branch you leave has no entries of its own.",
    );
    const why = "Nothing to summarize: the branch you leave has no entries of its own.";
    for (const name of ["Summarize", "Summarize with instructions…"]) {
      const control = again.getByRole("button", { name, exact: true });
      expect(await control.isDisabled()).toBe(true);
      expect(await control.getAttribute("title")).toBe(why);
    }
    await page.keyboard.press("Escape");
    await again.waitFor({ state: "detached" });
  });
});
