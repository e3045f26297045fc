// The LLM view panel and the library sidebar in Debian's Chromium (browser mode): the view
// matches context:get, the context bar carries the figures, entry links select entries, the diff
// modes agree with core's diff, search hits open a session at the entry, markdown never turns
// message text into markup, a growing agent file refreshes the open session, and empty states
// say something. The renderer is the run's shared build (test/helpers/shared-renderer.ts), never
// dist/renderer.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  ContextView,
  ImportReport,
  SearchHit,
  SessionSummary,
  SessionTreeDto,
} from "../../core/api/dto.ts";
import { diffContextsWithLinks, type EntryLink } from "../../core/session/context-diff.ts";
import { progressName } from "../../main/api/handlers/library.ts";
import { type BrowserMode, startBrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let browser: Browser;
let page: Page;
let work: string;
const shots = path.join(artifactsDir(), "llm-view-library");

const api = <T>(channel: string, input: unknown, target: BrowserMode = mode): Promise<T> =>
  apiCall<T>(target, channel, input);

const T0 = Date.parse("2026-04-01T08:00:00.000Z");
const stamp = (s: number) => new Date(T0 + s * 1000).toISOString();
const headerLine = (id: string, cwd: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: stamp(0), cwd });
const userLine = (id: string, parentId: string | null, text: string, s: number) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: stamp(s),
    message: { role: "user", content: [{ type: "text", text }], timestamp: T0 + s * 1000 },
  });
const assistantLine = (id: string, parentId: string, text: string, s: number) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: stamp(s),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "anthropic",
      model: "claude-test",
      usage: { input: 900, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1000 },
      stopReason: "stop",
      timestamp: T0 + s * 1000,
    },
  });

function linksOf(tree: SessionTreeDto): Map<string, EntryLink> {
  return new Map(
    tree.nodes.map((node) => [node.id, { parentId: node.parentId, type: node.type, fromId: null }]),
  );
}

async function openSession(sessionId: string): Promise<ContextView> {
  await page.locator(`.session-groups [data-session-id="${sessionId}"]`).click();
  const expected = await api<ContextView>("context:get", { sessionId });
  await expect
    .poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id"))
    .toBe(expected.leafId ?? "");
  return expected;
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  // The library watcher on: live session folders re-import as they grow.
  app = await startE2eApp("llm", { serve: { watch: true }, page: { colorScheme: "dark" } });
  ({ mode, browser, page, work } = app);
  await openLibrary(app);
});

afterAll(async () => {
  await app?.stop();
});

describe("LLM view panel", () => {
  it("shows exactly what context:get returns for every demo session, with the context bar's figures", async () => {
    const sessions = await api<SessionSummary[]>("library:list", {});
    for (const session of sessions) {
      const expected = await openSession(session.id);
      const view = page.getByTestId("llm-view");
      await expect.poll(() => view.getAttribute("data-message-count")).toBe(String(expected.messages.length));
      const rows = await view
        .locator("[data-role]")
        .evaluateAll((nodes) =>
          nodes.map((node) => [node.getAttribute("data-role"), node.getAttribute("data-entry-id")]),
        );
      expect(rows).toEqual(
        expected.messages.map((message, i) => [message.role, expected.messageEntryIds[i] ?? ""]),
      );
      const bar = page.getByTestId("context-bar");
      expect(await bar.getAttribute("data-estimated")).toBe(String(expected.estimatedTokens));
      expect(await bar.getAttribute("data-measured")).toBe(
        expected.measuredTokens === null ? "" : String(expected.measuredTokens),
      );
      // No model configured: unknown window, and the offline summarizer is named.
      expect(await bar.getAttribute("data-window")).toBe("");
      expect(await bar.getAttribute("data-threshold")).toBe("");
      expect(await bar.textContent()).toContain("offline summarizer");
      // SPEC §4.4 quirk: a measurement from before the compaction in effect is flagged as stale,
      // as context:get says (context-bar-stale.test.ts walks a real session's compactions).
      const stale = expected.measuredBeforeCompaction === true;
      expect(await bar.getAttribute("data-measured-stale")).toBe(stale ? "true" : null);
      if (stale) expect(await bar.textContent()).toContain("stale until the next reply");
    }
    await page.screenshot({ path: path.join(shots, "01-llm-view-dark.png") });
  });

  it("measures against the model's window and the compaction threshold once a model is configured", async () => {
    await api("settings:set", {
      key: "model",
      value: { baseUrl: "http://127.0.0.1:9/v1", id: "test-model", contextWindow: 64_000 },
    });
    try {
      const [session] = await api<SessionSummary[]>("library:list", {});
      if (!session) throw new Error("no session");
      await openSession(session.id);
      const bar = page.getByTestId("context-bar");
      await expect.poll(() => bar.getAttribute("data-window")).toBe("64000");
      expect(await bar.getAttribute("data-threshold")).toBe(String(64_000 - 16_384));
    } finally {
      await api("settings:set", { key: "model", value: null });
    }
  });

  it("an entry link selects that entry (route and preview follow), and the leaf diff agrees with core", async () => {
    const sessions = await api<SessionSummary[]>("library:list", {});
    const target = sessions.find((s) => s.title === "Session store tree") ?? sessions[0];
    if (!target) throw new Error("no session");
    const atLeaf = await openSession(target.id);
    const entryId = atLeaf.messageEntryIds[3];
    if (!entryId) throw new Error("short session");
    await page.getByRole("button", { name: `Select entry ${entryId} in the tree` }).click();
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(entryId);
    expect(new URL(page.url()).hash).toBe(`#/session/${encodeURIComponent(target.id)}?leaf=${entryId}`);
    await expect
      .poll(() => page.locator('[data-role][aria-current="true"]').getAttribute("data-entry-id"))
      .toBe(entryId);

    await page.getByRole("button", { name: "Diff with view leaf" }).click();
    const diff = page.getByTestId("llm-diff");
    await diff.waitFor();
    const before = await api<ContextView>("context:get", { sessionId: target.id });
    const after = await api<ContextView>("context:get", { sessionId: target.id, leafId: entryId });
    const tree = await api<SessionTreeDto>("session:tree", { sessionId: target.id });
    const expected = diffContextsWithLinks(before, after, linksOf(tree));
    const changes = await diff
      .locator("[data-change]")
      .evaluateAll((nodes) =>
        nodes.map((node) => [node.getAttribute("data-change"), node.getAttribute("data-diff-entry-id")]),
      );
    expect(changes).toEqual(expected.rows.map((row) => [row.change, row.entryId ?? ""]));
    await page.screenshot({ path: path.join(shots, "02-leaf-diff.png") });
    await page.getByRole("button", { name: "Close diff" }).click();
    await page.getByRole("button", { name: "Back to the view leaf" }).click();
    await expect
      .poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id"))
      .toBe(atLeaf.leafId ?? "");
  });

  it("before/after a compaction: the summary is added (named a compaction summary, not user), what it replaces is summarized, the rest kept", async () => {
    const sessions = await api<SessionSummary[]>("library:list", {});
    const target = sessions.find((s) => s.compactionCount > 0);
    if (!target) throw new Error("no demo session with a compaction");
    const view = await openSession(target.id);
    if (!view.compactionId) throw new Error("the view leaf has no compaction in effect");
    await page.getByRole("button", { name: "Diff compaction" }).click();
    const diff = page.getByTestId("llm-diff");
    await diff.waitFor();
    expect(await diff.getAttribute("data-kind")).toBe("compaction");
    const tree = await api<SessionTreeDto>("session:tree", { sessionId: target.id });
    const compaction = tree.nodes.find((node) => node.id === view.compactionId);
    const before = await api<ContextView>("context:get", {
      sessionId: target.id,
      leafId: compaction?.parentId ?? null,
    });
    const after = await api<ContextView>("context:get", { sessionId: target.id, leafId: view.compactionId });
    const expected = diffContextsWithLinks(before, after, linksOf(tree));
    expect(expected.counts.summarized).toBeGreaterThan(0);
    const changes = await diff
      .locator("[data-change]")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-change")));
    expect(changes).toEqual(expected.rows.map((row) => row.change));
    expect(changes[0]).toBe("added");
    // The added row is the summary, named as in the message list, not by the role it is sent as.
    expect(await diff.locator('[data-change="added"] .role').first().textContent()).toBe(
      "compaction summary",
    );
    await page.screenshot({ path: path.join(shots, "03-compaction-diff.png") });
    await page.getByRole("button", { name: "Close diff" }).click();
  });
});

describe("library sidebar", () => {
  it("groups sessions by project with size, age and compactions", async () => {
    const sessions = await api<SessionSummary[]>("library:list", {});
    const projects = new Set(sessions.map((s) => s.cwd));
    expect(await page.locator(".project-group").count()).toBe(projects.size);
    const first = sessions[0];
    if (!first) throw new Error("no session");
    const text = await page.locator(`.session-groups [data-session-id="${first.id}"]`).textContent();
    expect(text).toContain(`${first.compactionCount} compaction`);
    expect(text).toMatch(/\d+(\.\d)? (B|KB|MB)/);
  });

  it("a search hit opens its session with the matching entry selected", async () => {
    const { hits } = await api<{ hits: SearchHit[] }>("library:search", { query: "parser", limit: 50 });
    const hit = hits.find((h) => h.entryId !== "");
    if (!hit) throw new Error("no search hit in the demo sessions");
    await page.locator("#library-search").fill("parser");
    const button = page.locator(
      `[data-hit-session-id="${hit.sessionId}"][data-hit-entry-id="${hit.entryId}"]`,
    );
    await button.waitFor();
    expect(await button.locator("mark").count()).toBeGreaterThan(0);
    // A demo copy and an imported file can share a title: the hit says which one it is.
    expect(hit.sessionId.endsWith("~demo")).toBe(true);
    expect(await button.locator(".badge").textContent()).toBe("demo");
    expect(await button.getAttribute("title")).toContain(`session ${hit.sessionId}`);
    await button.click();
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(hit.entryId);
    expect(new URL(page.url()).hash).toBe(
      `#/session/${encodeURIComponent(hit.sessionId)}?leaf=${hit.entryId}`,
    );
    await page.screenshot({ path: path.join(shots, "04-search-hit.png") });
    await page.locator("#library-search").fill("");
  });

  it("lists the open session's problems in file order; one about an entry selects it", async () => {
    const file = path.join(work, "problems.jsonl");
    // Line 2 p-u1, line 3 malformed, line 4 p-a1, line 5 a second root p-u1 (duplicate id).
    writeFileSync(
      file,
      `${[headerLine("problems-1", "/home/dev/problems"), userLine("p-u1", null, "first", 1), "{not json", assistantLine("p-a1", "p-u1", "answer", 2), userLine("p-u1", null, "again", 3)].join("\n")}\n`,
    );
    // An empty folder says so.
    const empty = path.join(work, "no-sessions");
    mkdirSync(empty, { recursive: true });
    await page.locator("form.import-form input").first().fill(empty);
    await page.locator("form.import-form input").first().press("Enter");
    await expect
      .poll(() => page.locator(".import-report").textContent())
      .toBe("No session files (*.jsonl) there: nothing imported.");
    // Through the import form: the report names the file and its problem count.
    await page.locator("form.import-form input").first().fill(file);
    await page.locator("form.import-form input").first().press("Enter");
    await expect
      .poll(() => page.locator(".import-report").textContent())
      .toContain(`${path.basename(file)}2 problems (listed under the session's title)`);
    const entry = page.locator('.session-groups [data-session-id="problems-1"]');
    await expect.poll(() => entry.count()).toBe(1);
    expect(await entry.textContent()).toContain("2 problems");
    await entry.click();
    const panel = page.getByTestId("session-problems");
    await panel.waitFor();
    expect(await panel.locator("summary").textContent()).toContain("2 problems");
    await panel.locator("summary").click();
    const items = panel.locator("li");
    expect(await items.allTextContents()).toEqual([
      expect.stringMatching(/^line 3: invalid JSON: .*the line is kept, and export writes it back$/),
      expect.stringMatching(/^line 5: Duplicate entry id p-u1/),
    ]);
    // The malformed line has no entry to select; the duplicate's entry does.
    expect(await items.nth(0).locator("button").count()).toBe(0);
    await items.nth(1).locator("button").click();
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe("p-u1");
    await page.screenshot({ path: path.join(shots, "05-problems.png") });
  });

  /**
   * A folder of `files` sessions (`<name>-<n>`, files session-NN.jsonl) of 120 user messages of
   * `text`: some MB each in few entries (an import selects the first; its LLM view stays quick).
   */
  function writeSessionsFolder(name: string, files: number, text: string): string {
    const folder = path.join(work, `${name}-sessions`);
    mkdirSync(folder, { recursive: true });
    for (let f = 0; f < files; f++) {
      const lines = [headerLine(`${name}-${f}`, `/home/dev/${name}`)];
      for (let i = 0; i < 120; i++) {
        lines.push(userLine(`${name}${f}-${i}`, i === 0 ? null : `${name}${f}-${i - 1}`, text, i));
      }
      writeFileSync(
        path.join(folder, `session-${String(f).padStart(2, "0")}.jsonl`),
        `${lines.join("\n")}\n`,
      );
    }
    return folder;
  }

  /** Records every text the progress line shows from now on, however briefly; call the result to read them. */
  async function recordProgressTexts(): Promise<() => Promise<string[]>> {
    const key = `__progress${Date.now()}`;
    await page.evaluate(`(() => {
      const seen = [];
      window["${key}"] = seen;
      new MutationObserver(() => {
        const text = document.querySelector(".import-progress-text")?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    return async () => (await page.evaluate(`window["${key}"]`)) as string[];
  }

  /** Some progress was shown, and each text is the import's start ("Importing <folder>…") or "Imported <file> (k/N)". */
  function expectImportProgressTexts(seen: string[], folder: string, files: number): void {
    expect(seen.length).toBeGreaterThan(0);
    const start = `Importing ${progressName(folder, false)}…`;
    const pattern = new RegExp(
      `^(Imported session-\\d\\d\\.jsonl \\(\\d/${files}\\)|Storing the last files \\(\\d/${files}\\)|Finishing the import( \\(\\d/${files}\\)|…))$`,
    );
    for (const text of seen) if (text !== start) expect(text).toMatch(pattern);
  }

  /** Clicks the progress line's Cancel as soon as the first file is stored (the line shows a count). */
  async function cancelOnceAFileIsStored(): Promise<void> {
    await page.evaluate(`(() => {
      const observer = new MutationObserver(() => {
        const button = document.querySelector(".import-progress button");
        const text = document.querySelector(".import-progress-text")?.textContent ?? "";
        if (button && /\\(\\d+\\/\\d+\\)$/.test(text)) {
          observer.disconnect();
          button.click();
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
  }

  it("shows a folder import's progress file by file, then its report", async () => {
    const files = 8;
    const folder = writeSessionsFolder("many", files, "a long question about the parser ".repeat(500));
    const progressTexts = await recordProgressTexts();
    await page.locator("form.import-form input").first().fill(folder);
    await page.locator("form.import-form input").first().press("Enter");
    await expect
      .poll(() => page.locator(".import-report").textContent(), { timeout: 30_000 })
      .toContain(`${files} imported, 0 updated`);
    expectImportProgressTexts(await progressTexts(), folder, files);
    // The progress line is gone once the report is there.
    expect(await page.locator(".import-progress").count()).toBe(0);
  });

  it("shows the progress of an import the form did not start (the menu, a file opened from the OS)", async () => {
    const files = 8;
    const folder = writeSessionsFolder("menu", files, "a question from the menu ".repeat(600));
    const progressTexts = await recordProgressTexts();
    await api("library:import", { path: folder });
    await expect.poll(() => page.locator(".import-progress").count()).toBe(0);
    expectImportProgressTexts(await progressTexts(), folder, files);
  });

  it("Cancel stops an import the form did not start too", async () => {
    const files = 12;
    const folder = writeSessionsFolder("menu-cancel", files, "a question about cancelling ".repeat(600));
    await cancelOnceAFileIsStored();
    const report = await api<ImportReport>("library:import", { path: folder });
    expect(report.cancelled).toBe(true);
    expect(report.files.length).toBeGreaterThan(0);
    expect(report.files.length).toBeLessThan(files);
  });

  it("Cancel stops a folder import once a file is stored; importing again adds the rest", async () => {
    const files = 12;
    const folder = writeSessionsFolder("cancel", files, "a question about cancelling ".repeat(600));
    await cancelOnceAFileIsStored();
    const input = page.locator("form.import-form input").first();
    await input.fill(folder);
    await input.press("Enter");
    const report = page.locator(".import-report").first();
    await expect.poll(() => report.textContent(), { timeout: 30_000 }).toContain("Import cancelled");
    const counts = (await page.locator(".import-report").allTextContents()).join(" ");
    const imported = Number(/(\d+) imported/.exec(counts)?.[1]);
    expect(imported).toBeGreaterThan(0);
    expect(imported).toBeLessThan(files);
    // Again: the rest is imported, what was stored is unchanged.
    await input.press("Enter");
    await expect
      .poll(() => page.locator(".import-report").first().textContent(), { timeout: 30_000 })
      .toContain(`${files - imported} imported, 0 updated, ${imported} unchanged`);
  });

  it("refreshes the open session while its agent file grows, and never renders message text as markup", async () => {
    const folder = path.join(work, "agent", "--home-dev-live--");
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, "live.jsonl");
    const hostile =
      'Look: <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script>\n\n**bold** `code`';
    writeFileSync(
      file,
      `${[headerLine("live-1", "/home/dev/live"), userLine("l-u1", null, hostile, 1), assistantLine("l-a1", "l-u1", "## Answer\n\n- one\n- two", 2)].join("\n")}\n`,
    );
    await api("library:import", { path: file });
    await expect.poll(() => page.locator('.session-groups [data-session-id="live-1"]').count()).toBe(1);
    await page.locator('.session-groups [data-session-id="live-1"]').click();
    const view = page.getByTestId("llm-view");
    await expect.poll(() => view.getAttribute("data-message-count")).toBe("2");
    expect(await view.locator("img, script").count()).toBe(0);
    expect(await view.locator(".message-body strong").first().textContent()).toBe("bold");
    expect(await view.textContent()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");

    appendFileSync(
      file,
      `${userLine("l-u2", "l-a1", "and one more thing", 3)}\n${assistantLine("l-a2", "l-u2", "done", 4)}\n`,
    );
    await expect.poll(() => view.getAttribute("data-message-count"), { timeout: 8000 }).toBe("4");
    await expect
      .poll(() => page.locator('.session-groups [data-session-id="live-1"]').textContent())
      .toContain("4 entries");
    await page.screenshot({ path: path.join(shots, "05-live-refresh.png") });
  });
});

describe("themes and empty states", () => {
  it("renders the light theme", async () => {
    const light = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
    await light.goto(mode.url);
    await light.getByTestId("context-bar").waitFor();
    const background = await light.evaluate("getComputedStyle(document.body).backgroundColor");
    expect(background).not.toBe("rgb(23, 25, 27)");
    await light.screenshot({ path: path.join(shots, "06-llm-view-light.png") });
    await light.close();
  });

  it("an empty library says how to fill it, in the sidebar and the LLM view panel", async () => {
    const empty = await startBrowserMode({
      dbPath: path.join(work, "empty.db"),
      rendererDir: app.rendererDir,
      seedDemo: false,
    });
    const other = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await other.goto(empty.url);
      await expect.poll(() => other.locator(".sidebar").textContent()).toContain("No sessions yet");
      await expect
        .poll(() => other.locator(".right").textContent())
        .toContain("No sessions in the library yet");
      await other.getByRole("button", { name: "Scan agent folders" }).waitFor();
      await other.screenshot({ path: path.join(shots, "07-empty.png") });
    } finally {
      await other.close();
      await empty.stop();
    }
  });
});
