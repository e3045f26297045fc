// The library sidebar at 600 sessions, in Debian's Chromium (browser mode): only the rows near the
// view are in the page, yet every row can be scrolled or arrowed to, says its place in its group,
// keeps its delete button; folded project groups stay folded after a reload.
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;
let work: string;

const T0 = Date.parse("2026-11-02T10:00:00.000Z");
const PROJECTS = ["/home/u/alpha", "/home/u/beta", "/home/u/gamma"];
const PER_PROJECT = 200;

/** A one-message session of `cwd`; the n-th is the newest, so it heads its group. */
function writeSession(root: string, cwd: string, n: number): void {
  const id = `${path.basename(cwd)}-${String(n).padStart(4, "0")}-0000-0000-000000000000`;
  const at = new Date(T0 + n * 60_000).toISOString();
  const lines = [
    JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd }),
    JSON.stringify({
      type: "message",
      id: `m${n}`,
      parentId: null,
      timestamp: at,
      message: { role: "user", content: [{ type: "text", text: `Task ${n} of ${cwd}` }], timestamp: T0 },
    }),
  ];
  const dir = path.join(root, `--${cwd.slice(1).replace(/\//g, "-")}--`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${at.replace(/[:.]/g, "-")}_${id}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  // Last modified in the order the sessions were written, as an agent's files are.
  utimesSync(file, new Date(T0 + n * 60_000), new Date(T0 + n * 60_000));
}

beforeAll(async () => {
  app = await startE2eApp("library-scale", { serve: { seedDemo: false } });
  ({ mode, page, work } = app);
  const sessions = path.join(work, "sessions");
  PROJECTS.forEach((cwd, p) => {
    for (let i = 0; i < PER_PROJECT; i++) writeSession(sessions, cwd, p * PER_PROJECT + i);
  });
  const report = await apiCall<ImportReport>(mode, "library:import", { path: sessions });
  expect(report.imported).toBe(PROJECTS.length * PER_PROJECT);
  page.setDefaultTimeout(8000);
  await page.goto(mode.url);
  await page.locator(".session-groups .session").first().waitFor();
});

afterAll(async () => {
  await app?.stop();
});

const rows = () => page.locator(".session-groups button.session").count();
const idOf = (project: string, n: number) => `${path.basename(project)}-${String(n).padStart(4, "0")}-0000-0000-000000000000`;
const row = (id: string) => page.locator(`.session-groups [data-session-id="${id}"]`);

describe("library sidebar at 600 sessions", () => {
  it("renders only the rows near the view, and the rest as the sidebar scrolls", async () => {
    // Newest project first: gamma, beta, alpha; each newest session first.
    expect(await page.locator(".project-name").allTextContents()).toEqual(["gamma", "beta", "alpha"]);
    expect(await rows()).toBeLessThan(150);
    const last = idOf("/home/u/alpha", 0);
    expect(await row(last).count()).toBe(0);
    // The list is as tall as all its rows: scrolling to the end brings the last one in.
    await page.locator(".sidebar").evaluate((sidebar) => {
      sidebar.scrollTop = sidebar.scrollHeight;
    });
    await expect.poll(() => row(last).count()).toBe(1);
    expect(await rows()).toBeLessThan(150);
    const item = page.locator(".session-item", { has: page.locator(`[data-session-id="${last}"]`) });
    expect(await item.getAttribute("role")).toBe("listitem");
    expect(await item.getAttribute("aria-posinset")).toBe(String(PER_PROJECT));
    expect(await item.getAttribute("aria-setsize")).toBe(String(PER_PROJECT));
    // Its delete button is there and asks first.
    await item.getByRole("button", { name: /^Delete “Task 0 of \/home\/u\/alpha” from the library$/ }).click();
    await expect.poll(() => page.locator(".delete-confirm").count()).toBe(1);
    await page.locator(".delete-confirm").getByRole("button", { name: "Cancel" }).click();
    await page.locator(".sidebar").evaluate((sidebar) => {
      sidebar.scrollTop = 0;
    });
    await expect.poll(() => row(idOf("/home/u/gamma", 599)).count()).toBe(1);
  });

  it("moves between rows with the arrow keys, past the rows first rendered", async () => {
    await row(idOf("/home/u/gamma", 599)).focus();
    for (let i = 0; i < 60; i++) await page.keyboard.press("ArrowDown");
    expect(await page.evaluate('document.activeElement?.getAttribute("data-session-id")')).toBe(
      idOf("/home/u/gamma", 599 - 60),
    );
    for (let i = 0; i < 61; i++) await page.keyboard.press("ArrowUp");
    // Up from the group's first row: its heading.
    expect(await page.evaluate('document.activeElement?.closest(".project-heading") !== null')).toBe(true);
  });

  // Keys faster than the list renders the rows coming near (a held arrow, a slow machine): the
  // focus ran out of rendered rows, or jumped to a chunk left rendered far below (CI, throttled:
  // 60 ArrowDown from gamma's first row ended on alpha's last).
  it("moves one row a key even when the keys come before the rows below are rendered", async () => {
    await page.locator(".sidebar").evaluate((sidebar) => {
      sidebar.scrollTop = 0;
    });
    await row(idOf("/home/u/gamma", 599)).focus();
    // All the keys in one task: no frame, so no row is rendered meanwhile but by the keys.
    const focused = await page.evaluate(() => {
      const press = (key: string) =>
        document.activeElement?.dispatchEvent(
          new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }),
        );
      const at = () => document.activeElement?.getAttribute("data-session-id") ?? null;
      for (let i = 0; i < 60; i++) press("ArrowDown");
      const down = at();
      for (let i = 0; i < 61; i++) press("ArrowUp");
      return [down, document.activeElement?.closest(".project-heading") !== null];
    });
    expect(focused).toEqual([idOf("/home/u/gamma", 599 - 60), true]);
  });

  it("keeps folded project groups folded after a reload", async () => {
    const beta = page.locator('[data-project="/home/u/beta"] .project-heading button');
    await beta.click();
    expect(await beta.getAttribute("aria-expanded")).toBe("false");
    await page.reload();
    await page.locator(".session-groups .session").first().waitFor();
    expect(await beta.getAttribute("aria-expanded")).toBe("false");
    expect(await page.locator('[data-project="/home/u/beta"] .session').count()).toBe(0);
    await beta.click();
    await page.reload();
    await page.locator(".session-groups .session").first().waitFor();
    expect(await beta.getAttribute("aria-expanded")).toBe("true");
  });
});
