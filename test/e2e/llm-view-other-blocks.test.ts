// An oh-my-pi reply with Anthropic's redacted thinking ({type:"redactedThinking", data}) and a
// model fallback marker, in Debian's Chromium (browser mode): opening the session left a blank
// page (the view took the blocks for tool calls and failed on their missing name). The LLM view
// now shows each block in place, by what it is, between the reply's thinking and its text.
// A hand-edited file with a string where a reply's blocks belong, a null block or a tool result
// without its tool name failed the page (or the view) the same way; what they hold is shown instead.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let sessionId: string;
let editedId: string;

async function importLines(name: string, lines: unknown[]): Promise<string> {
  const file = path.join(app.work, `${name}.jsonl`);
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  return report.files[0]?.sessionId as string;
}

beforeAll(async () => {
  app = await startE2eApp("llm-other-blocks");
  const at = "2026-12-02T09:37:58.192Z";
  const reply = {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Visible reasoning", thinkingSignature: "sig" },
      { type: "redactedThinking", data: "E".repeat(2048) },
      { type: "fallback", from: { model: "claude-a" }, to: { model: "claude-b" } },
      { type: "text", text: "The answer" },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-b",
    stopReason: "stop",
    timestamp: 2,
  };
  const lines = [
    { type: "session", version: 3, id: "other-blocks-session", timestamp: at, cwd: "/tmp/other" },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at,
      message: { role: "user", content: "Why?", timestamp: 1 },
    },
    { type: "message", id: "a1", parentId: "u1", timestamp: at, message: reply },
  ];
  sessionId = await importLines("other-blocks", lines);
  const message = (id: string, parentId: string | null, body: Record<string, unknown>) => ({
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: { timestamp: 1, ...body },
  });
  editedId = await importLines("hand-edited", [
    { type: "session", version: 3, id: "hand-edited-session", timestamp: at, cwd: "/tmp/edited" },
    message("e1", null, { role: "user", content: "Hi" }),
    message("e2", "e1", {
      role: "assistant",
      content: "A reply typed as a string",
      provider: "p",
      model: "m",
    }),
    message("e3", "e2", { role: "user", content: [null, { type: "text", text: "After a null block" }] }),
    message("e4", "e3", {
      role: "toolResult",
      toolCallId: "c9",
      content: [{ type: "text", text: "No tool name" }],
    }),
  ]);
});

afterAll(async () => {
  await app?.stop();
});

describe("blocks of other kinds in the LLM view", () => {
  it("shows redacted thinking and a fallback marker in place, and the page stays up", async () => {
    const errors: string[] = [];
    app.page.on("pageerror", (error) => errors.push(error.message));
    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
    const body = app.page.locator('[data-testid=llm-view] li.message[data-entry-id="a1"] .message-body');
    await body.waitFor();
    const parts = await body.locator(":scope > div").allTextContents();
    expect(parts).toEqual([
      "thinkingVisible reasoning",
      "redacted thinking2,048 characters of reasoning the provider encrypted (not readable)",
      expect.stringMatching(
        /^fallback block\{\n {2}"type": "fallback",\n {2}"from": \{\n {4}"model": "claude-a"/,
      ),
      expect.stringContaining("The answer"),
    ]);
    expect(await body.textContent()).not.toContain("tool call");
    expect(errors).toEqual([]);
  });

  it("shows what a hand-edited message holds where blocks belong (a string, a null block), and a result without a tool name", async () => {
    const errors: string[] = [];
    app.page.on("pageerror", (error) => errors.push(error.message));
    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(editedId)}`);
    const body = (id: string) =>
      app.page.locator(`[data-testid=llm-view] li.message[data-entry-id="${id}"] .message-body`);
    await body("e4").waitFor();
    expect(await body("e4").textContent()).toBe("No tool name");
    expect(await body("e2").textContent()).toBe("A reply typed as a string");
    expect(await body("e3").locator(":scope > div").allTextContents()).toEqual([
      "block of no typenull",
      "After a null block",
    ]);
    expect(errors).toEqual([]);
  });
});
