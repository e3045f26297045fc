// Enter in an entry's Label field, or in the session's title field, while a branch summary runs
// (no edit busy), in Debian's Chromium through browser mode: before, Set label was aria-disabled
// and Enter gave no reason, and the title's save was refused by the running job without a word.
// Now nothing is saved, the outcome line says why (as for Ctrl+Z during a job), the text typed
// stays in its field, and Enter again once the summary is over saves it. The summary's request
// is held at the page (page.route) meanwhile. Screenshots: test-artifacts/save-during-job/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";
import { holdRequests } from "../helpers/held-requests.ts";

const shots = path.join(artifactsDir(), "save-during-job");
const RUNNING = "a branch summary is running on this session; wait for it or cancel it first (Escape).";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

const outcome = () => textOf(page.getByTestId("job-message"));
const labelBox = () => page.getByRole("textbox", { name: "Label", exact: true });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  ({ app, sessionId } = await startBranchSummaryApp(
    "save-during-job",
    {
      key: { env: "CANOPY_E2E_SAVE_DURING_JOB_KEY", value: "sk-e2e-save-during-job" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1c7", cwd: "/work/save-during-job", file: "save-job.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("Enter in the label or title field while a branch summary runs", () => {
  it("saves nothing, says why, keeps the text typed; Enter once it is over saves it", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const header = page.getByTestId("session-header");
    const tree = () => apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const title = async () =>
      (await apiCall<SessionSummary[]>(app.mode, "library:list", {})).find((s) => s.id === sessionId)?.title ?? null;
    const titleBefore = await title();
    fake.enqueue({ type: "reply", text: "The abandoned branch settled the parser." });

    const release = await holdRequests(page, "navigation:navigate");
    let labelled: string;
    const titleBox = header.getByRole("textbox", { name: "Session title" });
    try {
      const dialog = await openMoveDialog(page, "a1");
      await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      await page.getByText("Summarizing the branch…", { exact: false }).first().waitFor();

      // The entry the Label field is for (the session's ids are short: shown whole).
      labelled = ((await textOf(page.getByTestId("edit-target"))) ?? "").split(" · ")[0] as string;
      expect((await tree()).nodes.some((node) => node.id === labelled)).toBe(true);
      await labelBox().fill("later");
      await labelBox().press("Enter");
      await poll(outcome).toBe(`The label “later” was not set on ${labelled}: ${RUNNING}`);
      expect(await labelBox().inputValue()).toBe("later");
      await page.screenshot({ path: path.join(shots, "01-label-refused.png") });

      await header.getByRole("button", { name: "Rename", exact: true }).click();
      await titleBox.fill("Renamed later");
      await titleBox.press("Enter");
      await poll(outcome).toBe(`The session was not renamed “Renamed later”: ${RUNNING}`);
      expect(await titleBox.inputValue()).toBe("Renamed later");
      await page.screenshot({ path: path.join(shots, "02-title-refused.png") });
      const now = await tree();
      expect(now.nodes.find((node) => node.id === labelled)?.label).toBeUndefined();
      expect(await title()).toBe(titleBefore);
    } finally {
      await release();
    }
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
    // Over: Enter in the title field (still open, its text kept) saves it.
    await titleBox.press("Enter");
    await poll(title).toBe("Renamed later");
    await poll(outcome).toBe("Renamed the session “Renamed later”.");
  });
});
