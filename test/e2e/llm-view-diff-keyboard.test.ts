// The LLM view's diff from the keyboard, in Debian's Chromium (browser mode): submitting the
// "two entries…" form and closing a diff left the focus on the page's body (the form and the
// diff had gone), so a keyboard user started over from the top of the page. The focus now stays
// on the toolbar button the diff was opened from.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;
const SESSION = "e2e-diff-keys";
const at = (s: number) => new Date(Date.UTC(2026, 3, 1, 8, 0, s)).toISOString();

function session(): string {
  const entry = (id: string, parentId: string | null, message: object) =>
    JSON.stringify({ type: "message", id, parentId, timestamp: at(1), message });
  const ask = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });
  const answer = (text: string) => ({
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "m",
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
    stopReason: "stop",
    timestamp: 2,
  });
  return `${[
    JSON.stringify({ type: "session", version: 3, id: SESSION, timestamp: at(0), cwd: "/tmp/e2e-diff-keys" }),
    entry("u1", null, ask("First question")),
    entry("a1", "u1", answer("First answer")),
    entry("u2", "a1", ask("Second question")),
    entry("a2", "u2", answer("Second answer")),
  ].join("\n")}\n`;
}

beforeAll(async () => {
  app = await startE2eApp("diff-keys");
  page = app.page;
  const file = path.join(app.work, "keys.jsonl");
  writeFileSync(file, session());
  await apiCall(app.mode, "library:import", { path: file });
  await page.goto(`${app.mode.url}#/session/${SESSION}`);
  await page.locator('[data-testid="llm-view"][data-leaf-id="a2"] li.message').last().waitFor();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** The focused element's accessible name (aria-label, else its text). */
const focused = () =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element === null || element === document.body
      ? "(body)"
      : (element.getAttribute("aria-label") ?? element.textContent ?? "");
  });

describe("the LLM view's diff from the keyboard", () => {
  it("keeps the focus on 'two entries…' after Compare, and brings it back there when the diff closes", async () => {
    const toggle = page.getByRole("button", { name: "Diff two entries" });
    await toggle.focus();
    await page.keyboard.press("Enter");
    await page.getByLabel("Before (leaf id)").fill("a1");
    await page.getByLabel("After (leaf id)").fill("a2");
    await page.getByLabel("After (leaf id)").press("Enter");
    await page.getByTestId("llm-diff").waitFor();
    await poll(focused).toBe("Diff two entries");

    await page.getByRole("button", { name: "Close diff" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("llm-view").getAttribute("data-mode")).toBe("messages");
    await poll(focused).toBe("Diff two entries");
  });

  it("Cancel on the form brings the focus back to 'two entries…'", async () => {
    await page.getByRole("button", { name: "Diff two entries" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    await poll(focused).toBe("Diff two entries");
  });

  it("Escape in the form closes it, as Cancel does, and nothing else", async () => {
    await page.getByRole("button", { name: "Diff two entries" }).focus();
    await page.keyboard.press("Enter");
    await page.getByLabel("Before (leaf id)").focus();
    await page.keyboard.type("a1");
    await page.keyboard.press("Escape");
    await poll(() => page.getByRole("form", { name: "Compare two entries" }).count()).toBe(0);
    await poll(focused).toBe("Diff two entries");
    expect(await page.getByTestId("llm-view").getAttribute("data-mode")).toBe("messages");
  });

  it("closing the compaction-less 'vs view leaf' diff returns the focus to its button", async () => {
    await page
      .locator('li.message[data-entry-id="a1"]')
      .getByRole("button", { name: "Select entry a1 in the tree" })
      .click();
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a1");
    const opener = page.getByRole("button", { name: "Diff with view leaf" });
    await opener.focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("llm-diff").waitFor();
    await page.getByRole("button", { name: "Close diff" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("llm-view").getAttribute("data-mode")).toBe("messages");
    await poll(focused).toBe("Diff with view leaf");
  });
});
