// "Scan agent folders" over two folders, in Debian's Chromium (browser mode): one count for all
// the files, a progress line that stays until the report, problem files named relative to their
// folder (the full path in the tooltip), each folder named apart on the progress line as its
// import starts, and the open session stays open afterwards.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { progressName } from "../../main/api/handlers/library.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;
let work: string;
let pi: string;
let omp: string;
let broken: string;

const T0 = Date.parse("2026-11-02T10:00:00.000Z");

/** A session file under `root` in the agents' layout; `extra` lines are appended as they are. */
function writeSession(root: string, n: number, extra: string[] = []): string {
  const id = `scan${String(n).padStart(4, "0")}-0000-0000-0000-000000000000`;
  const at = new Date(T0 + n * 60_000).toISOString();
  const lines = [
    JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: "/home/u/a-project-with-a-long-name" }),
    JSON.stringify({
      type: "message",
      id: `m${n}`,
      parentId: null,
      timestamp: at,
      message: { role: "user", content: [{ type: "text", text: `Task ${n}` }], timestamp: T0 },
    }),
    ...extra,
  ];
  const dir = path.join(root, "--home-u-a-project-with-a-long-name--");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${at.replace(/[:.]/g, "-")}_${id}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

beforeAll(async () => {
  app = await startE2eApp("library-scan", { serve: { seedDemo: false } });
  ({ mode, page, work } = app);
  pi = path.join(work, "home", ".pi", "agent", "sessions");
  omp = path.join(work, "home", ".omp", "agent", "sessions");
  broken = writeSession(pi, 1, ["{ not json"]);
  for (let n = 2; n <= 3; n++) writeSession(pi, n);
  for (let n = 4; n <= 5; n++) writeSession(omp, n);
  // The second folder's sessions are in the library already; the user has one of them open.
  const report = await apiCall<ImportReport>(mode, "library:import", { path: omp });
  expect(report.imported).toBe(2);
  await apiCall(mode, "library:set-folders", { folders: [pi, omp] });
  await page.goto(mode.url);
  await page.locator(".session-groups .session").first().waitFor();
});

afterAll(async () => {
  await app?.stop();
});

describe("Scan agent folders", () => {
  it("counts all folders' files as one, keeps its progress line to the end, and leaves the open session open", async () => {
    const open = "scan0004-0000-0000-0000-000000000000";
    await page.locator(`.session-groups [data-session-id="${open}"]`).click();
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-session-id")).toBe(open);
    // Every state of the import line from the click on: a progress text, nothing, or the report.
    await page.evaluate(`(() => {
      const seen = [];
      window.__seen = seen;
      const look = () => {
        const progress = document.querySelector(".import-progress-text");
        const report = document.querySelector(".import-report");
        const state = progress ? "progress " + progress.textContent : report ? "report" : "none";
        if (seen[seen.length - 1] !== state) seen.push(state);
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.getByRole("button", { name: "Scan agent folders" }).click();
    await expect.poll(() => page.locator(".import-report").count(), { timeout: 30_000 }).toBe(1);
    const seen = (await page.evaluate("window.__seen")) as string[];
    const progress = seen.filter((state) => state.startsWith("progress "));
    expect(progress.length).toBeGreaterThan(0);
    // One count over both folders' five files, never one per folder.
    for (const state of progress.filter((text) => /\(\d+\/\d+\)$/.test(text))) expect(state).toMatch(/\/5\)$/);
    expect(progress.some((state) => state.endsWith("(5/5)"))).toBe(true);
    // Each folder is named as it starts, the two apart (both end in "sessions").
    expect(progress).toContain(`progress Importing ${progressName(pi, false)} (0/5)`);
    expect(progress).toContain(`progress Importing ${progressName(omp, false)} (3/5)`);
    expect(progressName(pi, false)).not.toBe(progressName(omp, false));
    // From its first progress text to the report, the line is never empty.
    const from = seen.findIndex((state) => state.startsWith("progress "));
    expect(seen.slice(from, seen.indexOf("report"))).not.toContain("none");

    // The file with a malformed line: named from its folder on, its whole path in the tooltip.
    const problem = page.locator(".import-report .import-problem-path");
    expect(await problem.count()).toBe(1);
    const relative = path.relative(pi, broken);
    const shown = (await problem.textContent()) ?? "";
    expect(shown.length).toBeLessThanOrEqual(48);
    expect(shown.startsWith(relative.slice(0, 12))).toBe(true);
    expect(shown).toContain("…");
    expect(shown.endsWith(relative.slice(-24))).toBe(true);
    expect(await problem.getAttribute("title")).toBe(broken);
    expect(await page.locator(".import-report").textContent()).not.toContain(work);

    // The session the user had open stays open (not the report's first file).
    await page.waitForTimeout(500);
    expect(await page.locator(".session-groups .session[aria-current='true']").getAttribute("data-session-id")).toBe(open);
    expect(await page.getByTestId("llm-view").getAttribute("data-session-id")).toBe(open);
  });

  it("opens the one file imported by name", async () => {
    const one = writeSession(path.join(work, "single"), 9);
    await page.locator("form.import-form input").first().fill(one);
    await page.locator("form.import-form input").first().press("Enter");
    await expect
      .poll(() => page.locator(".session-groups .session[aria-current='true']").getAttribute("data-session-id"))
      .toBe("scan0009-0000-0000-0000-000000000000");
  });
});
