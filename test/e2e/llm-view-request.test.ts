// The LLM view says what the request to the model adds and leaves out (SPEC §3.6), in Debian's
// Chromium through browser mode: a tool call without a result shows the synthetic "No result
// provided" result the request inserts, in place and marked as added; a failed reply of another
// provider is shown struck, with the reason; the legend names the request, and follows the
// model set in Settings; a note every reply of a long session shares is said once, with which.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

/** The page's getComputedStyle, as much of it as the test reads. */
interface StyleReader {
  getComputedStyle(node: unknown): { textDecorationLine: string };
}

let app: E2eApp;
const shots = path.join(artifactsDir(), "llm-view-request");
const SESSION = "e2e-request";

const at = (s: number) => new Date(Date.UTC(2026, 3, 1, 8, 0, s)).toISOString();
const entry = (id: string, parentId: string | null, message: object, s: number) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: at(s), message });
const reply = (content: unknown[], extra: object = {}) => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
  stopReason: "toolUse",
  timestamp: 2,
  ...extra,
});
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eApp("request");
  const file = path.join(app.work, "request.jsonl");
  writeFileSync(
    file,
    `${[
      JSON.stringify({ type: "session", version: 3, id: SESSION, timestamp: at(0), cwd: "/tmp/e2e-request" }),
      entry("u1", null, user("Read the config."), 1),
      entry(
        "a1",
        "u1",
        reply([
          { type: "text", text: "Reading it." },
          { type: "toolCall", id: "call_cfg", name: "read", arguments: { path: "config.json" } },
        ]),
        2,
      ),
      entry("u2", "a1", user("Never mind. Which model are you?"), 3),
      entry(
        "a2",
        "u2",
        reply([], { provider: "openai", api: "openai-responses", model: "gpt-x", stopReason: "aborted" }),
        4,
      ),
      entry("u3", "a2", user("Hello?"), 5),
      entry("a3", "u3", reply([{ type: "text", text: "Here." }], { stopReason: "stop" }), 6),
    ].join("\n")}\n`,
  );
  await apiCall(app.mode, "library:import", { path: file });
  writeFileSync(path.join(app.work, "long.jsonl"), longSession());
  await apiCall(app.mode, "library:import", { path: path.join(app.work, "long.jsonl") });
});

const LONG_SESSION = "e2e-request-long";
const LONG_TURNS = 30;

/** 30 turns whose replies all have thinking, then a tool result no call waits for. */
function longSession(): string {
  const lines = [JSON.stringify({ type: "session", version: 3, id: LONG_SESSION, timestamp: at(0), cwd: "/tmp/e2e-long" })];
  let parent: string | null = null;
  for (let i = 0; i < LONG_TURNS; i++) {
    lines.push(entry(`lu${i}`, parent, user(`Question ${i}`), 1));
    const content = [
      { type: "thinking", thinking: `Thinking about question ${i}.` },
      { type: "text", text: `Answer ${i}.` },
    ];
    lines.push(entry(`la${i}`, `lu${i}`, reply(content, { stopReason: "stop" }), 2));
    parent = `la${i}`;
  }
  const stray = { role: "toolResult", toolCallId: "gone", toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 3 };
  lines.push(entry("stray", parent, stray, 3));
  return `${lines.join("\n")}\n`;
}

afterAll(async () => {
  await app?.stop();
});

describe("LLM view: what the request changes", () => {
  it("shows the synthetic result of an unanswered tool call in place, and a dropped failed reply struck", async () => {
    const { page, mode } = app;
    await openSessionShowingAll(page, mode, SESSION);
    const view = page.getByTestId("llm-view");
    const expected = await apiCall<ContextView>(mode, "context:get", { sessionId: SESSION });
    // The view's own messages stay the agent's list.
    await poll(() => view.locator("[data-role]").count()).toBe(expected.messages.length);

    const added = view.locator('[data-request="added"]');
    await poll(() => added.count()).toBe(1);
    expect(await added.getAttribute("data-tool-call-id")).toBe("call_cfg");
    expect(await added.getAttribute("data-role")).toBeNull();
    expect(await added.textContent()).toContain("No result provided");
    expect(await added.textContent()).toContain(
      "Added by the request: tool call read (call_cfg) has no result.",
    );
    // Where the request puts it: right after the reply's own message, before the next user message.
    const neighbours = await added.evaluate((node) => [
      node.previousElementSibling?.getAttribute("data-entry-id"),
      node.nextElementSibling?.getAttribute("data-entry-id"),
    ]);
    expect(neighbours).toEqual(["a1", "u2"]);

    const dropped = view.locator('[data-entry-id="a2"]');
    expect(await dropped.getAttribute("data-request")).toBe("dropped");
    expect(await dropped.textContent()).toContain("not sent");
    expect(await dropped.textContent()).toContain(
      "from another provider/API (openai · openai-responses) is dropped",
    );
    const struck = await dropped
      .locator(".message-meta .role")
      // Runs in the page; the test's type-check has no DOM library, hence the structural type.
      .evaluate((node) => (globalThis as unknown as StyleReader).getComputedStyle(node).textDecorationLine);
    expect(struck).toBe("line-through");

    const legend = page.getByTestId("request-legend");
    expect(await legend.textContent()).toContain(
      "Request as the agent sends it to the session's model (anthropic · anthropic-messages · claude-test)",
    );
    expect(await legend.textContent()).toContain("+ added by the request");
    expect(await legend.textContent()).toContain(`carries ${expected.request.messageCount} messages`);
    await added.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, "01-added-and-dropped.png") });
  });

  it("a model saved in Settings changes the request the marks describe at once", async () => {
    const { page } = app;
    await page.getByText("Settings and prompts").click();
    const panel = page.getByTestId("settings-form");
    await panel.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
    await panel.getByLabel("Model id").fill("local-model");
    await panel.getByRole("button", { name: "Save model" }).click();
    const legend = page.getByTestId("request-legend");
    await poll(() => legend.textContent()).toContain(
      "Request as Canopy sends it to the configured model (127.0.0.1:9 · openai-completions · local-model, OpenAI-compatible)",
    );
    // Still one synthetic result; the failed reply is another provider's for this target too.
    const view = page.getByTestId("llm-view");
    expect(await view.locator('[data-request="added"]').count()).toBe(1);
    expect(await view.locator('[data-entry-id="a2"]').getAttribute("data-request")).toBe("dropped");
    await page.screenshot({ path: path.join(shots, "02-configured-model.png") });
  });

  it("a note every reply shares is one line with how many; 'Show which' lists them and goes to one", async () => {
    const { page, mode } = app;
    await apiCall(mode, "settings:set", { key: "model", value: { baseUrl: "http://127.0.0.1:9/v1", id: "local-model" } });
    await openSessionShowingAll(page, mode, LONG_SESSION);
    const view = page.getByTestId("llm-view");
    await poll(() => view.locator("[data-role]").count()).toBe(2 * LONG_TURNS + 1);
    const groups = page.getByTestId("request-note-groups");
    const line = groups.locator('[data-group="thinking-removed:canopy"]');
    await poll(() => line.textContent()).toContain(
      `Thinking of ${LONG_TURNS} replies is not sent: Canopy's OpenAI-compatible request carries none.`,
    );
    expect(await groups.locator(".request-group").count()).toBe(1);
    // Not once per reply: the replies keep a short mark, and no note line of their own.
    expect(await view.getByText("Thinking not sent: Canopy's OpenAI-compatible request carries none.").count()).toBe(0);
    expect(await view.locator('[data-role="assistant"] .request-note').count()).toBe(0);
    expect(await view.locator('[data-role="assistant"] .request-mark').count()).toBe(LONG_TURNS);
    expect(await view.locator('[data-entry-id="la0"] .request-mark').textContent()).toBe("thinking not sent");
    // The note that occurs once stays on its message, in full.
    expect(await view.locator('[data-entry-id="stray"] .request-note').textContent()).toBe(
      "Sent as a user message: no tool call of the request waits for this result.",
    );
    await page.screenshot({ path: path.join(shots, "03-grouped-note.png") });

    await line.getByRole("button", { name: "Show which" }).click();
    // The opened list is pinned to the top of the pane, outside the line (request-note-which.test.ts).
    const list = page.getByRole("list", { name: /^Messages: Thinking of \d+ replies is not sent/ });
    const which = list.getByRole("button", { name: /^Go to message/ });
    expect(await which.count()).toBe(LONG_TURNS);
    expect(await which.first().textContent()).toBe("#2");
    expect(await which.first().getAttribute("aria-label")).toBe("Go to message 2 (entry la0)");
    const target = view.locator('[data-entry-id="la14"]');
    const inViewport = () =>
      target.evaluate((node) => {
        // Runs in the page; the test's type-check has no DOM library, hence the structural type.
        const box = (node as unknown as { getBoundingClientRect(): { top: number; bottom: number } }).getBoundingClientRect();
        return box.top >= 0 && box.bottom <= 800;
      });
    expect(await inViewport()).toBe(false);
    await list.getByRole("button", { name: "Go to message 30 (entry la14)" }).click();
    await poll(inViewport).toBe(true);
    await page.screenshot({ path: path.join(shots, "04-grouped-note-which.png") });
    await line.getByRole("button", { name: "Hide which" }).click();
    expect(await which.count()).toBe(0);
  });
});
