// An open compaction plan follows its session (browser mode with the library watcher, Chromium,
// the real CLI as a process of its own): lines the agent appends to the live file make it again at
// the new leaf, in a few requests for a burst of lines; a label changes nothing on screen; a view
// leaf moved by the CLI makes it again there; a setting the plan is not made with asks nothing,
// one it is made with does; a session deleted from the library is left, plan and all; the plan's
// leaf gone (the edit it was made on undone) says so in one line and Run is disabled. Prints how
// long each took to show.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompactionPlanDto, EditResultDto, ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { cliOn, quietFor } from "../helpers/outside-writer.ts";
import { planSession } from "../helpers/plan-session.ts";

let app: E2eApp;
let file: string;
let sessionId: string;
/** The compaction:preview requests the page made. */
let previews = 0;

const { header, turn } = planSession("plan-follow-1", "/home/dev/plan", "2026-04-01T08:00:00.000Z");

const plan = () => app.page.getByTestId("compaction-plan");
const keepsFrom = () => plan().locator("p").filter({ hasText: "Keeps from" });
const remade = () => app.page.getByTestId("plan-remade");
const blocked = () => app.page.getByTestId("plan-blocked");
const runButton = () => app.page.getByRole("button", { name: "Run compaction" });
const current = () => apiCall<CompactionPlanDto>(app.mode, "compaction:preview", { sessionId });
const cli = (...args: string[]) => cliOn(app.dbPath, ...args);
const lineOf = textOf;

async function openPlan(): Promise<CompactionPlanDto> {
  // Its own request answered (counted too) before a test counts what follows: the plan already
  // shown may read the same as the new one.
  const answer = app.page.waitForResponse(
    (response) => decodeURIComponent(new URL(response.url()).pathname) === "/api/compaction:preview",
  );
  await app.page.getByRole("button", { name: "Compact…" }).click();
  await answer;
  const expected = await current();
  await poll(() => lineOf(keepsFrom())).toContain(`Keeps from ${expected.firstKeptEntryId}`);
  await poll(() => app.page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(expected.leafId);
  return expected;
}

beforeAll(async () => {
  app = await startE2eApp("plan-follow", { serve: { watch: true } });
  const folder = path.join(app.work, "agent", "--home-dev-plan--");
  mkdirSync(folder, { recursive: true });
  file = path.join(folder, "live.jsonl");
  writeFileSync(file, `${[header, ...[1, 2, 3, 4, 5, 6].flatMap(turn)].join("\n")}\n`);
  await apiCall(app.mode, "settings:set", { key: "compaction.keepRecentTokens", value: 400 });
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
  app.page.on("request", (request) => {
    if (decodeURIComponent(new URL(request.url()).pathname) === "/api/compaction:preview") previews++;
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("an open compaction plan follows its session", () => {
  it("is made again at the new leaf when the agent appends lines, in a few requests for a burst", async () => {
    await openSessionShowingAll(app.page, app.mode, sessionId);
    const shown = await openPlan();
    expect(shown.leafId).toBe("a6");
    const before = previews;
    const appended = Date.now();
    // An agent writing: twelve lines, one every 40 ms.
    for (const n of [7, 8, 9, 10, 11, 12]) {
      for (const text of turn(n)) {
        appendFileSync(file, `${text}\n`);
        await quietFor(40);
      }
    }
    await poll(() => lineOf(remade())).toBe(
      "The session grew (its leaf is now a12): the plan was made again there.",
    );
    const shownMs = Date.now() - appended;
    const now = await current();
    expect(now.leafId).toBe("a12");
    expect(await lineOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
    expect(now.firstKeptEntryId).not.toBe(shown.firstKeptEntryId);
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
    await quietFor(1000);
    const asked = previews - before;
    console.log(`12 appended lines: the plan made again ${shownMs} ms after the first, in ${asked} requests`);
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(4);
  }, 60_000);

  it("a label from the CLI asks again, but the same plan stays and nothing is said", async () => {
    const shown = await openPlan();
    expect(await remade().count()).toBe(0);
    const before = previews;
    await cli("label", sessionId, "u3", "checkpoint");
    await poll(() => previews).toBeGreaterThan(before);
    await quietFor(800);
    expect(await remade().count()).toBe(0);
    expect(await lineOf(keepsFrom())).toContain(`Keeps from ${shown.firstKeptEntryId}`);
  }, 60_000);

  it("a setting the plan is not made with asks nothing; the reserve, which bounds the summary, does", async () => {
    const before = previews;
    await cli("settings", "set", "retry.maxRetries", "5");
    await cli("settings", "set", "compaction.autoContinue", "false");
    await quietFor(1500);
    expect(previews).toBe(before);
    expect(await remade().count()).toBe(0);

    await cli("settings", "set", "compaction.reserveTokens", "8000");
    await poll(() => lineOf(remade())).toBe("The settings changed: the plan was made again with them.");
    expect(previews).toBe(before + 1);
    const now = await current();
    expect(now.maxSummaryTokens).toBe(6400);
    expect(await lineOf(plan().locator("p").filter({ hasText: "Tokens before" }))).toContain(
      `≤ ${(now.keptTokens + 6400).toLocaleString()}`,
    );
  }, 60_000);

  it("a view leaf moved by the CLI: made again there", async () => {
    await openPlan();
    await cli("navigate", sessionId, "a9");
    await poll(() => lineOf(remade())).toBe("The view leaf moved to a9: the plan was made again there.");
    const now = await current();
    expect(now.leafId).toBe("a9");
    expect(await lineOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
  }, 60_000);

  it("deleted from the library by the CLI: the page leaves it, plan and all, with Undo; undeleted, it plans again", async () => {
    await openPlan();
    const deleted = Date.now();
    await cli("delete", sessionId);
    // As a delete in another window: the session is left (a plan of it could never run), and the
    // notice offers Undo (edits-qa tests that one).
    await poll(() => lineOf(app.page.getByTestId("notice"))).toContain(
      "was deleted from the library elsewhere (another window or the CLI); its file is untouched.",
    );
    const deleteMs = Date.now() - deleted;
    await poll(() => app.page.getByTestId("tree-canvas").getAttribute("data-tree-session")).not.toBe(sessionId);
    expect(await plan().count()).toBe(0);

    await cli("undelete", sessionId);
    await openSessionShowingAll(app.page, app.mode, sessionId);
    await openPlan();
    expect(await blocked().count()).toBe(0);
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
    console.log(`the deleted session left ${deleteMs} ms after the CLI started`);
  }, 60_000);

  it("its leaf gone (the edit it was made on undone by the CLI): one line, Run disabled", async () => {
    await cli("navigate", sessionId, "a12");
    await poll(() => app.page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("a12");
    // Another window edits the last question: a new branch, the view leaf on its new entry.
    const edit = await apiCall<EditResultDto>(app.mode, "edits:edit-message", {
      sessionId,
      entryId: "u12",
      text: "asked otherwise",
    });
    const edited = edit.viewLeafId as string;
    await poll(() => app.page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(edited);
    const shown = await openPlan();
    expect(shown.leafId).toBe(edited);
    const undone = Date.now();
    await cli("undo", sessionId);
    await poll(() => lineOf(blocked())).toBe(
      `The entry this plan was made at (${edited}) is gone from the session: it cannot run; Compact… makes a new plan.`,
    );
    const goneMs = Date.now() - undone;
    expect(await runButton().getAttribute("aria-disabled")).toBe("true");
    expect(await remade().count()).toBe(0);
    // Compact… makes the plan at the leaf there is now, and it can run.
    const now = await openPlan();
    expect(now.leafId).toBe("a12");
    expect(await blocked().count()).toBe(0);
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
    console.log(`the leaf gone said in the plan ${goneMs} ms after the CLI started`);
  }, 60_000);
});
