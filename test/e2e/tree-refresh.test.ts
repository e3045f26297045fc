// A window with a session open follows the agent's appends (browser mode, Chromium): after the
// grown file is imported, the page refreshes the open tree with session:tree-update (a delta of a
// few hundred bytes, never the whole tree again) and paints the appended entry as the view leaf.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;
let file: string;
let sessionId: string;
/**
 * The tree requests the page made, in the order their answers came: the channel at once, the
 * answer's bytes once this process has read them (null until then: that can come after the page
 * has painted the answer).
 */
const treeRequests: { channel: string; bytes: number | null }[] = [];
/** Every answer's bytes, once read. */
async function treeBytes(): Promise<number[]> {
  await expect.poll(() => treeRequests.every((request) => request.bytes !== null)).toBe(true);
  return treeRequests.map((request) => request.bytes ?? 0);
}

beforeAll(async () => {
  app = await startE2eApp("tree-refresh");
  file = path.join(app.work, "tree-00.jsonl");
  fs.copyFileSync(fixturePath("tree-00.jsonl"), file);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
  app.page.on("response", async (response) => {
    const channel = decodeURIComponent(new URL(response.url()).pathname).replace("/api/", "");
    if (channel !== "session:tree" && channel !== "session:tree-update") return;
    const request: (typeof treeRequests)[number] = { channel, bytes: null };
    treeRequests.push(request);
    request.bytes = (await response.body()).length;
  });
  await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the open tree after an agent append", () => {
  it("is refreshed by a delta and shows the appended entry", async () => {
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const leaf = tree.fileLeafId as string;
    await app.page.locator(`.tree-node[data-entry-id="${leaf}"]`).waitFor();
    expect(treeRequests.map((r) => r.channel)).toEqual(["session:tree"]);
    const [whole = 0] = await treeBytes();

    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: "message", id: "agent-appended", parentId: leaf, timestamp: "2026-12-04T01:00:00.000Z", message: { role: "user", content: "one more thing", timestamp: 0 } })}\n`,
    );
    await apiCall(app.mode, "library:import", { path: file });

    const appended = app.page.locator('.tree-node[data-entry-id="agent-appended"]');
    await appended.waitFor();
    await expect
      .poll(() => app.page.getByTestId("llm-view").getAttribute("data-leaf-id"))
      .toBe("agent-appended");
    const after = treeRequests.slice(1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.channel === "session:tree-update")).toBe(true);
    expect(Math.max(...(await treeBytes()).slice(1))).toBeLessThan(whole / 4);
    expect(await appended.getAttribute("aria-label")).toContain("one more thing");
  });
});
