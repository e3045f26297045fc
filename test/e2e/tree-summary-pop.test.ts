// A compaction's summary, shown under its node on hover (browser mode, Debian's Chromium, a demo
// session): near the canvas's corner it lay under the minimap (and the zoom controls), which cut
// the text off; while its node is hovered, the canvas is drawn above them.
import { afterAll, beforeAll, describe, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll, viewportSettled } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let sessionId: string;
let compactionId: string;

beforeAll(async () => {
  app = await startE2eApp("tree-summary-pop");
  const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
  const session = sessions.find((s) => s.compactionCount > 0);
  if (!session) throw new Error("no demo session with a compaction");
  sessionId = session.id;
  const tree = await apiCall<{ nodes: { id: string; type: string }[] }>(app.mode, "session:tree", {
    sessionId,
  });
  compactionId = tree.nodes.find((node) => node.type === "compaction")?.id as string;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a compaction's summary on the canvas", () => {
  it("is not hidden under the minimap when its node is hovered near the canvas's corner", async () => {
    const { page, mode } = app;
    await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}?leaf=${compactionId}`);
    const node = page.locator(`.tree-node[data-entry-id="${compactionId}"]`);
    await node.waitFor();
    await viewportSettled(page);
    const minimap = page.getByRole("img", { name: "Minimap of the session tree" });
    await minimap.waitFor();
    // Pan the canvas so that the node's summary (below it, 380 px wide) falls on the minimap.
    const mapBox = await minimap.boundingBox();
    const nodeBox = await node.boundingBox();
    const frame = await page.locator(".tree-frame").boundingBox();
    if (!mapBox || !nodeBox || !frame) throw new Error("no minimap, node or canvas");
    const dx = mapBox.x - 200 - nodeBox.x;
    const dy = mapBox.y - 40 - (nodeBox.y + nodeBox.height);
    const from = { x: frame.x + 20, y: frame.y + 20 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x + dx / 2, from.y + dy / 2, { steps: 5 });
    await page.mouse.move(from.x + dx, from.y + dy, { steps: 5 });
    await page.mouse.up();
    await viewportSettled(page);
    await node.hover();
    const pop = node.locator(".summary-pop");
    await pop.waitFor();
    // The point of the summary that lies on the minimap belongs to the summary.
    await poll(() =>
      page.evaluate(() => {
        const summary = document.querySelector<HTMLElement>(".tree-node:hover .summary-pop");
        const map = document.querySelector(".react-flow__minimap");
        if (!summary || !map) return "no summary or minimap";
        const s = summary.getBoundingClientRect();
        const m = map.getBoundingClientRect();
        if (s.right <= m.left + 10 || s.bottom <= m.top + 10) return "the summary is not over the minimap";
        const hit = document.elementFromPoint(m.left + 5, Math.max(s.top, m.top) + 5);
        return hit !== null && summary.contains(hit)
          ? "summary"
          : `hidden under ${hit?.getAttribute("class")}`;
      }),
    ).toBe("summary");
    // Away from the node, the minimap is on top again.
    await page.mouse.move(frame.x + 5, frame.y + 5);
    await poll(() =>
      page.evaluate(() => {
        const m = document.querySelector(".react-flow__minimap")?.getBoundingClientRect();
        if (!m) return false;
        const hit = document.elementFromPoint(m.left + m.width / 2, m.top + m.height / 2);
        return hit?.closest(".react-flow__minimap") !== null;
      }),
    ).toBe(true);
  });
});
