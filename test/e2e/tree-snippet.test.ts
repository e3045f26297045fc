// The tree sends each entry's first 120 folded characters and a `cut` flag (no "…" on the wire):
// the canvas shows the snippet with its ellipsis, and "Edit as new branch" opens with the whole
// message even when the LLM view of that entry has not arrived yet (it is asked for then).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SessionSummary, type SessionTreeDto, TREE_SNIPPET_CHARS } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const LONG = `Please refactor the parser. ${"The lexer keeps every token of a line in memory; ".repeat(12)}END-OF-LONG-MESSAGE`;

let app: E2eApp;

beforeAll(async () => {
  app = await startE2eApp("tree-snippet");
});

afterAll(async () => {
  await app?.stop();
});

function sessionFile(): string {
  const at = "2026-12-02T09:37:58.192Z";
  const lines = [
    { type: "session", version: 3, id: "snippet-session", timestamp: at, cwd: "/tmp/snippet" },
    { type: "message", id: "u1", parentId: null, timestamp: at, message: { role: "user", content: LONG } },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: at,
      message: { role: "assistant", content: [{ type: "text", text: "Done." }], stopReason: "stop" },
    },
  ];
  const file = path.join(app.work, "snippet.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("tree snippets on the wire", () => {
  it("shows a cut snippet with its ellipsis and edits the whole message", async () => {
    const { mode, page } = app;
    await apiCall(mode, "library:import", { path: sessionFile() });
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const sessionId = sessions.find((s) => s.firstMessage?.startsWith("Please refactor"))?.id as string;
    expect(sessionId).toBeDefined();
    const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
    const user = tree.nodes.find((node) => node.id === "u1");
    expect(user).toMatchObject({ text: LONG.slice(0, TREE_SNIPPET_CHARS), cut: true });

    await openSessionShowingAll(page, mode, sessionId, "a1");
    const node = page.locator('.tree-node[data-entry-id="u1"]');
    expect(await node.locator(".tree-node-text").textContent()).toBe(`${LONG.slice(0, TREE_SNIPPET_CHARS)}…`);
    expect(await node.getAttribute("aria-label")).toContain(LONG.slice(0, 90));

    // The LLM view of u1 comes late: the editor must not open with the tree's snippet.
    await page.route("**/api/context*", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await node.click();
    await page.getByRole("button", { name: "Edit as new branch" }).click();
    await poll(() => page.getByLabel("Edited message").inputValue()).toBe(LONG);
    await page.unroute("**/api/context*");
  });
});
