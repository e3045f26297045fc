/**
 * What the browser tests of summaries (compaction, branch summary) share: the running line's
 * texts recorded as they come, and the "Move the view leaf" dialog opened from a tree node.
 */
import type { Locator, Page } from "playwright-core";

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
