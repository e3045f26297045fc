// The session bar's usage line (SPEC §2.1), in Debian's Chromium (browser mode): a real pi session
// shows the replies, tokens and cost its agent recorded over all branches; a reply the agent
// appends while the session is open is added to it and shows its own usage in the LLM view; a
// session without usage shows no line; the line is asked for only once the tree and the LLM view
// have answered (one thread answers the requests in turn: it must never hold them up).
import { appendFileSync, copyFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;

beforeAll(async () => {
  // The watcher re-imports the file the "agent" appends to.
  app = await startE2eApp("session-usage", { serve: { watch: true } });
});

afterAll(async () => {
  await app?.stop();
});

async function importFile(file: string): Promise<string> {
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  return report.files[0]?.sessionId as string;
}

const usageLine = () => app.page.getByTestId("session-usage");

describe("the session's usage line", () => {
  it("shows what the agent recorded, and follows a reply the agent appends", async () => {
    const file = path.join(app.work, "real.jsonl");
    copyFileSync(fixturePath("real-before-compaction.v1.jsonl"), file);
    const sessionId = await importFile(file);
    await openSessionShowingAll(app.page, app.mode, sessionId);
    await poll(() => usageLine().textContent()).toBe(
      "484 replies · input 3,689 · output 188k · cache read 54.7M · cache write 1.7M · cost $42.60",
    );
    expect(await usageLine().getAttribute("title")).toContain("every branch");

    const tree = await apiCall<{ viewLeafId: string }>(app.mode, "session:tree", { sessionId });
    const reply = {
      type: "message",
      id: "usage-e2e-reply",
      parentId: tree.viewLeafId,
      timestamp: "2026-12-04T10:00:00.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "One more." }],
        provider: "anthropic",
        model: "claude-opus-4-5",
        usage: { input: 11, output: 12_000, cacheRead: 0, cacheWrite: 0, cost: { total: 2.5 } },
        stopReason: "stop",
        timestamp: 1,
      },
    };
    appendFileSync(file, `${JSON.stringify(reply)}\n`);
    await poll(() => usageLine().textContent()).toBe(
      "485 replies · input 3,700 · output 200k · cache read 54.7M · cache write 1.7M · cost $45.10",
    );
    // The view follows the file's leaf to the reply, which says what its provider reported for it.
    // (A v1 file's entries get the ids its migration gives them: the reply is the tree's newest node.)
    const grown = await apiCall<{ nodes: { id: string }[] }>(app.mode, "session:tree", { sessionId });
    const replyId = grown.nodes.at(-1)?.id as string;
    await poll(() => app.page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(replyId);
    const last = app.page.locator(`[data-testid=llm-view] li.message[data-entry-id="${replyId}"]`);
    expect(await last.getByTestId("reply-usage").textContent()).toBe("Reply usage: input 11 · output 12.0k · cost $2.50");
  });

  it("is not shown for a session whose replies carry no usage", async () => {
    const at = "2026-12-02T09:37:58.192Z";
    const lines = [
      { type: "session", version: 3, id: "usage-none", timestamp: at, cwd: "/tmp/usage-none" },
      { type: "message", id: "u1", parentId: null, timestamp: at, message: { role: "user", content: "Hi" } },
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: at,
        message: { role: "assistant", content: [{ type: "text", text: "Hello." }], stopReason: "stop" },
      },
    ];
    const file = path.join(app.work, "none.jsonl");
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    // The line of the session open before (the test above) goes with it.
    await poll(() => usageLine().count()).toBe(1);
    const sessionId = await importFile(file);
    await openSessionShowingAll(app.page, app.mode, sessionId);
    await poll(() => usageLine().count()).toBe(0);
    // Its totals, as the page asks for them: no reply carried usage.
    expect(await apiCall(app.mode, "session:usage", { sessionId })).toMatchObject({ replies: 0 });
  });

  it("is asked for only once the tree and the LLM view have answered", async () => {
    const at = "2026-12-03T09:00:00.000Z";
    const usage = { input: 5, output: 6, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } };
    const lines = [
      { type: "session", version: 3, id: "usage-order", timestamp: at, cwd: "/tmp/usage-order" },
      { type: "message", id: "u1", parentId: null, timestamp: at, message: { role: "user", content: "Hi" } },
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: at,
        message: {
          role: "assistant",
          content: [{ type: "text", text: "Hello." }],
          usage,
          stopReason: "stop",
        },
      },
    ];
    const file = path.join(app.work, "order.jsonl");
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const sessionId = await importFile(file);
    // The LLM view's answer is held until the tree is on screen: the usage must wait for it too.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await app.page.route("**/api/context*", async (route) => {
      await held;
      await route.continue();
    });
    try {
      await app.page.evaluate((id) => {
        performance.clearResourceTimings();
        location.hash = `#/session/${encodeURIComponent(id)}`;
      }, sessionId);
      await app.page.locator(`.tree-canvas[data-tree-session="${sessionId}"] .tree-node`).first().waitFor();
      release();
      await poll(() => usageLine().textContent()).toBe("1 reply · input 5 · output 6 · cost $0.5000");
    } finally {
      release();
      await app.page.unroute("**/api/context*");
    }
    const timings = await app.page.evaluate(() =>
      (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
        .filter((entry) => entry.name.includes("/api/"))
        .map((entry) => ({
          channel: decodeURIComponent(entry.name.split("/api/")[1] ?? ""),
          startTime: entry.startTime,
          responseEnd: entry.responseEnd,
        })),
    );
    const last = (channel: string) => timings.filter((t) => t.channel === channel).at(-1);
    const asked = last("session:usage");
    expect(asked, JSON.stringify(timings)).toBeDefined();
    for (const before of ["session:tree", "context:get"]) {
      expect(asked?.startTime ?? 0, before).toBeGreaterThanOrEqual(
        last(before)?.responseEnd ?? Number.POSITIVE_INFINITY,
      );
    }
  });
});
