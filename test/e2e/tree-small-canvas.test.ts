// The canvas at the desktop app's small window (1000×700: the canvas is ~405×270 px) and on a
// big screen (browser mode, Debian's Chromium, a demo session): on the small canvas the minimap
// is left out and the zoom controls sit in one low row, so they hide little of the tree; on a
// big canvas (and the tests' 1280×800 page) both stay as they were; resizing switches between.
// In a short window the whole canvas, controls included, stays inside the tree's pane: it was
// taller than the pane, so its bottom (the zoom controls, the lowest entries) lay hidden.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll, viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("tree-small-canvas");
  page = app.page;
  const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
  const sessionId = (sessions[0] as SessionSummary).id;
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
  await page.locator(".react-flow .tree-node").first().waitFor();
  await viewportSettled(page);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

const flow = () => page.locator(".tree-flow");
const minimaps = () => page.locator(".react-flow__minimap").count();

/** The canvas's box and the share of it the controls and the minimap cover. */
async function covered() {
  const canvas = await flow().boundingBox();
  const controls = await page.locator(".react-flow__controls").boundingBox();
  const minimap = (await minimaps()) > 0 ? await page.locator(".react-flow__minimap").boundingBox() : null;
  if (!canvas || !controls) throw new Error("no canvas or no controls");
  const area = (box: { width: number; height: number } | null) => (box ? box.width * box.height : 0);
  return { canvas, controls, share: (area(controls) + area(minimap)) / area(canvas) };
}

describe("the canvas's minimap and zoom controls", () => {
  it("leave the small window's canvas mostly free: no minimap, the controls in one row", async () => {
    await poll(() => flow().getAttribute("data-compact")).toBe("true");
    expect(await minimaps()).toBe(0);
    const { canvas, controls, share } = await covered();
    expect(canvas.width).toBeLessThan(440);
    expect(controls.width).toBeGreaterThan(controls.height);
    expect(controls.height).toBeLessThan(40);
    // The minimap and vertical controls covered ~19% of a 405×270 canvas.
    expect(share, JSON.stringify({ canvas, controls })).toBeLessThan(0.04);
    // The controls still work.
    await page.getByRole("button", { name: "Fit View" }).click();
    await page.getByRole("button", { name: "Zoom Out" }).click();
  });

  it("keep the minimap and the vertical controls on a big canvas, and switch when resized", async () => {
    for (const viewport of [
      { width: 1920, height: 1080 },
      { width: 1280, height: 800 },
    ]) {
      await page.setViewportSize(viewport);
      await poll(() => flow().getAttribute("data-compact")).toBe("false");
      await poll(minimaps).toBe(1);
      const minimap = await page.getByRole("img", { name: "Minimap of the session tree" }).boundingBox();
      expect(minimap?.width).toBeCloseTo(150, 0);
      const { controls } = await covered();
      expect(controls.height).toBeGreaterThan(controls.width);
    }
    await page.setViewportSize({ width: 1000, height: 700 });
    await poll(() => flow().getAttribute("data-compact")).toBe("true");
    await poll(minimaps).toBe(0);
  });

  it("stays whole inside the tree's pane in short windows: the zoom controls are not cut off", async () => {
    for (const viewport of [
      { width: 1000, height: 700 },
      { width: 900, height: 600 },
    ]) {
      await page.setViewportSize(viewport);
      await poll(() => flow().getAttribute("data-compact")).toBe("true");
      const box = (selector: string) =>
        page.locator(selector).evaluate((element) => {
          const r = element.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom };
        });
      const pane = await box(".tree-panel");
      const frame = await box(".tree-frame");
      const controls = await box(".react-flow__controls");
      const where = JSON.stringify({ viewport, pane, frame, controls });
      expect(frame.bottom, where).toBeLessThanOrEqual(pane.bottom + 0.5);
      expect(controls.bottom, where).toBeLessThanOrEqual(pane.bottom);
      expect(frame.bottom - frame.top, where).toBeGreaterThanOrEqual(200);
    }
  });
});
