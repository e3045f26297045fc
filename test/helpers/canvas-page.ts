/**
 * What the editing browser tests do on the canvas page: a session's path from the tree DTO,
 * opening a session at its deep link with every entry shown (filter "all", chains expanded, fit)
 * or from the library sidebar, and waiting until a pan or zoom of the canvas has come to rest.
 */
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import type { ContextView, SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "./browser-mode.ts";

/** expect.poll with room for a loaded machine (the default is one second). */
export const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

/** Entries from the root to `id` (inclusive). */
export function pathTo(nodes: readonly TreeNodeDto[], id: string | null): TreeNodeDto[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const path: TreeNodeDto[] = [];
  for (let node = id ? byId.get(id) : undefined; node; node = byId.get(node.parentId ?? "")) path.unshift(node);
  return path;
}

/** Opens a session (optionally with an entry selected), waits for its canvas and LLM view, shows every entry. */
export async function openSessionShowingAll(
  page: Page,
  mode: BrowserMode,
  sessionId: string,
  leafId?: string,
): Promise<void> {
  const hash = `#/session/${encodeURIComponent(sessionId)}${leafId ? `?leaf=${leafId}` : ""}`;
  await page.goto(`${mode.url}${hash}`);
  await page.getByTestId("tree-canvas").waitFor();
  await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
  const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
  await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(leafId ?? tree.viewLeafId ?? "");
  await page.getByRole("combobox", { name: /^Filter/ }).selectOption("all");
  await page.getByLabel("Collapse long chains").uncheck();
  await page.getByRole("button", { name: "Fit View" }).click();
  await viewportSettled(page);
}

/**
 * Waits until the canvas's viewport (React Flow's pan and zoom transform) has not moved for
 * 10 frames and 300 ms, so an animated move ("Go to leaf" pans for 250 ms) has ended: a fixed
 * sleep let a test read node positions mid-pan on a loaded machine. Fails after `timeoutMs`.
 */
export async function viewportSettled(page: Page, timeoutMs = 10_000): Promise<void> {
  const settled = await page.evaluate(
    ({ timeoutMs }) =>
      new Promise<boolean>((resolve) => {
        const started = performance.now();
        const read = () => document.querySelector<HTMLElement>(".react-flow__viewport")?.style.transform ?? null;
        let last = read();
        let stableSince = started;
        let stableFrames = 0;
        const frame = () => {
          const now = performance.now();
          const current = read();
          if (current !== last) {
            last = current;
            stableSince = now;
            stableFrames = 0;
          } else stableFrames++;
          if (current !== null && stableFrames >= 10 && now - stableSince >= 300) resolve(true);
          else if (now - started > timeoutMs) resolve(false);
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    { timeoutMs },
  );
  if (!settled) throw new Error(`the canvas viewport was still moving (or absent) after ${timeoutMs} ms`);
}

/** Opens a session from the library sidebar and waits for the LLM view to show its view leaf. */
export async function openFromSidebar(
  page: Page,
  mode: BrowserMode,
  sessionId: string,
): Promise<ContextView> {
  await page.locator(`.session-groups [data-session-id="${sessionId}"]`).first().click();
  const expected = await apiCall<ContextView>(mode, "context:get", { sessionId });
  await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(expected.leafId ?? "");
  return expected;
}

/**
 * A locator's text, null while it is absent, read without waiting: count() then textContent()
 * hung for the page's 10 s default timeout when the element went away in between (a cleared line).
 */
export const textOf = async (locator: Locator) => (await locator.allTextContents())[0] ?? null;
