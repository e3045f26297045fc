// The LLM view's diffs of a session just opened whose tree has not come yet (Debian's Chromium,
// browser mode; the page's session:tree-update held with page.route): the LLM view is there, and
// "Diff compaction" opened "… is not a compaction of this session" because it looked the
// compaction up in the tree shown (another session's, or none). It now shows the diff.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import { diffContextsWithLinks, type EntryLink } from "../../core/session/context-diff.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { holdRequests } from "../helpers/held-requests.ts";

let app: E2eApp;
let page: Page;

const api = <T>(channel: string, input: unknown) => apiCall<T>(app.mode, channel, input);

beforeAll(async () => {
  app = await startE2eApp("llm-diff-tree-late");
  page = app.page;
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a diff asked for before the session's tree has come", () => {
  it("Diff compaction shows the compaction's diff, not an error", async () => {
    const sessions = await api<SessionSummary[]>("library:list", {});
    const target = sessions.find((session) => session.compactionCount > 0);
    if (!target) throw new Error("no demo session with a compaction");
    const view = await api<ContextView>("context:get", { sessionId: target.id });
    if (!view.compactionId) throw new Error("the view leaf has no compaction in effect");
    // The target, then another session open: the other's tree is the one shown until the
    // target's comes (asked for as an update of the tree kept from the first visit).
    const other = sessions.find((session) => session.id !== target.id);
    if (!other) throw new Error("no second demo session");
    for (const session of [target, other]) {
      await page.locator(`.session-groups [data-session-id="${session.id}"]`).click();
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    }
    const release = await holdRequests(page, "session:tree-update");
    try {
      await page.locator(`.session-groups [data-session-id="${target.id}"]`).click();
      await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(view.leafId ?? "");
      await page.getByRole("button", { name: "Diff compaction" }).click();
      const diff = page.getByTestId("llm-diff");
      await diff.waitFor();
      expect(await diff.getAttribute("data-kind")).toBe("compaction");
      const tree = await api<SessionTreeDto>("session:tree", { sessionId: target.id });
      const links = new Map<string, EntryLink>(
        tree.nodes.map((node) => [node.id, { parentId: node.parentId, type: node.type, fromId: null }]),
      );
      const compaction = tree.nodes.find((node) => node.id === view.compactionId);
      const before = await api<ContextView>("context:get", {
        sessionId: target.id,
        leafId: compaction?.parentId ?? null,
      });
      const after = await api<ContextView>("context:get", { sessionId: target.id, leafId: view.compactionId });
      const expected = diffContextsWithLinks(before, after, links);
      const changes = await diff
        .locator("[data-change]")
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-change")));
      expect(changes).toEqual(expected.rows.map((row) => row.change));
      expect(changes).toContain("summarized");
    } finally {
      await release();
    }
    await page.getByRole("button", { name: "Close diff" }).click();
  });
});
