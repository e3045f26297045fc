// Dragging the view leaf where the drop is not on an entry, in Chromium through browser mode: a
// release over the minimap does not drop onto the entry hidden beneath it; a wheel pan under a
// still pointer retargets the drop to what is drawn there now; leaving the window, or a move with
// the button already released elsewhere, cancels the drag (no ghost left following the pointer,
// no dialog at the next click); the agent appending to the file mid-drag does not pan the canvas
// away from the entry the pointer aims at, and the move dialog it stays open under counts the
// branch left as it is once the view leaf followed the new lines. Shift+Enter is the keyboard's
// drop: it asks whatever the setting. A drop on a collapsed run says to expand it first.
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, viewportSettled } from "../helpers/canvas-page.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import { startBranchSummaryApp } from "../helpers/job-page.ts";
import { planSession } from "../helpers/plan-session.ts";

let app: E2eChatApp;
let page: Page;
let sessionId: string;
const SESSION = { id: "0195f0c2-2222-7000-8000-00000000d4a9", cwd: "/work/drag-stray", file: "drag-stray.jsonl" };

beforeAll(async () => {
  ({ app, sessionId } = await startBranchSummaryApp(
    "tree-drag-stray",
    {
      key: { env: "CANOPY_E2E_DRAG_STRAY_KEY", value: "sk-e2e-drag-stray" },
      model: { id: "fake-drag", contextWindow: 128000 },
    },
    SESSION,
  ));
  ({ page } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

beforeEach(async () => {
  await openSessionShowingAll(page, app.mode, sessionId);
});

async function centre(selector: string): Promise<{ x: number; y: number }> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not on screen`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

const node = (id: string) => `.tree-node[data-entry-id="${id}"]`;
const dropTarget = () => page.locator('[data-drop-target="true"]').getAttribute("data-entry-id", { timeout: 100 }).catch(() => null);
const dragging = () => page.locator(".tree-canvas.branch-dragging, .drag-ghost").count();
const dialogs = () => page.getByRole("dialog", { name: "Move the view leaf" }).count();
const viewLeaf = async () => (await apiCall<{ viewLeafId: string }>(app.mode, "session:tree", { sessionId })).viewLeafId;

/** Presses on `from` and moves past the drag threshold onto `to`, until `to` is the drop target. */
async function dragOnto(from: { x: number; y: number }, to: { x: number; y: number }, targetId: string | null) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 20, from.y + 20, { steps: 3 });
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await poll(() => page.locator(".drag-ghost").count()).toBe(1);
  if (targetId) await poll(dropTarget).toBe(targetId);
}

describe("dragging the view leaf off the entries", () => {
  it("a release over the minimap, above an entry drawn beneath it, moves nothing", async () => {
    const minimap = await page.locator(".react-flow__minimap").boundingBox();
    if (!minimap) throw new Error("no minimap");
    const spot = { x: minimap.x + 40, y: minimap.y + 40 };
    // Pan the graph (dragging the empty pane) so that a1 lies under the minimap.
    const a1 = await centre(node("a1"));
    const pane = await page.locator(".react-flow__pane").boundingBox();
    if (!pane) throw new Error("no pane");
    const start = { x: pane.x + 20, y: pane.y + 150 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    await page.mouse.move(start.x + spot.x - a1.x, start.y + spot.y - a1.y, { steps: 10 });
    await page.mouse.up();
    await viewportSettled(page);
    const beneath = await page.evaluate(
      ({ x, y }) => document.elementsFromPoint(x, y).find((e) => e.matches(".tree-node"))?.getAttribute("data-entry-id"),
      spot,
    );
    expect(beneath).toBe("a1");

    await dragOnto(await centre(node("u1")), spot, null);
    expect(await page.locator(".drag-ghost").textContent()).toBe("Drop on an entry to move the view leaf there");
    expect(await dropTarget()).toBeNull();
    await page.mouse.up();
    await poll(dragging).toBe(0);
    expect(await dialogs()).toBe(0);
    expect(await viewLeaf()).toBe("a3");
  });

  it("a wheel pan under a still pointer retargets the drop to the entry drawn there now", async () => {
    const a1 = await centre(node("a1"));
    await dragOnto(await centre('[data-testid="leaf-marker"]'), a1, "a1");
    await page.mouse.wheel(0, 300);
    const under = () =>
      page.evaluate(
        ({ x, y }) => document.elementFromPoint(x, y)?.closest(".tree-node")?.getAttribute("data-entry-id") ?? null,
        a1,
      );
    await poll(under).not.toBe("a1");
    await viewportSettled(page);
    const now = await under();
    await poll(dropTarget).toBe(now);
    await page.keyboard.press("Escape");
    await page.mouse.up();
    await poll(dragging).toBe(0);
    expect(await dialogs()).toBe(0);
  });

  it("leaving the window mid-drag cancels it: no ghost, and the next release opens nothing", async () => {
    await dragOnto(await centre('[data-testid="leaf-marker"]'), await centre(node("a1")), "a1");
    await page.evaluate(() => window.dispatchEvent(new FocusEvent("blur")));
    await poll(dragging).toBe(0);
    await page.mouse.up();
    // The press-and-release after coming back is a click, not a drop.
    await page.mouse.down();
    await page.mouse.up();
    expect(await dialogs()).toBe(0);
    expect(await viewLeaf()).toBe("a3");
  });

  it("a move with the button released where the page did not hear it cancels the drag", async () => {
    const a1 = await centre(node("a1"));
    await dragOnto(await centre('[data-testid="leaf-marker"]'), a1, "a1");
    // What Chromium sends after a release outside the window: a move with no button held.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: a1.x + 5, y: a1.y, button: "none", buttons: 0 });
    await poll(dragging).toBe(0);
    await cdp.detach();
    await page.mouse.up();
    expect(await dialogs()).toBe(0);
    expect(await viewLeaf()).toBe("a3");
  });

  // Last: the session grows (u4, a4) and its view leaf follows the file.
  it("the agent appending mid-drag keeps the view still: the drop lands on the entry aimed at", async () => {
    const transform = () =>
      page.evaluate(() => document.querySelector<HTMLElement>(".react-flow__viewport")?.style.transform ?? null);
    await dragOnto(await centre('[data-testid="leaf-marker"]'), await centre(node("a1")), "a1");
    const before = await transform();
    const { turn } = planSession(SESSION.id, SESSION.cwd, "2026-02-01T10:00:00.000Z");
    const file = path.join(app.work, SESSION.file);
    fs.appendFileSync(file, `${turn(4).join("\n")}\n`);
    await apiCall(app.mode, "library:import", { path: file });
    // The view leaf followed the file (a4, below the canvas's edge, is not drawn).
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a4");
    await viewportSettled(page);
    expect(await transform()).toBe(before);
    expect(await dropTarget()).toBe("a1");
    await page.mouse.up();
    const dialog = page.getByRole("dialog", { name: "Move the view leaf" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("a1");
    await page.keyboard.press("Escape");
    await poll(dialogs).toBe(0);
    expect(await viewLeaf()).toBe("a4");
  });

  it("the move dialog open while the agent appends counts the branch left as it is now", async () => {
    await dragOnto(await centre('[data-testid="leaf-marker"]'), await centre(node("a1")), "a1");
    await page.mouse.up();
    const count = page.getByTestId("branch-summary-count");
    // Left behind from the view leaf a4: u2, a2, u3, a3, u4, a4.
    await poll(() => count.textContent()).toContain(" 6 entries");
    const { turn } = planSession(SESSION.id, SESSION.cwd, "2026-02-01T10:00:00.000Z");
    const file = path.join(app.work, SESSION.file);
    fs.appendFileSync(file, `${turn(5).join("\n")}\n`);
    await apiCall(app.mode, "library:import", { path: file });
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a5");
    await poll(() => count.textContent()).toContain(" 8 entries");
    await page.getByRole("button", { name: "Cancel" }).click();
    await poll(dialogs).toBe(0);
  });

  it("Shift+Enter on an entry asks as a drop does, with the setting to ask off", async () => {
    await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: false });
    const leaf = await viewLeaf();
    await page.locator(node("a1")).focus();
    await page.keyboard.press("Shift+Enter");
    const dialog = page.getByRole("dialog", { name: "Move the view leaf" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("data-target-id")).toBe("a1");
    await poll(() => dialog.getByRole("button", { name: "Summarize", exact: true }).isEnabled()).toBe(true);
    await page.keyboard.press("Escape");
    await poll(dialogs).toBe(0);
    expect(await viewLeaf()).toBe(leaf);
  });

  it("the leaf marker dragged while the view leaf follows a new line is that leaf: over it, 'Already at this point'", async () => {
    await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: true });
    const marker = await centre('[data-testid="leaf-marker"]');
    await dragOnto(marker, await centre(node("a3")), "a3");
    const { turn } = planSession(SESSION.id, SESSION.cwd, "2026-02-01T10:00:00.000Z");
    const file = path.join(app.work, SESSION.file);
    fs.appendFileSync(file, `${turn(6).join("\n")}\n`);
    await apiCall(app.mode, "library:import", { path: file });
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a6");
    // Wheel the canvas (the drag goes on) until the new view leaf is drawn, then aim at it.
    const a6 = page.locator(node("a6"));
    await poll(async () => {
      if ((await a6.count()) === 0) await page.mouse.wheel(0, 120);
      return a6.count();
    }).toBe(1);
    await viewportSettled(page);
    const spot = await centre(node("a6"));
    await page.mouse.move(spot.x, spot.y, { steps: 4 });
    await poll(() => page.locator(".drag-ghost").textContent()).toBe("Already at this point: that entry is the view leaf.");
    expect(await dropTarget()).toBeNull();
    await page.mouse.up();
    await poll(() => page.getByTestId("tree-hint").textContent()).toContain("Already at this point");
    expect(await dialogs()).toBe(0);
    expect(await viewLeaf()).toBe("a6");
  });

  it("a drop on a collapsed run moves nothing and says to expand it first", async () => {
    // u1 … a6 in one line: the entries between the root and the view leaf collapse into a run.
    await page.getByLabel("Collapse long chains").check();
    const chain = page.locator(".tree-node[data-chain-id]");
    await chain.waitFor();
    await page.getByRole("button", { name: "Fit View" }).click();
    await viewportSettled(page);
    // The view leaf's node (its left part: the minimap may cover its marker at this size).
    const leaf = await page.locator(node("a6")).boundingBox();
    if (!leaf) throw new Error("a6 is not on screen");
    await dragOnto({ x: leaf.x + 30, y: leaf.y + leaf.height / 2 }, await centre(".tree-node[data-chain-id]"), null);
    const over = "A collapsed run: click it to show its entries, then drop on one of them.";
    await poll(() => page.locator(".drag-ghost").textContent()).toBe(over);
    await page.mouse.up();
    await poll(() => page.getByTestId("tree-hint").textContent()).toBe(over);
    expect(await dialogs()).toBe(0);
    expect(await chain.count()).toBe(1);
    expect(await viewLeaf()).toBe("a6");
  });
});
