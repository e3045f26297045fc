// The library sidebar as a user with many agent sessions meets it, in Debian's Chromium (browser
// mode): switching sessions never shows the previous session's LLM view under the new title, an
// import's progress line (real agent file names are long) stays inside the sidebar, and the list
// filters by title, first message or folder and sorts by date, name or size.
import { randomUUID } from "node:crypto";
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
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A session as the agents name it: `<sessions>/--<cwd>--/<ts>_<id>.jsonl` (SPEC §1.1). */
function writeSession(root: string, cwd: string, at: number, prompts: string[], title?: string): string {
  const id = randomUUID();
  const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: iso(at), cwd })];
  let parent: string | null = null;
  prompts.forEach((text, i) => {
    const entryId = `${id.slice(0, 4)}${String(i).padStart(4, "0")}`;
    lines.push(
      JSON.stringify({
        type: "message",
        id: entryId,
        parentId: parent,
        timestamp: iso(at + i),
        message: { role: "user", content: [{ type: "text", text }], timestamp: T0 + (at + i) * 1000 },
      }),
    );
    parent = entryId;
  });
  if (title)
    lines.push(
      JSON.stringify({
        type: "session_info",
        id: `${id.slice(0, 4)}ffff`,
        parentId: parent,
        timestamp: iso(at + 99),
        name: title,
      }),
    );
  const dir = path.join(root, `--${cwd.slice(1).replace(/[/\\:]/g, "-")}--`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${iso(at).replace(/[:.]/g, "-")}_${id}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  // Last modified in the order the sessions were written, as an agent's files are.
  const modified = new Date(T0 + (at + 99) * 1000);
  utimesSync(file, modified, modified);
  return id;
}

const sessionIds: Record<string, string> = {};

beforeAll(async () => {
  app = await startE2eApp("library-big", { serve: { seedDemo: false } });
  ({ mode, page, work } = app);
  const sessions = path.join(work, "sessions");
  sessionIds.login = writeSession(sessions, "/home/u/proj-a", 0, [
    "Fix the flaky login test",
    "and the logout one",
  ]);
  sessionIds.docs = writeSession(
    sessions,
    "/home/u/proj-a",
    100,
    ["Write docs for the plugin API"],
    "Plugin docs",
  );
  sessionIds.deploy = writeSession(sessions, "/home/u/work/infra", 200, [
    "Port the deploy script to TypeScript",
  ]);
  sessionIds.bucket = writeSession(sessions, "/home/u/work/infra", 300, [
    "Set up the staging bucket",
    "now prod",
  ]);
  const report = await apiCall<ImportReport>(mode, "library:import", { path: sessions });
  expect(report.imported).toBe(4);
  await page.goto(mode.url);
  await page.getByTestId("llm-view").waitFor();
});

afterAll(async () => {
  await app?.stop();
});

const sessionButton = (id: string) => page.locator(`.session-groups [data-session-id="${id}"]`);

describe("library sidebar with many sessions", () => {
  it("never shows the previous session's LLM view while the next one loads", async () => {
    const [first, second] = [sessionIds.login as string, sessionIds.deploy as string];
    await sessionButton(first).click();
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-session-id")).toBe(first);
    // Every state the page passes through: which session the list marks open, which session's
    // messages the LLM view shows.
    await page.evaluate(`(() => {
      const seen = [];
      window.__seen = seen;
      new MutationObserver(() => {
        const open = document.querySelector('.session[aria-current="true"]')?.getAttribute("data-session-id");
        const shown = document.querySelector('[data-testid="llm-view"]')?.getAttribute("data-session-id");
        seen.push((open ?? "-") + " " + (shown ?? "-"));
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    await sessionButton(second).click();
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-session-id")).toBe(second);
    const seen = (await page.evaluate("window.__seen")) as string[];
    expect(seen.some((state) => state.startsWith(`${second} `))).toBe(true);
    expect(seen.filter((state) => state === `${second} ${first}`)).toEqual([]);
  });

  it("keeps an import's progress line, with an agent's long file name, inside the sidebar", async () => {
    // Big enough (12 MB) for the import thread, which reports file by file.
    const folder = path.join(work, "big-import");
    const long = "a long question about the parser ".repeat(500);
    for (let f = 0; f < 6; f++) writeSession(folder, "/home/u/big", 1000 + f * 200, Array(120).fill(long));
    await page.evaluate(`(() => {
      const record = { progress: 0, overflow: 0 };
      window.__record = record;
      new MutationObserver(() => {
        const text = document.querySelector(".import-progress-text")?.textContent ?? "";
        if (!text.includes(".jsonl")) return;
        record.progress++;
        const sidebar = document.querySelector(".sidebar");
        const edge = sidebar.getBoundingClientRect().right;
        const scan = document.querySelector(".scan-button").getBoundingClientRect().right;
        record.overflow = Math.max(record.overflow, sidebar.scrollWidth - sidebar.clientWidth, scan - edge);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.locator("form.import-form input").first().fill(folder);
    await page.locator("form.import-form input").first().press("Enter");
    await expect
      .poll(() => page.locator(".import-report").textContent(), { timeout: 60_000 })
      .toContain("6 imported");
    const record = (await page.evaluate("window.__record")) as { progress: number; overflow: number };
    expect(record.progress).toBeGreaterThan(0);
    expect(record.overflow).toBeLessThanOrEqual(1);
  });

  it("filters the list by title, first message or folder, and sorts it", async () => {
    const filter = page.getByRole("searchbox", { name: "Filter the list by title, first message, folder, file name or session id" });
    const shown = () =>
      page
        .locator(".session-groups .session")
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-session-id")));
    const groups = () => page.locator(".session-groups .project-name").allTextContents();
    await filter.fill("infra");
    await expect.poll(groups).toEqual(["infra"]);
    expect(await shown()).toEqual([sessionIds.bucket, sessionIds.deploy]);
    await filter.fill("PLUGIN docs");
    await expect.poll(shown).toEqual([sessionIds.docs]);
    expect(await page.locator(".session-filter-count").textContent()).toMatch(/^1 of \d+ sessions$/);
    await filter.fill("flaky proj-a");
    await expect.poll(shown).toEqual([sessionIds.login]);
    await filter.fill("nowhere-to-be-found");
    await expect.poll(shown).toEqual([]);
    expect(await page.locator(".session-filter-count").textContent()).toContain("No session");
    await filter.press("Escape");
    const all = await apiCall<unknown[]>(mode, "library:list", {});
    await expect.poll(async () => (await shown()).length).toBe(all.length);
    const sort = page.getByRole("combobox", { name: "Sort sessions by" });
    await sort.selectOption("name");
    await expect.poll(groups).toEqual(all.length > 4 ? ["big", "infra", "proj-a"] : ["infra", "proj-a"]);
    const inProjA = () =>
      page
        .locator('[data-project="/home/u/proj-a"] .session')
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-session-id")));
    // "Fix the flaky…" before "Plugin docs".
    await expect.poll(inProjA).toEqual([sessionIds.login, sessionIds.docs]);
    await sort.selectOption("modified");
    await expect.poll(inProjA).toEqual([sessionIds.docs, sessionIds.login]);
  });
});
