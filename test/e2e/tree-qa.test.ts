// What a demanding user meets on the canvas (browser mode, Debian's Chromium, a small session):
// dropping the leaf marker back onto the view leaf, or Enter on it, says "Already at this point"
// (SPEC §10.4) instead of doing nothing silently; a node whose text or label is cut shows them
// whole in its tooltip; Home and End select the root above and the tip of the branch below; the
// arrows keep working after the focused node was panned off screen (and so unmounted).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const LONG = `Please move the cache. ${"Every entry of the index is written twice on a flush; ".repeat(6)}`;
const LABEL = "milestone: the cache moved out of the parser";
const ALREADY = "Already at this point: that entry is the view leaf.";

let app: E2eApp;
let sessionId: string;

/** r ─ a1 ─ u2 (long text, long label) ─ a2 (view leaf);  a1 ─ x1 (another branch) */
function sessionFile(): string {
  const at = (second: number) => `2026-12-02T09:37:${String(10 + second).padStart(2, "0")}.000Z`;
  const user = (id: string, parentId: string | null, text: string, second: number) => ({
    type: "message",
    id,
    parentId,
    timestamp: at(second),
    message: { role: "user", content: text },
  });
  const assistant = (id: string, parentId: string, text: string, second: number) => ({
    type: "message",
    id,
    parentId,
    timestamp: at(second),
    message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
  });
  const lines = [
    { type: "session", version: 3, id: "qa-session", timestamp: at(0), cwd: "/tmp/qa" },
    user("r", null, "Where is the cache written?", 1),
    assistant("a1", "r", "In the parser.", 2),
    user("u2", "a1", LONG, 3),
    assistant("a2", "u2", "Moved.", 4),
    user("x1", "a1", "Or leave it there?", 5),
  ];
  const file = path.join(app.work, "qa.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

const selected = () =>
  app.page.evaluate(
    `document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`,
  );

beforeAll(async () => {
  app = await startE2eApp("tree-qa");
  await apiCall(app.mode, "library:import", { path: sessionFile() });
  const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
  sessionId = sessions.find((session) => session.firstMessage?.startsWith("Where is the cache"))
    ?.id as string;
  expect(sessionId).toBeDefined();
  await apiCall(app.mode, "navigation:navigate", { sessionId, targetId: "a2", summarize: false });
  await apiCall(app.mode, "edits:label", { sessionId, targetId: "u2", label: LABEL });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the canvas as a demanding user meets it", () => {
  it("says “Already at this point” for the leaf marker dropped on the view leaf, and for Enter on it", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, sessionId);
    await page.getByRole("button", { name: "Go to leaf" }).click();
    await viewportSettled(page);
    const leaf = page.locator('.tree-node[data-entry-id="a2"]');
    const marker = await page.getByTestId("leaf-marker").boundingBox();
    const box = await leaf.boundingBox();
    if (!marker || !box) throw new Error("the view leaf is not on screen");

    await page.mouse.move(marker.x + marker.width / 2, marker.y + marker.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 40, box.y + 30, { steps: 6 });
    await page.mouse.move(box.x + 60, box.y + 40, { steps: 4 });
    await poll(() => page.locator(".drag-ghost").textContent()).toBe(ALREADY);
    await page.mouse.up();
    await poll(() => page.getByTestId("tree-hint").textContent()).toBe(ALREADY);
    // One line across the canvas, not squeezed into half of it.
    const hint = await page.getByTestId("tree-hint").boundingBox();
    expect(hint?.height).toBeLessThan(32);
    await expect(page.getByRole("dialog").count()).resolves.toBe(0);
    // The line fades by itself.
    await poll(() => page.getByTestId("tree-hint").textContent()).toBe("");

    await leaf.click();
    await poll(selected).toBe("a2");
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("tree-hint").textContent()).toBe(ALREADY);
    const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
    expect(tree.viewLeafId).toBe("a2");
  });

  it("gives a node's cut text and label whole in its tooltip", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, sessionId);
    const node = page.locator('.tree-node[data-entry-id="u2"]');
    // Both are cut on the node: two lines of text, a label badge of at most 90 px.
    const cut = await node.evaluate((element) => {
      const text = element.querySelector(".tree-node-text") as HTMLElement;
      const badge = element.querySelector(".label-badge") as HTMLElement;
      return [text.scrollHeight > text.clientHeight, badge.scrollWidth > badge.clientWidth];
    });
    expect(cut).toEqual([true, true]);
    const title = await node.getAttribute("title");
    expect(title).toContain(LABEL);
    expect(title).toContain(LONG.trim().slice(0, 119));
  });

  it("gives the session's title whole in the heading's tooltip when a narrow window cuts it", async () => {
    const { page, mode } = app;
    const long = `Moving the cache out of the parser, ${"and every index flush with it, ".repeat(4)}for good`;
    await apiCall(mode, "edits:rename", { sessionId, title: long });
    await page.setViewportSize({ width: 1000, height: 700 });
    try {
      await openSessionShowingAll(page, mode, sessionId);
      const heading = page.locator(".session-heading");
      await poll(() => heading.textContent()).toBe(long);
      expect(await heading.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      expect(await heading.getAttribute("title")).toContain(long);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await apiCall(mode, "edits:rename", { sessionId, title: null });
    }
  });

  it("moves the selection to the root with Home and to the branch tip with End", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, sessionId);
    await page.locator('.tree-node[data-entry-id="u2"]').click();
    await poll(selected).toBe("u2");
    await page.keyboard.press("Home");
    await poll(selected).toBe("r");
    await poll(() => page.evaluate(`document.activeElement?.getAttribute("data-entry-id") ?? null`)).toBe(
      "r",
    );
    await page.keyboard.press("End");
    await poll(selected).toBe("a2");
    // The canvas pans to the tip: the keys go on once its node has the focus, as after Home.
    await poll(() => page.evaluate(`document.activeElement?.getAttribute("data-entry-id") ?? null`)).toBe(
      "a2",
    );
    await page.keyboard.press("ArrowUp");
    await poll(selected).toBe("u2");
    await page.keyboard.press("ArrowRight");
    await poll(selected).toBe("x1");
    await page.keyboard.press("Home");
    await poll(selected).toBe("r");
  });

  // The focus follows a move a frame or more later (after a pan, on a loaded machine): a key
  // pressed meanwhile acted again from the node the move left (CI: ArrowUp then ArrowRight from
  // a2 stayed on u2, a2 having no sibling).
  it("goes on from the entry a move selected when the next key comes before the focus has followed", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, sessionId);
    await page.locator('.tree-node[data-entry-id="a2"]').click();
    await poll(selected).toBe("a2");
    await poll(() => page.evaluate(`document.activeElement?.getAttribute("data-entry-id") ?? null`)).toBe(
      "a2",
    );
    // Both keys in one task: no frame runs between them, so the focus is still on a2.
    const focusedMeanwhile = await page.evaluate(() => {
      const press = (key: string) =>
        document.activeElement?.dispatchEvent(
          new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }),
        );
      press("ArrowUp");
      const focused = document.activeElement?.getAttribute("data-entry-id") ?? null;
      press("ArrowRight");
      return focused;
    });
    expect(focusedMeanwhile).toBe("a2");
    await poll(selected).toBe("x1");
    await poll(() => page.evaluate(`document.activeElement?.getAttribute("data-entry-id") ?? null`)).toBe(
      "x1",
    );
  });

  it("keeps the keyboard in the tree when the focused node is panned off screen", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, sessionId);
    await page.locator('.tree-node[data-entry-id="u2"]').click();
    await poll(selected).toBe("u2");
    const flow = await page.locator(".tree-flow").boundingBox();
    if (!flow) throw new Error("no canvas");
    await page.mouse.move(flow.x + flow.width / 2, flow.y + flow.height / 2);
    // Far enough that React Flow renders none of the nodes any more.
    for (let i = 0; i < 8; i++) await page.mouse.wheel(0, 800);
    await poll(() => page.locator(".tree-node").count()).toBe(0);
    await poll(() => page.evaluate(`document.activeElement?.getAttribute("role") ?? null`)).toBe("tree");
    await page.keyboard.press("ArrowUp");
    await poll(selected).toBe("a1");
    await poll(() => page.evaluate(`document.activeElement?.getAttribute("data-entry-id") ?? null`)).toBe(
      "a1",
    );
  });
});
