// "Copy full text" in the LLM view copies the text the model receives, in Debian's Chromium
// (browser mode): the view spells out bidi controls (U+202E shows as `\u202e`) so they cannot
// disguise a text, but the copy is of the text as sent — it copied the spelled-out form, a text
// the model never got. Both a long text sent whole and one that reached the page without its
// middle (over 400,000 characters) are checked. The diff's one-line snippets spell them out too.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;
const SESSION = "e2e-copy";
const at = (s: number) => new Date(Date.UTC(2026, 3, 1, 8, 0, s)).toISOString();

/** A log of `chars` characters with a right-to-left override in its middle. */
function logWithOverride(chars: number, name: string): string {
  const line = `${name} line of output, plain ascii text\n`;
  const half = line.repeat(Math.ceil(chars / 2 / line.length));
  return `${half}file Report\u202Efdp.exe written\n${half}END-OF-${name}`;
}

const USER_TEXT = "Read both logs, then open Report\u202Efdp.exe.";
const LONG = logWithOverride(150_000, "long");
const HOLED = logWithOverride(600_000, "holed");

function session(): string {
  const entry = (id: string, parentId: string | null, message: object) =>
    JSON.stringify({ type: "message", id, parentId, timestamp: at(1), message });
  const reply = (id: string) => ({
    role: "assistant",
    content: [{ type: "toolCall", id, name: "read", arguments: { path: `${id}.log` } }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "m",
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
    stopReason: "toolUse",
    timestamp: 2,
  });
  const result = (id: string, text: string) => ({
    role: "toolResult",
    toolCallId: id,
    toolName: "read",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  });
  return `${[
    JSON.stringify({ type: "session", version: 3, id: SESSION, timestamp: at(0), cwd: "/tmp/e2e-copy" }),
    entry("u1", null, { role: "user", content: [{ type: "text", text: USER_TEXT }], timestamp: 1 }),
    entry("a1", "u1", reply("c1")),
    entry("t1", "a1", result("c1", LONG)),
    entry("a2", "t1", reply("c2")),
    entry("t2", "a2", result("c2", HOLED)),
  ].join("\n")}\n`;
}

beforeAll(async () => {
  app = await startE2eApp("copy");
  page = app.page;
  const file = path.join(app.work, "copy.jsonl");
  writeFileSync(file, session());
  await apiCall(app.mode, "library:import", { path: file });
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.mode.url });
  await page.goto(`${app.mode.url}#/session/${SESSION}`);
  await page.locator('[data-testid="llm-view"][data-leaf-id="t2"] li.message').last().waitFor();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

async function copied(entryId: string): Promise<string> {
  const message = page.locator(`li.message[data-entry-id="${entryId}"]`);
  await message.getByRole("button", { name: /^Expand message/ }).click();
  await message.getByRole("button", { name: "Copy full text" }).click();
  await poll(() => message.getByRole("status").count()).toBe(1);
  return (await page.evaluate("navigator.clipboard.readText()")) as string;
}

describe("Copy full text in the LLM view", () => {
  it("shows a bidi override spelled out, and copies a long text as the model receives it", async () => {
    const text = await copied("t1");
    const output = page.locator('li.message[data-entry-id="t1"] .tool-output');
    expect(await output.textContent()).toContain("Report\\u202efdp.exe");
    expect(text.length).toBe(LONG.length);
    expect(text).toBe(LONG);
  });

  it("copies a text that came without its middle whole, as the model receives it", async () => {
    const text = await copied("t2");
    expect(text.length).toBe(HOLED.length);
    expect(text).toBe(HOLED);
  });

  it("the diff's snippet of a message spells out its bidi controls as the message list does", async () => {
    await page.getByRole("button", { name: "Diff two entries" }).click();
    await page.getByLabel("Before (leaf id)").fill("");
    await page.getByLabel("After (leaf id)").fill("t2");
    await page.getByRole("button", { name: "Compare" }).click();
    const row = page.locator('[data-testid="llm-diff"] [data-diff-entry-id="u1"] .snippet-text');
    await row.waitFor();
    expect(await row.textContent()).toBe("Read both logs, then open Report\\u202efdp.exe.");
  });
});
