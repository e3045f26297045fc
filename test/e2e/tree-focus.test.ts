// Where the keyboard focus lands when the canvas moves it to a node that is not on screen (browser
// mode, Debian's Chromium, a 60-entry path): "Go to leaf" from far above, and closing the branch
// dialog after the canvas was panned away from its entry, and Re-collapse (a button that goes away
// once clicked) leave the arrow keys working on the tree (the node once it is drawn, else the tree
// itself) instead of on a toolbar button or <body>.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const DEPTH = 60;
const id = (k: number) => `e${k}`;

let app: E2eApp;
let sessionId: string;

/** e0 ─ e1 ─ … ─ e59 (the view leaf), users and assistants in turn. */
function sessionFile(): string {
  const at = (k: number) => new Date(Date.UTC(2026, 11, 3, 9, 0, k)).toISOString();
  const lines: object[] = [
    { type: "session", version: 3, id: "focus-session", timestamp: at(0), cwd: "/tmp/f" },
  ];
  for (let k = 0; k < DEPTH; k++) {
    const base = { type: "message", id: id(k), parentId: k === 0 ? null : id(k - 1), timestamp: at(k + 1) };
    lines.push(
      k % 2 === 0
        ? { ...base, message: { role: "user", content: k === 0 ? "Focus walk start" : `Question ${k}` } }
        : {
            ...base,
            message: {
              role: "assistant",
              content: [{ type: "text", text: `Answer ${k}` }],
              stopReason: "stop",
            },
          },
    );
  }
  const file = path.join(app.work, "focus.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

const selected = () =>
  app.page.evaluate(
    `document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`,
  );
const focused = () =>
  app.page.evaluate(
    `(() => { const a = document.activeElement; return a?.getAttribute("data-entry-id") ?? a?.getAttribute("role") ?? a?.tagName ?? null; })()`,
  );

beforeAll(async () => {
  app = await startE2eApp("tree-focus");
  await apiCall(app.mode, "library:import", { path: sessionFile() });
  const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
  sessionId = sessions.find((session) => session.firstMessage?.startsWith("Focus walk start"))?.id as string;
  expect(sessionId).toBeDefined();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** Selects the root and waits until the view rests on it, zoomed in: the leaf is far off screen. */
async function selectRootZoomedIn(): Promise<void> {
  const { page, mode } = app;
  await openSessionShowingAll(page, mode, sessionId);
  await page.locator(`.tree-node[data-entry-id="${id(0)}"]`).click();
  await poll(selected).toBe(id(0));
  await viewportSettled(page);
  await poll(() => page.locator(`.tree-node[data-entry-id="${id(DEPTH - 1)}"]`).count()).toBe(0);
}

describe("the keyboard focus when what had it, or the node it goes to, is gone", () => {
  it("goes to the view leaf after “Go to leaf” from far above, so the arrows go on from there", async () => {
    const { page } = app;
    await selectRootZoomedIn();
    await page.getByRole("button", { name: "Go to leaf" }).click();
    await poll(focused).toBe(id(DEPTH - 1));
    await page.keyboard.press("ArrowUp");
    await poll(selected).toBe(id(DEPTH - 2));
  });

  it("stays in the tree when the branch dialog closes with its entry panned off screen", async () => {
    const { page, mode } = app;
    await apiCall(mode, "settings:set", { key: "branchSummary.enabled", value: true });
    try {
      await selectRootZoomedIn();
      await page.keyboard.press("ArrowDown");
      await poll(selected).toBe(id(1));
      await poll(focused).toBe(id(1));
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Move the view leaf" });
      await dialog.waitFor();
      // Pan far away under the dialog: the entry's node is no longer drawn.
      const flow = await page.locator(".tree-flow").boundingBox();
      if (!flow) throw new Error("no canvas");
      await page.mouse.move(flow.x + flow.width / 2, flow.y + flow.height - 60);
      for (let i = 0; i < 8; i++) await page.mouse.wheel(0, 800);
      await poll(() => page.locator(`.tree-node[data-entry-id="${id(1)}"]`).count()).toBe(0);
      await dialog.getByRole("button", { name: "Cancel" }).focus();
      await page.keyboard.press("Escape");
      await poll(() => dialog.count()).toBe(0);
      await poll(focused).not.toBe("BODY");
      await page.keyboard.press("ArrowDown");
      await poll(selected).toBe(id(2));
    } finally {
      await apiCall(mode, "settings:set", { key: "branchSummary.enabled", value: false });
    }
  });

  it("stays in the tree after Re-collapse, the button that took it going away", async () => {
    const { page, mode } = app;
    // A fresh page: nothing selected, so no entry of the chain is revealed.
    await page.goto("about:blank");
    await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
    await page.getByRole("combobox", { name: /^Filter/ }).selectOption("default");
    await page.getByLabel("Collapse long chains").check();
    await page.locator(`[data-chain-id="chain:${id(1)}"]`).waitFor();
    await page.locator(`.tree-node[data-entry-id="${id(0)}"]`).click();
    await poll(selected).toBe(id(0));
    await page.locator(`[data-chain-id="chain:${id(1)}"]`).click();
    await poll(() => page.locator(`.tree-node[data-entry-id="${id(2)}"]`).count()).toBe(1);
    const recollapse = page.getByRole("button", { name: "Re-collapse" });
    await recollapse.focus();
    await page.keyboard.press("Enter");
    await poll(() => recollapse.count()).toBe(0);
    await poll(focused).toBe(id(0));
    await page.keyboard.press("ArrowDown");
    await poll(selected).toBe(id(1));
  });
});
