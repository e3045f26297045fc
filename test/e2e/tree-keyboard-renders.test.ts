// A big session's canvas (Debian's Chromium, browser mode, a generated 4,000-entry
// session): a move that lands inside a collapsed chain reveals that entry as its own node, and
// must re-render only the node components whose look changed — not every node on screen. Renders
// are counted through React's devtools hook (in the production build: a function component fiber
// that did work in a commit), so the test needs no hook in the app. Opening it says what it is
// doing (fetching, laying out) with the entry count, instead of one unchanging line.
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGeneratedSession } from "../../bench/generate-session.ts";
import type { ImportReport, SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { COUNT_TREE_RENDERS, type TreeRenders } from "../helpers/react-render-count.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;
let work: string;
let sessionId: string;
let tree: SessionTreeDto;

beforeAll(async () => {
  app = await startE2eApp("tree-keys", { serve: { seedDemo: false } });
  ({ mode, page, work } = app);
  const generated = writeGeneratedSession(path.join(work, "sessions", "generated.jsonl"), 4000);
  const report = await apiCall<ImportReport>(mode, "library:import", { path: generated.file });
  expect(report.imported).toBe(1);
  const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
  sessionId = (sessions[0] as SessionSummary).id;
  tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
  await page.addInitScript(COUNT_TREE_RENDERS);
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

const renders = () => page.evaluate("window.__treeRenders") as Promise<TreeRenders>;
const selected = () =>
  page.evaluate(`document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`) as Promise<
    string | null
  >;
const nodeCount = async () => Number(await page.getByTestId("tree-canvas").getAttribute("data-node-count"));

describe("a big session's canvas", () => {
  it("re-render only the nodes a move changes, also when it reveals an entry of a chain", async () => {
    await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}`);
    const leaf = page.locator(`.tree-node[data-entry-id="${tree.viewLeafId}"]`);
    await leaf.waitFor({ timeout: 60_000 });
    await leaf.click();
    await expect.poll(selected).toBe(tree.viewLeafId);
    // The whole tree in view: React Flow mounts every node, as on a big screen zoomed out.
    await page.getByRole("button", { name: "Fit View" }).click();
    await leaf.focus();
    await viewportSettled(page);
    const onScreen = await page.locator(".react-flow__node").count();

    const moves: { renders: number; revealed: boolean }[] = [];
    for (let i = 0; i < 6; i++) {
      const before = await selected();
      const nodesBefore = await nodeCount();
      await page.evaluate("window.__treeRenders = { entry: 0, chain: 0 }");
      await page.keyboard.press("ArrowUp");
      // A new entry is selected (the selection can be briefly unmarked while a chain splits).
      await expect.poll(async () => ((await selected()) ?? before) !== before).toBe(true);
      // The LLM view's answer and any pan have ended (a fixed 400 ms let a loaded machine count
      // a move's late renders with the next one).
      await expect
        .poll(async () => {
          const now = await selected();
          return now !== null && (await page.getByTestId("llm-view").getAttribute("data-leaf-id")) === now;
        })
        .toBe(true);
      await viewportSettled(page);
      const counted = await renders();
      moves.push({ renders: counted.entry + counted.chain, revealed: (await nodeCount()) !== nodesBefore });
    }
    // The chains above the leaf are long: going up lands inside one, which splits around the entry.
    expect(moves.some((move) => move.revealed)).toBe(true);
    expect(onScreen).toBeGreaterThan(12);
    // The old and the new selection, the chain that split, a node scrolled into view: a handful,
    // whatever the number of nodes on screen (every one of them re-rendered before).
    expect(Math.max(...moves.map((move) => move.renders)), JSON.stringify({ moves, onScreen })).toBeLessThanOrEqual(6);
  }, 180_000);

  it("says what opening the tree is doing: fetching, then laying out, with the entry count", async () => {
    await page.goto(mode.url);
    await page.locator(`.session-groups [data-session-id="${sessionId}"]`).waitFor();
    await page.evaluate(`(() => {
      const seen = [];
      window.__stages = seen;
      new MutationObserver(() => {
        const line = document.querySelector('[data-testid="tree-loading"]');
        const state = line ? line.getAttribute("data-stage") + " " + line.textContent : null;
        if (state && seen[seen.length - 1] !== state) seen.push(state);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await page.locator(`.session-groups [data-session-id="${sessionId}"]`).click();
    await page.locator(".react-flow .tree-node").first().waitFor({ timeout: 60_000 });
    const stages = (await page.evaluate("window.__stages")) as string[];
    const entries = tree.nodes.length.toLocaleString("en-US");
    expect(stages.some((s) => s.startsWith("fetching Loading the session tree of"))).toBe(true);
    expect(stages.some((s) => s.startsWith("laying-out Laying out the session tree of"))).toBe(true);
    expect(stages.every((s) => s.includes(" entries…")), JSON.stringify({ stages, entries })).toBe(true);
    await expect.poll(() => page.getByTestId("tree-loading").count()).toBe(0);
  }, 120_000);
});
