/**
 * What the editing browser tests do on the canvas page: a session's path from the tree DTO, and
 * opening a session at its deep link with every entry shown (filter "all", chains expanded, fit)
 * or from the library sidebar.
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
  await page.waitForTimeout(300);
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
