// The canvas while the agent appends to the open session (browser mode, Chromium): a view leaf
// that follows the file moves to each new line; the canvas follows it when the user is looking at
// the leaf, and stays where the user panned to (reading older entries) otherwise.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let file: string;
let sessionId: string;
let lastId = "m39";

function line(id: string, parentId: string | null, role: "user" | "assistant", text: string): string {
  const message =
    role === "user"
      ? { role, content: text, timestamp: 0 }
      : { role, content: [{ type: "text", text }], stopReason: "stop", timestamp: 0 };
  return `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-12-04T01:00:00.000Z", message })}\n`;
}

/** The agent appends one line below the file's last entry; the library imports it (no watcher here). */
async function agentAppends(id: string): Promise<void> {
  fs.appendFileSync(file, line(id, lastId, "user", `agent line ${id}`));
  lastId = id;
  await apiCall<ImportReport>(app.mode, "library:import", { path: file });
}

const transform = () =>
  app.page.evaluate(
    () => document.querySelector<HTMLElement>(".react-flow__viewport")?.style.transform ?? null,
  );

beforeAll(async () => {
  app = await startE2eApp("tree-live-follow");
  file = path.join(app.work, "live.jsonl");
  const header = {
    type: "session",
    version: 3,
    id: "live-follow-session",
    timestamp: "2026-12-04T01:00:00.000Z",
    cwd: "/w",
  };
  let text = `${JSON.stringify(header)}\n`;
  for (let i = 0; i < 40; i++) {
    text += line(
      `m${i}`,
      i === 0 ? null : `m${i - 1}`,
      i % 2 === 0 ? "user" : "assistant",
      `history step ${i}`,
    );
  }
  fs.writeFileSync(file, text);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the canvas while the agent appends", () => {
  it("stays where the user panned to read older entries; follows the leaf when the user is at it", async () => {
    const { page } = app;
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Go to leaf" }).click();
    await viewportSettled(page);
    await page.locator('.tree-node[data-entry-id="m39"]').waitFor();

    // The user pans up, away from the leaf, to read the history.
    const pane = await page.getByTestId("tree-canvas").boundingBox();
    if (!pane) throw new Error("no canvas");
    await page.mouse.move(pane.x + 40, pane.y + pane.height / 2);
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -600);
    await viewportSettled(page);
    await poll(() => page.locator('.tree-node[data-entry-id="m39"]').count()).toBe(0);
    const reading = await transform();

    await agentAppends("a1");
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a1");
    await poll(() => page.getByText(/41 of 41 entries/).count()).toBe(1);
    await viewportSettled(page);
    expect(await transform()).toBe(reading);

    // Back at the leaf: the next line is followed.
    await page.getByRole("button", { name: "Go to leaf" }).click();
    await viewportSettled(page);
    await agentAppends("a2");
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a2");
    await page.locator('.tree-node[data-entry-id="a2"]').waitFor();
    await viewportSettled(page);
    const box = await page.locator('.tree-node[data-entry-id="a2"]').boundingBox();
    const canvas = await page.getByTestId("tree-canvas").boundingBox();
    expect(box && canvas && box.y >= canvas.y && box.y + box.height <= canvas.y + canvas.height).toBe(true);
  });
});
