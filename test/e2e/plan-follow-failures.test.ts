// An open compaction plan whose re-plan goes wrong (browser mode with the library watcher,
// Chromium, the real CLI): a re-plan the page cannot get (its request aborted, as when the server
// does not answer) keeps the plan shown and Run, says so in one line with Retry (reached from the
// keyboard), and a Run of a plan that went stale meanwhile is refused with nothing run; a setting
// changed while Compact… still waits for its first plan is applied to it; the entry the plan was
// made at archived (an answered edit undone) is said as archived, not as a view leaf moved, and
// archived with the view leaf on it (Archive branch, confirmed) says the plan still applies there;
// the view leaf moved while Compact… still waits for its first plan: the plan is made again there.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompactionPlanDto, EditResultDto, ImportReport, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { cliOn, quietFor } from "../helpers/outside-writer.ts";
import { planSession } from "../helpers/plan-session.ts";

let app: E2eApp;
let file: string;
let sessionId: string;

const { header, line, turn } = planSession("plan-failures-1", "/home/dev/failures", "2026-04-02T08:00:00.000Z");

/** The page's compaction:preview requests (the channel is URL-encoded in the path). */
const PREVIEW = (url: URL) => decodeURIComponent(url.pathname) === "/api/compaction:preview";
const plan = () => app.page.getByTestId("compaction-plan");
const keepsFrom = () => plan().locator("p").filter({ hasText: "Keeps from" });
const remade = () => app.page.getByTestId("plan-remade");
const retryLine = () => app.page.getByTestId("plan-retry");
const runButton = () => app.page.getByRole("button", { name: "Run compaction" });
const retryButton = () => app.page.getByRole("button", { name: "Retry" });
const current = () => apiCall<CompactionPlanDto>(app.mode, "compaction:preview", { sessionId });
const tree = () => apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
const leafShown = () => app.page.getByTestId("llm-view").getAttribute("data-leaf-id");
const compactions = async () => (await tree()).nodes.filter((node) => node.kind === "compaction").length;

async function openPlan(): Promise<CompactionPlanDto> {
  // The plan already shown may read the same as the new one: wait for Compact…'s own answer.
  const answer = app.page.waitForResponse((response) => PREVIEW(new URL(response.url())));
  await app.page.getByRole("button", { name: "Compact…" }).click();
  await answer;
  const expected = await current();
  await poll(() => textOf(keepsFrom())).toContain(`Keeps from ${expected.firstKeptEntryId}`);
  await poll(leafShown).toBe(expected.leafId);
  return expected;
}

/** The page's compaction:preview requests so far. */
let previews = 0;

/** Waits until the page has asked for no plan for a while (longer than the re-plan's max wait). */
async function settledPreviews(): Promise<void> {
  for (let seen = -1; seen !== previews; ) {
    seen = previews;
    await quietFor(1800);
  }
}

/** Every compaction:preview of the page fails as a request that gets no answer. */
async function previewsFail(): Promise<() => Promise<void>> {
  const abort = (route: Route) => route.abort("connectionrefused");
  await app.page.route(PREVIEW, abort);
  return () => app.page.unroute(PREVIEW, abort);
}

beforeAll(async () => {
  app = await startE2eApp("plan-failures", { serve: { watch: true } });
  const folder = path.join(app.work, "agent", "--home-dev-failures--");
  mkdirSync(folder, { recursive: true });
  file = path.join(folder, "live.jsonl");
  writeFileSync(file, `${[header, ...[1, 2, 3, 4, 5, 6].flatMap(turn)].join("\n")}\n`);
  await apiCall(app.mode, "settings:set", { key: "compaction.keepRecentTokens", value: 400 });
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
  app.page.on("request", (request) => {
    if (PREVIEW(new URL(request.url()))) previews++;
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a compaction plan that cannot be made again", () => {
  it("keeps Run, says why in one line, and Retry (from the keyboard) makes it again", async () => {
    await openSessionShowingAll(app.page, app.mode, sessionId);
    const shown = await openPlan();
    expect(shown.leafId).toBe("a6");
    const succeed = await previewsFail();
    for (const text of turn(7)) appendFileSync(file, `${text}\n`);
    await poll(() => textOf(retryLine())).toMatch(
      /^The session changed, and the plan could not be made again: Canopy is not reachable: .*\. Retry asks again; Run first checks that this plan still holds, and runs nothing if it does not\. Retry$/,
    );
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${shown.firstKeptEntryId}`);
    expect(await app.page.getByTestId("plan-blocked").count()).toBe(0);

    // Every re-plan the change asked for has failed (none waits any more) before requests pass again.
    await settledPreviews();
    await succeed();
    await quietFor(500);
    expect(await retryLine().count()).toBe(1);
    await retryButton().focus();
    const retried = Date.now();
    await app.page.keyboard.press("Enter");
    await poll(() => textOf(remade())).toBe(
      "The session grew (its leaf is now a7): the plan was made again there.",
    );
    console.log(`Retry: the plan made again ${Date.now() - retried} ms after Enter`);
    expect(await retryLine().count()).toBe(0);
    // Retry went with its line: the focus is on the plan's Run compaction, not on the page's body.
    const focused = await app.page.evaluate(() =>
      document.activeElement === document.body ? "body" : (document.activeElement?.textContent?.trim() ?? null),
    );
    expect(focused).toBe("Run compaction");
    const now = await current();
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
  }, 60_000);

  it("a Run of the plan shown after it went stale is refused: nothing runs, and the plan now shows", async () => {
    const shown = await openPlan();
    expect(shown.leafId).toBe("a7");
    const succeed = await previewsFail();
    for (const n of [8, 9]) for (const text of turn(n)) appendFileSync(file, `${text}\n`);
    await poll(() => textOf(retryLine())).toContain("the plan could not be made again");
    await poll(async () => (await tree()).fileLeafId).toBe("a9");
    await settledPreviews();
    const before = await compactions();
    await succeed();
    await quietFor(500);
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${shown.firstKeptEntryId}`);
    await runButton().click();
    const now = await current();
    expect(now.firstKeptEntryId).not.toBe(shown.firstKeptEntryId);
    await poll(() => textOf(remade())).toBe(
      `The plan shown is out of date (the session or the settings changed): it would now keep from ${now.firstKeptEntryId}, so nothing was run. This is the plan now.`,
    );
    expect(await compactions()).toBe(before);
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
    expect(await retryLine().count()).toBe(0);
  }, 60_000);
});

describe("a setting changed while Compact… waits for its first plan", () => {
  it("is applied to the plan once it is in", async () => {
    const before = await current();
    await app.page.getByRole("button", { name: "Close" }).click();
    let heard: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      heard = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first answer is made now (with keep-recent 400), and reaches the page after the change.
    await app.page.route(
      PREVIEW,
      async (route) => {
        const response = await route.fetch();
        heard();
        await released;
        await route.fulfill({ response });
      },
      { times: 1 },
    );
    await app.page.getByRole("button", { name: "Compact…" }).click();
    await answered;
    await cliOn(app.dbPath, "settings", "set", "compaction.keepRecentTokens", "1000");
    // The page hears settings:changed over its socket, then the old plan arrives.
    await quietFor(500);
    release();
    const now = await current();
    expect(now.plannedWith.keepRecentTokens).toBe(1000);
    expect(now.firstKeptEntryId).not.toBe(before.firstKeptEntryId);
    await poll(() => textOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
    expect(await textOf(remade())).toBe(
      "Keep-recent is now 1,000 tokens (changed in the settings): the plan was made again with it.",
    );
  }, 60_000);
});

describe("the entry the plan was made at archived", () => {
  it("(an answered edit undone by the CLI) is said as archived, with the plan at the view leaf", async () => {
    const edit = await apiCall<EditResultDto>(app.mode, "edits:edit-message", {
      sessionId,
      entryId: "u9",
      text: "asked otherwise",
    });
    const edited = edit.viewLeafId as string;
    // The agent answers the edited question: the edit cannot simply be removed by undo any more.
    appendFileSync(file, `${line("r9", edited, "assistant", 40)}\n`);
    await poll(async () => (await tree()).nodes.some((node) => node.id === "r9")).toBe(true);
    await poll(leafShown).toBe(edited);
    const shown = await openPlan();
    expect(shown.leafId).toBe(edited);
    const undone = Date.now();
    const said = await cliOn(app.dbPath, "undo", sessionId);
    expect(said).toContain("archived instead");
    // The view leaf followed the file's last entry (r9, now hidden): it stays where the edit branched.
    await poll(async () => (await tree()).viewLeafId).toBe("a8");
    await poll(() => textOf(remade())).toBe(
      `The entry this plan was made at (${edited}) was archived (hidden; Show archived shows it): the plan was made again at the view leaf, a8.`,
    );
    console.log(`the archived leaf said in the plan ${Date.now() - undone} ms after the CLI started`);
    const now = await current();
    expect(now.leafId).toBe("a8");
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
    expect(await app.page.getByTestId("plan-blocked").count()).toBe(0);
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
  }, 60_000);

  it("with the view leaf (Archive branch, confirmed, in another window): says the plan still applies to it", async () => {
    const shown = await openPlan();
    expect(shown.leafId).toBe("a8");
    await apiCall<EditResultDto>(app.mode, "edits:archive", { sessionId, entryId: "u8", confirm: true });
    await poll(() => textOf(remade())).toBe(
      "The entry this plan is made at (a8) was archived (hidden; Show archived shows it): it is still the view leaf, so the plan still applies to it.",
    );
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${shown.firstKeptEntryId}`);
    expect(await runButton().getAttribute("aria-disabled")).toBe("false");
    await apiCall<EditResultDto>(app.mode, "edits:unarchive", { sessionId, entryId: "u8" });
    await poll(() => remade().count()).toBe(0);
  }, 60_000);
});

describe("the session changed while Compact… waits for its first plan", () => {
  it("the plan is made again once it is in, saying why, not left as it was before the change", async () => {
    const before = await tree();
    expect(before.viewLeafId).toBe("a8");
    await app.page.getByRole("button", { name: "Close" }).click();
    let heard: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      heard = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Compact…'s answer is made now (at a8), and reaches the page after the view leaf moved.
    await app.page.route(
      PREVIEW,
      async (route) => {
        const response = await route.fetch();
        heard();
        await released;
        await route.fulfill({ response });
      },
      { times: 1 },
    );
    await app.page.getByRole("button", { name: "Compact…" }).click();
    await answered;
    // Another window moves the view leaf; the page has heard it once its LLM view shows a7.
    await apiCall(app.mode, "session:set-view-leaf", { sessionId, leafId: "a7" });
    await poll(leafShown).toBe("a7");
    release();
    const now = await current();
    expect(now.leafId).toBe("a7");
    await poll(() => textOf(remade())).toBe("The view leaf moved to a7: the plan was made again there.");
    expect(await textOf(keepsFrom())).toContain(`Keeps from ${now.firstKeptEntryId}`);
  }, 60_000);
});
