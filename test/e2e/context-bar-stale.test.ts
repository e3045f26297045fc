// The context bar's "measured before the compaction: stale until the next reply" (SPEC §4.4) in
// Debian's Chromium (browser mode). The bar used to decide it again in the page, walking the
// tree's ancestors of the compaction: before the tree had arrived (opening a big session) it had
// no ancestors to walk and showed the measurement as current. It now says what context:get's
// measuredBeforeCompaction says, which `canopy context` says too: the tests alter that answer,
// hold the tree, and walk the leaves after the two compactions of a real pi session.
import path from "node:path";
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, ImportReport, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { holdRequests } from "../helpers/held-requests.ts";
import { writeStaleMeasureSession } from "../helpers/stale-measure-session.ts";

const STALE_WORDS = "before the compaction: stale until the next reply";

let app: E2eApp;
let page: Page;
/** Changes the next context:get answers' value (null: they pass unchanged). */
let alter: ((view: Record<string, unknown>) => void) | null = null;

/** The stale-measure session (u1 → a1 → c1 → u2 [→ a2]) as `bar-<name>`, imported; its session id. */
async function importSession(name: string, replyAfter: boolean): Promise<string> {
  const file = writeStaleMeasureSession(path.join(app.work, `${name}.jsonl`), `bar-${name}`, replyAfter);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  return report.files[0]?.sessionId as string;
}

const bar = () => page.getByTestId("context-bar");

/** Goes to the session (at `leafId`, or its view leaf) and waits for the LLM view of that leaf. */
async function open(sessionId: string, leafId: string | null = null): Promise<void> {
  const route = `#/session/${encodeURIComponent(sessionId)}${leafId === null ? "" : `?leaf=${leafId}`}`;
  await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
  const expected =
    leafId ??
    (await apiCall<ContextView>(app.mode, "context:get", { sessionId, agentMessages: false })).leafId;
  await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(expected ?? "");
}

/** Whether the tree canvas shows the session's tree. */
async function treeShown(sessionId: string): Promise<boolean> {
  return (await page.locator(`[data-testid=tree-canvas][data-tree-session="${sessionId}"]`).count()) > 0;
}

/** Whether the bar shows its measurement as stale, in its attribute and in its words (both agree). */
async function shownStale(): Promise<boolean> {
  const flagged = (await bar().getAttribute("data-measured-stale")) === "true";
  const said = ((await bar().textContent()) ?? "").includes(STALE_WORDS);
  if (flagged !== said)
    throw new Error(`data-measured-stale ${flagged} but the stale words ${said ? "shown" : "missing"}`);
  return flagged;
}

beforeAll(async () => {
  app = await startE2eApp("bar-stale", { serve: { seedDemo: false } });
  page = app.page;
  await page.route(`**/api/${encodeURIComponent("context:get")}`, async (route: Route) => {
    const response = await route.fetch();
    const change = alter;
    if (change === null) return route.fulfill({ response });
    const body = (await response.json()) as { ok: boolean; value?: Record<string, unknown> };
    if (body.value) change(body.value);
    return route.fulfill({ response, json: body });
  });
  await page.goto(app.mode.url);
});

afterAll(async () => {
  await app?.stop();
});

describe("the context bar's stale measurement", () => {
  it("follows context:get's measuredBeforeCompaction, both ways", async () => {
    const fresh = await importSession("fresh", true);
    const stale = await importSession("stale", false);

    // Unchanged answers: a reply after the compaction is current, one before it is stale.
    await open(fresh);
    await poll(() => bar().getAttribute("data-measured")).toBe("900");
    expect(await shownStale()).toBe(false);
    await open(stale);
    await poll(() => bar().getAttribute("data-measured")).toBe("5000");
    expect(await shownStale()).toBe(true);

    // The answer says the opposite: the bar says what the answer says.
    alter = (view) => {
      view.measuredBeforeCompaction = true;
    };
    await open(fresh, "a2");
    await poll(shownStale).toBe(true);
    alter = (view) => {
      delete view.measuredBeforeCompaction;
    };
    await open(stale, "u2");
    await poll(shownStale).toBe(false);
    alter = null;
  });

  it("says stale while the tree of the session just opened is still on its way", async () => {
    const sessionId = await importSession("tree-held", false);
    const releaseTree = await holdRequests(page, "session:tree");
    const releaseUpdate = await holdRequests(page, "session:tree-update");
    try {
      await page.evaluate(
        `window.location.hash = ${JSON.stringify(`#/session/${encodeURIComponent(sessionId)}`)}`,
      );
      await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("u2");
      await poll(() => bar().getAttribute("data-measured")).toBe("5000");
      // The tree has not come (its requests are held): the canvas does not show this session.
      expect(await treeShown(sessionId)).toBe(false);
      expect(await shownStale()).toBe(true);
    } finally {
      await releaseTree();
      await releaseUpdate();
    }
    await poll(() => treeShown(sessionId)).toBe(true);
    expect(await shownStale()).toBe(true);
  });

  it("in a real pi session, is stale after each compaction until the first reply with usage", async () => {
    const report = await apiCall<ImportReport>(app.mode, "library:import", {
      path: fixturePath("real-before-compaction.v1.jsonl"),
    });
    const sessionId = report.files[0]?.sessionId as string;
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const childOf = (id: string) => tree.nodes.find((node) => node.parentId === id)?.id ?? null;
    const compactions = tree.nodes.filter((node) => node.type === "compaction").map((node) => node.id);
    expect(compactions).toHaveLength(2);
    await open(sessionId);
    for (const compaction of compactions) {
      // The entries after it up to the first reply that reports usage (the real file's first
      // compaction is followed by an aborted reply without usage, then a user message).
      const after: { id: string; stale: boolean }[] = [];
      let stale = true;
      for (let id = childOf(compaction); id !== null && after.length < 6; id = childOf(id)) {
        const view = await apiCall<ContextView>(app.mode, "context:get", {
          sessionId,
          leafId: id,
          agentMessages: false,
        });
        const last = view.messages.at(-1);
        if (last?.role === "assistant" && last.stopReason !== "aborted" && view.messageEntryIds.at(-1) === id)
          stale = false;
        after.push({ id, stale });
        if (!stale) break;
      }
      expect(after.some((entry) => entry.stale)).toBe(true);
      expect(after.at(-1)?.stale).toBe(false);
      for (const entry of after) {
        await open(sessionId, entry.id);
        await poll(() => bar().getAttribute("data-measured")).not.toBe("");
        expect(await shownStale(), `entry ${entry.id} after compaction ${compaction}`).toBe(entry.stale);
      }
    }
  }, 60_000);
});
