// A pane that throws while rendering blanked the whole app: there was no error boundary. Here the
// LLM view is given an answer it cannot draw (context:get's reply altered on the way, as a server
// bug or a stored value the view does not expect would): that pane says what failed, with the
// error's message and Try again, while the tree and the library keep working; Try again, and
// selecting another entry, draw the view again.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let sessionId: string;
/** While true, every context:get answer reaches the page altered so that the LLM view cannot draw it. */
let poison = false;

beforeAll(async () => {
  app = await startE2eApp("pane-boundary");
  const at = "2026-12-05T07:00:00.000Z";
  const message = (id: string, parentId: string | null, body: Record<string, unknown>) => ({
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: { timestamp: 1, ...body },
  });
  const reply = (text: string) => ({
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude",
    stopReason: "stop",
  });
  const lines = [
    { type: "session", version: 3, id: "pane-boundary-session", timestamp: at, cwd: "/tmp/pane" },
    message("u1", null, { role: "user", content: "First question" }),
    message("a1", "u1", reply("First answer")),
    message("u2", "a1", { role: "user", content: "Second question" }),
    message("a2", "u2", reply("Second answer")),
  ];
  const file = path.join(app.work, "pane-boundary.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
  await app.page.route(`**/api/${encodeURIComponent("context:get")}`, async (route: Route) => {
    const response = await route.fetch();
    if (!poison) return route.fulfill({ response });
    const body = (await response.json()) as { ok: boolean; value?: Record<string, unknown> };
    if (body.value) body.value.request = { changes: null, added: null };
    return route.fulfill({ response, json: body });
  });
});

afterAll(async () => {
  await app?.stop();
});

describe("a pane that fails to render", () => {
  it("says so in its place, the other panes keep working, and Try again or another entry draws it again", async () => {
    const { page } = app;
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const logged: string[] = [];
    page.on("console", (line) => {
      if (line.type() === "error") logged.push(line.text());
    });
    await openSessionShowingAll(page, app.mode, sessionId);
    const view = page.locator("section.right");
    const failure = view.getByTestId("pane-failure");

    poison = true;
    await page.locator('.tree-node[data-entry-id="a1"]').click();
    await failure.waitFor();
    expect(await failure.locator(".pane-failure-title").textContent()).toBe(
      "The LLM view could not be drawn for this entry.",
    );
    const message = (await failure.locator(".pane-failure-message").textContent()) ?? "";
    expect(message).not.toBe("");
    expect(await failure.textContent()).not.toMatch(/\bat \w+ \(|\.tsx?:\d+/);
    // Logged once per failure, by the pane (React's own second report of it is left out).
    await poll(() => logged.length).toBeGreaterThan(0);
    for (const line of logged)
      expect(line).toMatch(/^Canopy: The LLM view could not be drawn for this entry\. TypeError/);

    // The rest of the app is still there and answers.
    await expect(page.getByTestId("tree-canvas").isVisible()).resolves.toBe(true);
    await expect(page.locator(".sidebar").getByText("First question").first().isVisible()).resolves.toBe(
      true,
    );

    // Try again asks for the view afresh, and draws it.
    poison = false;
    await failure.getByRole("button", { name: "Try again" }).click();
    await poll(() => view.locator('[data-testid=llm-view] li.message[data-entry-id="a1"]').count()).toBe(1);
    await expect(failure.count()).resolves.toBe(0);

    // Failing again, then selecting another entry draws the view for it by itself.
    poison = true;
    await page.locator('.tree-node[data-entry-id="u2"]').click();
    await failure.waitFor();
    poison = false;
    await page.locator('.tree-node[data-entry-id="a2"]').click();
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a2");
    await expect(failure.count()).resolves.toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
