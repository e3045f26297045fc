// The instructions typed for a branch summary are not lost (Debian's Chromium, browser mode): the
// move dialog closed with Escape, or the summary cancelled while the model writes it, and the
// next "Summarize with instructions…" of that session shows them again, with "Use them instead
// of the branch-summary prompt" as it was; once a branch summary is added they are gone (as the
// additional focus of Compact… is).
// Screenshots: test-artifacts/branch-instructions-kept/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-instructions-kept");
const INSTRUCTIONS = "Keep the parser decisions and the failing test names";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

const outcome = () => textOf(page.getByTestId("job-message"));
const field = () => page.locator("#branch-instructions");
const replaceBox = () => page.getByRole("checkbox", { name: "Use them instead of the branch-summary prompt" });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  ({ app, sessionId } = await startBranchSummaryApp(
    "branch-instructions-kept",
    {
      key: { env: "CANOPY_E2E_BRANCH_KEPT_KEY", value: "sk-e2e-branch-kept" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1a7", cwd: "/work/kept", file: "branch-kept.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** The move dialog to `entryId` with its instructions field open. */
async function instructionsFor(entryId: string) {
  const dialog = await openMoveDialog(page, entryId);
  await dialog.getByRole("button", { name: "Summarize with instructions…" }).click();
  await field().waitFor();
  return dialog;
}

describe("branch-summary instructions", () => {
  it("stay after Escape and after a cancelled summary, and go once a summary is added", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await instructionsFor("a1");
    await field().fill(INSTRUCTIONS);
    await replaceBox().check();
    // Escape closes the field, Escape again the dialog.
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog", { name: "Move the view leaf" }).waitFor({ state: "detached" });

    let dialog = await instructionsFor("a1");
    expect(await field().inputValue()).toBe(INSTRUCTIONS);
    expect(await replaceBox().isChecked()).toBe(true);
    await page.screenshot({ path: path.join(shots, "01-kept-after-escape.png") });

    // Far longer than the test: the summary still runs when it is cancelled.
    fake.enqueue({ type: "reply", text: "Too late.", headersDelayMs: 60_000 });
    await dialog.getByRole("button", { name: "Summarize with these instructions" }).click();
    await page.getByRole("button", { name: "Cancel summary" }).click();
    await poll(outcome).toBe("Branch summarization cancelled; nothing changed.");

    dialog = await instructionsFor("a1");
    expect(await field().inputValue()).toBe(INSTRUCTIONS);
    expect(await replaceBox().isChecked()).toBe(true);
    await page.screenshot({ path: path.join(shots, "02-kept-after-cancel.png") });

    fake.enqueue({ type: "reply", text: "The abandoned branch settled the parser." });
    await dialog.getByRole("button", { name: "Summarize with these instructions" }).click();
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);

    await instructionsFor("u1");
    expect(await field().inputValue()).toBe("");
    expect(await replaceBox().isChecked()).toBe(false);
    await page.screenshot({ path: path.join(shots, "03-gone-after-summary.png") });
  });
});
