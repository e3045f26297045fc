// A request note shared by many messages, in Debian's Chromium (browser mode): its "Show which"
// list stays in view while its numbers scroll the pane to their messages (pinned to the top of
// the pane), is reached from the keyboard (the focus goes to it when opened), and Escape closes
// it, the focus back on "Show which".
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
const SESSION = "e2e-which";
const TURNS = 30;
const VIEWPORT_HEIGHT = 800;

const at = (s: number) => new Date(Date.UTC(2026, 3, 1, 8, 0, s)).toISOString();
const entry = (id: string, parentId: string | null, message: object) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: at(1), message });

/** 30 turns whose replies all have thinking: Canopy's request sends none, a note on 30 messages. */
function session(): string {
  const lines = [
    JSON.stringify({ type: "session", version: 3, id: SESSION, timestamp: at(0), cwd: "/tmp/e2e-which" }),
  ];
  let parent: string | null = null;
  for (let i = 0; i < TURNS; i++) {
    lines.push(
      entry(`u${i}`, parent, {
        role: "user",
        content: [{ type: "text", text: `Question ${i}` }],
        timestamp: 1,
      }),
    );
    const content = [
      { type: "thinking", thinking: `Thinking ${i}.` },
      { type: "text", text: `Answer ${i}.` },
    ];
    const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 };
    const reply = {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "m",
      usage,
      stopReason: "stop",
      timestamp: 2,
    };
    lines.push(entry(`a${i}`, `u${i}`, reply));
    parent = `a${i}`;
  }
  return `${lines.join("\n")}\n`;
}

beforeAll(async () => {
  app = await startE2eApp("which");
  const file = path.join(app.work, "which.jsonl");
  writeFileSync(file, session());
  await apiCall(app.mode, "library:import", { path: file });
  // A model set: the request is Canopy's own, which carries no thinking.
  await apiCall(app.mode, "settings:set", {
    key: "model",
    value: { baseUrl: "http://127.0.0.1:9/v1", id: "local-model" },
  });
});

afterAll(async () => {
  await app?.stop();
});

/** Whether the element is wholly inside the window. */
function inViewport(locator: Locator): Promise<boolean> {
  return locator.evaluate((node, height) => {
    // Runs in the page; the test's type-check has no DOM library, hence the structural type.
    const box = (
      node as unknown as { getBoundingClientRect(): { top: number; bottom: number } }
    ).getBoundingClientRect();
    return box.top >= 0 && box.bottom <= height;
  }, VIEWPORT_HEIGHT);
}

/** The accessible name of the focused element. */
function focusedName(): Promise<string | null> {
  return app.page.evaluate(
    `document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? null`,
  ) as Promise<string | null>;
}

describe("a shared request note's 'Show which' list", () => {
  it("opens from the keyboard with the focus in it, stays in view as it goes to messages, and closes on Escape", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, SESSION);
    const view = page.getByTestId("llm-view");
    await poll(() => view.locator("[data-role]").count()).toBe(2 * TURNS);
    const line = page
      .getByTestId("request-note-groups")
      .locator('.request-group[data-group="thinking-removed:canopy"]');
    const show = line.getByRole("button", { name: "Show which" });
    await show.focus();
    await page.keyboard.press("Enter");
    const list = page.getByRole("list", {
      name: `Messages: ${(await line.textContent())?.split(" Hide which")[0]}`,
    });
    await list.waitFor();
    expect(await list.getByRole("button").count()).toBe(TURNS);
    // The focus is in the list: the first number, then Tab goes on through the numbers.
    await poll(focusedName).toBe("Go to message 2 (entry a0)");
    await page.keyboard.press("Tab");
    expect(await focusedName()).toBe("Go to message 4 (entry a1)");

    // Going to a message far down scrolls the pane to it; the list stays in view to pick another.
    const far = view.locator('[data-entry-id="a24"]');
    expect(await inViewport(far)).toBe(false);
    await list.getByRole("button", { name: "Go to message 50 (entry a24)" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => inViewport(far)).toBe(true);
    expect(await inViewport(list)).toBe(true);
    await page.screenshot({ path: path.join(artifactsDir(), "request-note-which.png") });
    // Another number from there, back up the list.
    const near = view.locator('[data-entry-id="a2"]');
    await list.getByRole("button", { name: "Go to message 6 (entry a2)" }).click();
    await poll(() => inViewport(near)).toBe(true);
    expect(await inViewport(list)).toBe(true);

    // Escape closes it; the focus goes back to the line's button.
    await list.getByRole("button", { name: "Go to message 6 (entry a2)" }).focus();
    await page.keyboard.press("Escape");
    await poll(() => list.count()).toBe(0);
    expect(await show.getAttribute("aria-expanded")).toBe("false");
    expect(await focusedName()).toBe("Show which");
  });
});
