/**
 * What the browser tests of summaries (compaction, branch summary) share: the running line's
 * texts recorded as they come, the "Move the view leaf" dialog opened from a tree node (and a
 * branch summary started from it), and the chat app holding a three-turn plan session with branch
 * summaries turned on.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "./browser-mode.ts";
import { type E2eChatApp, type FakeModelSetup, startE2eChatApp } from "./e2e-app.ts";
import { planSession } from "./plan-session.ts";

type RunningWindow = { runningTexts: string[] };

/** From now on, records every text the compaction panel's running line shows, however briefly. */
export async function recordRunningTexts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as RunningWindow).runningTexts = seen;
    const panel = document.querySelector(".compaction-panel") as Element;
    new MutationObserver(() => {
      const text = panel.querySelector(".running")?.textContent;
      if (text) seen.push(text);
    }).observe(panel, { subtree: true, childList: true, characterData: true });
  });
}

/** The texts recorded since recordRunningTexts. */
export const runningTexts = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as RunningWindow).runningTexts);

/** Focuses the tree node of `entryId` and presses Enter: the move dialog, once it is open. */
export async function openMoveDialog(page: Page, entryId: string): Promise<Locator> {
  await page.locator(`.tree-node[data-entry-id="${entryId}"]`).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Move the view leaf" });
  await dialog.waitFor();
  return dialog;
}

/**
 * Moves the view leaf to `entryId` with a branch summary (the move dialog's Summarize, no
 * instructions) and waits until the summary runs.
 */
export async function summarizeBranchTo(page: Page, entryId: string): Promise<void> {
  const dialog = await openMoveDialog(page, entryId);
  await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByText("Summarizing the branch…", { exact: false }).first().waitFor();
}

/** The plan session to import: its id, cwd and the name of its file in the app's folder. */
export interface PlanSessionFile {
  id: string;
  cwd: string;
  file: string;
}

/**
 * startE2eChatApp with `session` (planSession's header and turns 1–3: u1, a1 … u3, a3, the view
 * leaf a3) imported and branchSummary.enabled on; stops the app if any of it fails.
 */
export async function startBranchSummaryApp(
  name: string,
  setup: FakeModelSetup,
  session: PlanSessionFile,
): Promise<{ app: E2eChatApp; sessionId: string }> {
  const app = await startE2eChatApp(name, setup);
  try {
    const { header, turn } = planSession(session.id, session.cwd, "2026-02-01T10:00:00.000Z");
    const file = path.join(app.work, session.file);
    writeFileSync(file, `${[header, ...[1, 2, 3].flatMap(turn)].join("\n")}\n`);
    const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
    await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: true });
    return { app, sessionId: report.files[0]?.sessionId as string };
  } catch (error) {
    await app.stop();
    throw error;
  }
}
