// The move dialog with the keyboard only, in Chromium through browser mode: Escape in the
// "Summarize with instructions…" field closes the field and not the dialog, and the focus goes
// back to the button that opened the field (not to the page's body), so Escape again closes the
// dialog and the focus lands on the entry it was about.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

let app: E2eChatApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  ({ app, sessionId } = await startBranchSummaryApp(
    "branch-dialog-escape",
    {
      key: { env: "CANOPY_E2E_BRANCH_ESCAPE_KEY", value: "sk-e2e-branch-escape" },
      model: { id: "fake-branch", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000e5c4", cwd: "/work/escape", file: "branch-escape.jsonl" },
  ));
  ({ page } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active === null || active === document.body
      ? "body"
      : active.id || active.getAttribute("data-entry-id") || active.textContent || active.tagName;
  });

describe("the move dialog's instructions field with the keyboard only", () => {
  it("Escape in the field closes the field, the focus on its button; Escape again closes the dialog", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const dialog = await openMoveDialog(page, "a1");
    const opener = dialog.getByRole("button", { name: "Summarize with instructions…" });
    await opener.focus();
    await page.keyboard.press("Enter");
    await poll(focused).toBe("branch-instructions");
    await page.keyboard.type("keep the parser");
    await page.keyboard.press("Escape");
    await poll(() => page.locator("#branch-instructions").count()).toBe(0);
    expect(await dialog.count()).toBe(1);
    expect(await focused()).toBe("Summarize with instructions…");
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
    await poll(focused).toBe("a1");
  });
});
