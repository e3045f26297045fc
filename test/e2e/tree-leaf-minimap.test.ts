// The first view of a session on the tests' 1280×800 page (browser mode, Debian's Chromium): the
// view leaf — its node and its "leaf" marker — is never drawn under the minimap in the canvas's
// bottom-right corner. It was, for the demo sessions (the node's right edge) and for a real pi
// session whose few top nodes fill the canvas (the marker and half the node).
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

describe("the first view of a session", () => {
  it("keeps the view leaf and its marker clear of the minimap", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    expect(sessions.length).toBe(4);
    for (const session of sessions) {
      await page.goto(`${app.mode.url}#/session/${encodeURIComponent(session.id)}`);
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
      const leaf = page.locator(`.react-flow .tree-node[data-entry-id="${session.viewLeafId}"]`);
      await leaf.waitFor();
      await viewportSettled(page);
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
