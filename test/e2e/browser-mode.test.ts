// Browser mode end to end in Debian's Chromium: a fresh library opens on the demo sessions, the
// session list and the LLM view render, and the LLM view matches the contract's context:get.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBrowserMode, type BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { viewportSettled } from "../helpers/canvas-page.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { artifactsDir, launchChromium } from "../helpers/chromium.ts";
import { sharedRenderer } from "../helpers/shared-renderer.ts";

let mode: BrowserMode;
let browser: Browser;
let page: Page;
let dir: string | undefined;
let rendererDir: string;
const shots = path.join(artifactsDir(), "browser-mode");

const api = <T>(channel: string, input: unknown): Promise<T> => apiCall<T>(mode, channel, input);

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  rendererDir = await sharedRenderer();
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-e2e-"));
  // A data folder with a long path and no hyphen to break at, as a real one can be: its paths
  // (hooks) are shown in the sidebar.
  const dataDir = path.join(dir, ".local_share_a_data_folder_whose_path_is_as_long_as_a_real_one");
  mode = await startBrowserMode({ dbPath: path.join(dataDir, "library.db"), rendererDir });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await mode?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("browser mode", () => {
  it("serves React's production build, also when the renderer was built by the tests", () => {
    const assets = path.join(rendererDir, "assets");
    const code = readdirSync(assets)
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(path.join(assets, name), "utf8"))
      .join("\n");
    expect(code.length).toBeGreaterThan(0);
    // The development build's JSX runtime and its warnings are not in a production bundle.
    expect(code).not.toContain("jsxDEV");
    expect(code).not.toContain("react-dom.development");
  });

  it("refuses API calls without the token", async () => {
    const response = await fetch(`http://127.0.0.1:${mode.port}/api/library:list`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
  });

  it("opens on the bundled demo sessions and shows the LLM view of the selected session", async () => {
    await page.goto(mode.url);
    const sessions = await api<{ id: string; isDemo: boolean }[]>("library:list", {});
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    expect(sessions.every((session) => session.isDemo)).toBe(true);
    await expect.poll(() => page.locator(".session-groups [data-session-id]").count()).toBe(sessions.length);
    await page.screenshot({ path: path.join(shots, "01-first-screen.png") });

    for (const session of sessions) {
      await page.locator(`.session-groups [data-session-id="${session.id}"]`).click();
      const expected = await api<{ messages: { role: string }[]; messageEntryIds: (string | null)[] }>(
        "context:get",
        { sessionId: session.id },
      );
      const view = page.getByTestId("llm-view");
      await expect.poll(() => view.getAttribute("data-message-count")).toBe(String(expected.messages.length));
      const roles = await view.locator("[data-role]").evaluateAll((nodes) =>
        nodes.map((node) => [node.getAttribute("data-role"), node.getAttribute("data-entry-id")]),
      );
      expect(roles).toEqual(expected.messages.map((message, i) => [message.role, expected.messageEntryIds[i] ?? ""]));
    }
    await page.screenshot({ path: path.join(shots, "02-llm-view.png") });
  });

  it("reports a bad import path in the page instead of failing silently", async () => {
    await page.locator("#import-path").fill("/nonexistent/sessions.jsonl");
    await page.getByRole("button", { name: "Import" }).click();
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("/nonexistent/sessions.jsonl");
    await page.screenshot({ path: path.join(shots, "03-import-error.png") });
  });

  it("compacts the selected session with one click (offline summarizer) and updates the LLM view", async () => {
    const sessions = await api<{ id: string; title: string | null }[]>("library:list", {});
    const target = sessions.find((session) => session.title === "Session store tree") ?? sessions[0];
    if (!target) throw new Error("no demo session");
    await page.locator(`.session-groups [data-session-id="${target.id}"]`).click();
    await page.getByRole("button", { name: "Compact…" }).click();
    await page.getByTestId("compaction-plan").waitFor();
    await page.screenshot({ path: path.join(shots, "04-compaction-plan.png") });
    await page.getByRole("button", { name: "Run compaction" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/Compaction \w+ added/);
    const view = await api<{ compactionId: string; messages: { role: string }[]; leafId: string }>("context:get", {
      sessionId: target.id,
    });
    expect(view.leafId).toBe(view.compactionId);
    const first = page.getByTestId("llm-view").locator("[data-role]").first();
    await expect.poll(() => first.textContent()).toContain("<summary>");
    await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-message-count")).toBe(String(view.messages.length));
    await page.screenshot({ path: path.join(shots, "05-after-compaction.png") });
  });

  it("drags the leaf marker onto another entry and moves there with a branch summary", async () => {
    const canvas = page.getByTestId("tree-canvas");
    await page.getByRole("button", { name: "Go to leaf" }).click();
    await viewportSettled(page);
    await page.getByRole("button", { name: "Zoom Out" }).click();
    await viewportSettled(page);
    const flow = await page.locator(".tree-flow").boundingBox();
    const marker = await page.getByTestId("leaf-marker").boundingBox();
    if (!flow || !marker) throw new Error("canvas or leaf marker not on screen");
    const minimap = await page.locator(".react-flow__minimap").boundingBox();
    // A node fully on screen (clear of the minimap), preferably on another branch.
    const candidates = [
      ...(await canvas.locator('.tree-node[data-entry-id][data-active="false"]').all()),
      ...(await canvas.locator('.tree-node[data-entry-id][data-view-leaf="false"]').all()),
    ];
    let target: { id: string; x: number; y: number } | null = null;
    for (const candidate of candidates) {
      const box = await candidate.boundingBox();
      const id = await candidate.getAttribute("data-entry-id");
      if (!box || !id) continue;
      const inside = box.x > flow.x && box.y > flow.y && box.x + box.width < flow.x + flow.width && box.y + box.height < flow.y + flow.height;
      const underMinimap =
        minimap !== null && box.x + box.width > minimap.x && box.y + box.height > minimap.y;
      if (inside && !underMinimap) {
        target = { id, x: box.x + box.width / 2, y: box.y + box.height / 2 };
        break;
      }
    }
    if (!target) throw new Error("no entry on screen to drag the leaf onto");
    const targetId = target.id;
    await page.mouse.move(marker.x + marker.width / 2, marker.y + marker.height / 2);
    await page.mouse.down();
    await page.mouse.move(marker.x + 20, marker.y + 20, { steps: 3 });
    await page.mouse.move(target.x, target.y, { steps: 8 });
    // While dragging: the drop target and what a summary would cover are marked.
    await expect.poll(() => canvas.locator('[data-drop-target="true"]').getAttribute("data-entry-id")).toBe(targetId);
    await expect.poll(() => canvas.locator('[data-will-summarize="true"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(shots, "06-drag-leaf.png") });
    await page.mouse.up();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/with branch summary \w+/);

    const sessions = await api<{ id: string; title: string | null }[]>("library:list", {});
    const session = sessions.find((s) => s.title === "Session store tree") ?? sessions[0];
    type Entry = { id: string; type: string; parentId: string | null; message?: { role: string } };
    const detail = await api<{ entries: { entry: Entry }[] }>("session:get", { sessionId: session?.id });
    const entries = detail.entries.map((stored) => stored.entry);
    const summary = entries.filter((entry) => entry.type === "branch_summary").at(-1);
    const targetEntry = entries.find((entry) => entry.id === targetId);
    // SPEC §2.8: a user (or custom) message target resumes at its parent, anything else at itself.
    const resumesAtParent = targetEntry?.type === "custom_message" || targetEntry?.message?.role === "user";
    expect(summary?.parentId).toBe(resumesAtParent ? targetEntry?.parentId : targetId);
    await page.getByRole("button", { name: "Go to leaf" }).click();
    const node = canvas.locator(`.tree-node[data-entry-id="${summary?.id}"]`);
    await expect.poll(() => node.getAttribute("data-view-leaf")).toBe("true");
    expect(await node.getAttribute("data-kind")).toBe("branch_summary");
    await page.screenshot({ path: path.join(shots, "06-branch-summary.png") });
  });

  it("shows which prompt template files are in effect and which summarizer runs", async () => {
    await page.getByText("Settings and prompts").click();
    await page.getByTestId("settings-panel").waitFor();
    const prompts = await api<{ name: string; source: string }[]>("settings:prompts", {});
    expect(await page.locator("[data-prompt]").count()).toBe(prompts.length);
    expect(prompts.map((p) => p.name)).toContain("compaction-summary-context");
    await page.getByRole("button", { name: "Test connection" }).click();
    await expect.poll(() => page.getByTestId("settings-panel").getByRole("status").textContent()).toContain("offline");
    await page.screenshot({ path: path.join(shots, "07-settings.png") });
    // The hooks folder's long path wraps: the sidebar never scrolls sideways.
    expect(await page.getByTestId("settings-panel").locator("code").textContent()).toContain(".local_share_a_data_folder");
    const sidebar = await page
      .locator("aside.sidebar")
      .evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(sidebar.scrollWidth).toBeLessThanOrEqual(sidebar.clientWidth);
  });

  it("edits settings in the panel, and shows the main side's reason when a value is refused", async () => {
    type Saved = { compaction: { keepRecentTokens: number; enabled: boolean }; model: { id: string; baseUrl: string } | null };
    const panel = page.getByTestId("settings-form");
    const keep = panel.locator("#setting-compaction-keepRecentTokens");
    await keep.fill("12345");
    await keep.press("Enter");
    await expect.poll(async () => (await api<Saved>("settings:get", {})).compaction.keepRecentTokens).toBe(12345);
    // The page has the save's answer too (the settings answer first; the answer sets the field
    // and the value a next save names as expected): only then is "-5" typed.
    await expect.poll(() => keep.getAttribute("aria-busy")).toBe("false");
    await keep.fill("-5");
    await keep.press("Enter");
    await expect.poll(() => panel.locator('[data-setting="compaction.keepRecentTokens"] [role="alert"]').textContent()).toMatch(
      /keepRecentTokens/,
    );
    expect((await api<Saved>("settings:get", {})).compaction.keepRecentTokens).toBe(12345);
    await panel.getByLabel("Automatic compaction").uncheck();
    await expect.poll(async () => (await api<Saved>("settings:get", {})).compaction.enabled).toBe(false);
    // Checked again once the page has the answer: before, it would name the old value as expected
    // and be refused as changed elsewhere, leaving compaction off.
    await expect.poll(() => panel.getByLabel("Automatic compaction").getAttribute("aria-busy")).toBe("false");
    await panel.getByLabel("Automatic compaction").check();
    await expect.poll(async () => (await api<Saved>("settings:get", {})).compaction.enabled).toBe(true);

    await panel.getByLabel("Base URL").fill("not a url");
    await panel.getByLabel("Model id").fill("llama3.1");
    await panel.getByRole("button", { name: "Save model" }).click();
    await expect.poll(() => panel.locator(".model-form [role='alert']").textContent()).toMatch(/baseUrl/);
    await panel.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
    await panel.getByRole("button", { name: "Save model" }).click();
    await expect.poll(async () => (await api<Saved>("settings:get", {})).model?.id).toBe("llama3.1");
    await page.screenshot({ path: path.join(shots, "08-settings-form.png") });
    await panel.getByRole("button", { name: "Use the offline summarizer" }).click();
    await expect.poll(async () => (await api<Saved>("settings:get", {})).model).toBeNull();
    await api("settings:set", { key: "compaction.keepRecentTokens", value: 20000 });
  });

  it("sets the agent folders in the panel; Scan agent folders then imports from them", async () => {
    const agent = path.join(dir as string, "my-agent-sessions");
    mkdirSync(path.join(agent, "project"), { recursive: true });
    copyFileSync(fixturePath("tree-00.jsonl"), path.join(agent, "project", "found.jsonl"));
    const folders = page.getByTestId("agent-folders");
    const box = folders.getByLabel("Agent session folders");
    await expect.poll(() => box.inputValue()).toContain(".pi/agent/sessions");
    const missing = path.join(dir as string, "not-yet");
    await box.fill(`${agent}\n\n${missing}\n`);
    await folders.getByRole("button", { name: "Save folders" }).click();
    await expect.poll(() => folders.getByRole("status").textContent()).toBe("Folders saved.");
    expect(await api("library:get-folders", {})).toEqual({ folders: [agent, missing], defaults: false, missing: [missing] });
    expect(await folders.getByTestId("folders-missing").textContent()).toBe(`Not there (yet): ${missing}`);
    await page.getByRole("button", { name: "Scan agent folders" }).click();
    const sources = async () => (await api<{ sourcePath: string | null }[]>("library:list", {})).map((s) => s.sourcePath);
    await expect.poll(sources).toContain(path.join(agent, "project", "found.jsonl"));
    await folders.getByRole("button", { name: "Use the defaults" }).click();
    await expect.poll(() => folders.getByRole("status").textContent()).toBe("Back to the default folders.");
    expect(await api<{ defaults: boolean }>("library:get-folders", {})).toMatchObject({ defaults: true });
  });

  it("at the desktop app's minimum window size (900×600) the tree keeps a canvas and the session bar's buttons do not overlap", async () => {
    const small = await browser.newPage({ viewport: { width: 900, height: 600 } });
    try {
      await small.goto(mode.url);
      const canvas = small.locator(".tree-flow");
      await canvas.waitFor();
      const flow = await canvas.boundingBox();
      expect(flow?.height ?? 0).toBeGreaterThanOrEqual(200);
      expect(flow?.width ?? 0).toBeGreaterThanOrEqual(250);
      const boxes = await small
        .locator(".compaction-panel > .row button")
        .evaluateAll((buttons) =>
          buttons.map((button) => {
            const r = button.getBoundingClientRect();
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          }),
        );
      expect(boxes.length).toBeGreaterThanOrEqual(3);
      for (const [i, a] of boxes.entries()) {
        for (const b of boxes.slice(i + 1)) {
          const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
          expect(apart).toBe(true);
        }
      }
      await small.screenshot({ path: path.join(shots, "09-minimum-window.png") });
    } finally {
      await small.close();
    }
  });
});
