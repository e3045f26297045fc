// A session whose file is gone shows it in the library list, not only once opened: the row's
// problem badge counted the tree problems and malformed lines but not the file notice, so the
// list gave no sign that a session needed attention. And a file the user deleted on purpose
// said "file gone" for good, with nothing to do about it: the notice now offers to keep the
// library's copy as the only one (the row then says "only copy", nothing is removed) or to
// delete the session from the library (asked first). Each, while it waits (Keep on its own
// request, Delete on an edit being saved), says so in its tooltip instead of its usual one.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { holdRequests } from "../helpers/held-requests.ts";

let app: E2eApp;
let page: Page;

/** Imports a copy of a fixture from the test's folder; returns the copy's path and session id. */
async function importCopy(name: string): Promise<{ file: string; sessionId: string }> {
  const folder = path.join(app.work, "sessions");
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  copyFileSync(fixturePath(name), file);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  const sessionId = report.files[0]?.sessionId;
  if (!sessionId) throw new Error(`${name} was not imported`);
  return { file, sessionId };
}

const EDIT_BUSY = "Another edit is being saved on this session; available again once it is done.";

/** Holds the page's requests to `endpoint` until the returned release is called. */
const holdRequestsTo = (endpoint: string) => holdRequests(page, endpoint);

const row = (sessionId: string) => page.locator(`button.session[data-session-id="${sessionId}"]`);
const warnBadge = (sessionId: string) => row(sessionId).locator(".badge.warn");

beforeAll(async () => {
  app = await startE2eApp("file-notices");
  page = app.page;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a session whose file is gone", () => {
  it("is marked in the list, and keeping the library copy ends the notice without removing anything", async () => {
    const { file, sessionId } = await importCopy("tree-03.jsonl");
    await openLibrary(app);
    await row(sessionId).waitFor();
    expect(await warnBadge(sessionId).count()).toBe(0);

    rmSync(file);
    await page.reload();
    await poll(() => warnBadge(sessionId).count()).toBe(1);
    expect(await warnBadge(sessionId).textContent()).toBe("1 problem");
    expect(await warnBadge(sessionId).getAttribute("title")).toContain("its file is gone");
    expect(await row(sessionId).getAttribute("title")).toContain("its file is gone");

    await row(sessionId).click();
    const problems = page.getByTestId("session-problems");
    await problems.locator("summary").click();
    const gone = problems.locator('li[data-problem-kind="file_missing"]');
    // Held while its own request runs: its tooltip says so, not what it would do.
    const keepButton = gone.getByRole("button", { name: "Keep the library copy" });
    const release = await holdRequestsTo("library:keep-copy");
    try {
      await keepButton.click();
      await poll(() => keepButton.getAttribute("aria-disabled")).toBe("true");
      expect(await keepButton.getAttribute("title")).toBe(
        "Keeping the library copy as the only one; available again once it is done.",
      );
    } finally {
      await release();
    }

    await page.getByTestId("kept-copy-note").waitFor();
    expect(await page.getByTestId("kept-copy-note").textContent()).toContain(file);
    await poll(() => problems.count()).toBe(0);
    await poll(() => warnBadge(sessionId).count()).toBe(0);
    expect(await row(sessionId).locator(".badge", { hasText: "only copy" }).count()).toBe(1);

    // Kept for good (stored in the library), and every entry is still there.
    await page.reload();
    await page.getByTestId("kept-copy-note").waitFor();
    expect(await warnBadge(sessionId).count()).toBe(0);
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const kept = sessions.find((session) => session.id === sessionId);
    expect(kept?.fileState).toBe("kept");
    expect(kept?.entryCount).toBe(649);
  }, 60_000);

  it("can be deleted from the library from its notice, asked first", async () => {
    const { file, sessionId } = await importCopy("tree-02.jsonl");
    rmSync(file);
    // A new hash alone keeps the page (and the list it loaded, maybe with the file still there):
    // reloaded, the list is asked for now. No watcher here to say the file went.
    await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
    await page.reload();
    await poll(() => warnBadge(sessionId).count()).toBe(1);
    const problems = page.getByTestId("session-problems");
    await problems.locator("summary").click();
    // Disabled while an edit (a rename here) is saved: its tooltip says why, as the library's × does.
    const deleteButton = problems.getByRole("button", { name: "Delete from library…" });
    const release = await holdRequestsTo("edits:rename");
    try {
      await page.getByRole("button", { name: "Rename", exact: true }).click();
      await page.getByLabel("Session title").fill("Renamed while gone");
      await page.getByLabel("Session title").press("Enter");
      await poll(() => deleteButton.isDisabled()).toBe(true);
      expect(await deleteButton.getAttribute("title")).toBe(EDIT_BUSY);
    } finally {
      await release();
    }
    await poll(() => deleteButton.isDisabled()).toBe(false);
    expect(await deleteButton.getAttribute("title")).toBe(
      "Delete the session from the library too (asked first; Undo brings it back)",
    );
    await deleteButton.click();
    const confirm = page.getByRole("alertdialog", { name: "Delete this session from the library?" });
    // Not "its file stays untouched": the file is gone, and the confirmation says what that means.
    expect(await confirm.textContent()).toContain("Its file is gone: this is the only copy of the session.");
    await confirm.getByRole("button", { name: "Delete" }).click();
    await poll(() => row(sessionId).count()).toBe(0);
    expect(await page.getByTestId("notice").textContent()).toContain("its file was gone, so Undo is the way back");
    const deleted = await apiCall<SessionSummary[]>(app.mode, "library:list", { deleted: true });
    expect(deleted.map((session) => session.id)).toContain(sessionId);
  }, 60_000);
});
