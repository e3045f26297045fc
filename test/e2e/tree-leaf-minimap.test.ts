// The first view of a session on the tests' 1280×800 page (browser mode, Debian's Chromium): the
// view leaf — its node and its "leaf" marker — is never drawn under the minimap in the canvas's
// bottom-right corner. It was, for the demo sessions (the node's right edge) and for a real pi
// session whose few top nodes fill the canvas (the marker and half the node). Fit View keeps them
// clear of the minimap and of the zoom controls too (it used the whole canvas), and an entry
// selected under the minimap counts as off screen, so the view pans to it.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll, viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("tree-leaf-minimap");
  page = app.page;
  await apiCall<ImportReport>(app.mode, "library:import", { path: fixturePath("real-large-session.v1.jsonl") });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Opens `session` and gives its view leaf's node once drawn and the viewport has settled. */
async function openAtViewLeaf(session: SessionSummary) {
  await page.goto(`${app.mode.url}#/session/${encodeURIComponent(session.id)}`);
  await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
  const leaf = page.locator(`.react-flow .tree-node[data-entry-id="${session.viewLeafId}"]`);
  await leaf.waitFor();
  await viewportSettled(page);
  return leaf;
}

describe("the first view of a session", () => {
  it("keeps the view leaf and its marker clear of the minimap", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    expect(sessions.length).toBe(4);
    for (const session of sessions) {
      const leaf = await openAtViewLeaf(session);
      const minimap = await page.locator(".react-flow__minimap").boundingBox();
      const canvas = await page.locator(".tree-flow").boundingBox();
      const node = await leaf.boundingBox();
      const marker = await page.getByTestId("leaf-marker").boundingBox();
      if (!minimap || !canvas || !node || !marker) throw new Error(`${session.id}: no minimap, canvas, leaf or marker`);
      const where = JSON.stringify({ session: session.id, node, marker, minimap });
      expect(overlaps(node, minimap), where).toBe(false);
      expect(overlaps(marker, minimap), where).toBe(false);
      // Still on the canvas, whole.
      expect(node.x >= canvas.x && node.y >= canvas.y, where).toBe(true);
      expect(node.x + node.width <= canvas.x + canvas.width, where).toBe(true);
      expect(node.y + node.height <= canvas.y + canvas.height, where).toBe(true);
    }
  });
});

describe("Fit View", () => {
  it("keeps the view leaf and its marker clear of the minimap and the zoom controls", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    expect(sessions.length).toBe(4);
    for (const session of sessions) {
      const leaf = await openAtViewLeaf(session);
      await page.getByRole("button", { name: "Fit View" }).click();
      await viewportSettled(page);
      await leaf.waitFor();
      const minimap = await page.locator(".react-flow__minimap").boundingBox();
      const controls = await page.locator(".react-flow__controls").boundingBox();
      const node = await leaf.boundingBox();
      const marker = await page.getByTestId("leaf-marker").boundingBox();
      if (!minimap || !controls || !node || !marker)
        throw new Error(`${session.id}: no minimap, controls, leaf or marker`);
      const where = JSON.stringify({ session: session.id, node, marker, minimap, controls });
      expect(overlaps(node, minimap), where).toBe(false);
      expect(overlaps(marker, minimap), where).toBe(false);
      expect(overlaps(node, controls), where).toBe(false);
      expect(overlaps(marker, controls), where).toBe(false);
    }
  });

  it("pans to an entry selected under the minimap", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const session = sessions.find((one) => one.entryCount > 2);
    if (!session) throw new Error("no session of three entries or more");
    const leaf = await openAtViewLeaf(session);
    await leaf.click();
    await poll(() => leaf.getAttribute("aria-selected")).toBe("true");
    // Drag the canvas by an empty spot until the view leaf lies under the minimap.
    const minimap = await page.locator(".react-flow__minimap").boundingBox();
    const node = await leaf.boundingBox();
    if (!minimap || !node) throw new Error("no minimap or leaf");
    const start = await page.evaluate(() => {
      const pane = document.querySelector(".react-flow__pane")?.getBoundingClientRect();
      if (!pane) return null;
      for (let y = pane.top + 20; y < pane.bottom - 20; y += 15)
        for (let x = pane.left + 60; x < pane.right - 180; x += 15)
          if (document.elementFromPoint(x, y)?.classList.contains("react-flow__pane")) return { x, y };
      return null;
    });
    if (!start) throw new Error("no empty spot on the canvas");
    const dx = minimap.x + minimap.width / 2 - (node.x + node.width / 2);
    const dy = minimap.y + minimap.height / 2 - (node.y + node.height / 2);
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    await page.mouse.move(start.x + dx / 2, start.y + dy / 2, { steps: 5 });
    await page.mouse.move(start.x + dx, start.y + dy, { steps: 5 });
    await page.mouse.up();
    await viewportSettled(page);
    const under = await leaf.boundingBox();
    if (!under) throw new Error("no leaf after the drag");
    expect(overlaps(under, minimap), JSON.stringify({ under, minimap })).toBe(true);
    // Up to its parent and back down: the leaf, selected again, is brought out from under the minimap.
    await page.keyboard.press("ArrowUp");
    await viewportSettled(page);
    await page.keyboard.press("ArrowDown");
    await poll(() => leaf.getAttribute("aria-selected")).toBe("true");
    await viewportSettled(page);
    const after = await leaf.boundingBox();
    if (!after) throw new Error("no leaf after the move");
    expect(overlaps(after, minimap), JSON.stringify({ after, minimap })).toBe(false);
  });
});
