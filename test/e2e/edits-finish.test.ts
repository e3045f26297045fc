// Issue 6 acceptance, the rest, in Debian's Chromium (browser mode, bundled demo data, the local
// fake OpenAI-compatible server): rename in place with Undo/Redo titles and disabled states,
// the export dialog (without archived branches, a download), the live-folder warning with
// "Export anyway", deleting a session from the sidebar and undoing it (notice and Ctrl+Z), and
// "Continue from here" after an edit as a new branch, and undoing that answered edit. Screenshots:
// test-artifacts/edits-finish/.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { parseSessionText } from "../../core/session/jsonl.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, pathTo, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer, RequestMatcher } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "edits-finish");
const KEY_ENV = "CANOPY_E2E_FINISH_KEY";
const PARSER_TITLE = "Refactor the parser (omp dialect copy of tree-01)";
const STORE_TITLE = "Session store tree";
const EDITED = "E2E-CONTINUE: please answer this edited question.";
const REPLY = "E2E-CONTINUE-REPLY: a streaming parser it is.";
const isChat: RequestMatcher = (body) => !("max_tokens" in body);

let app: E2eChatApp;
let mode: BrowserMode;
let page: Page;
let fake: FakeServer;
let work: string;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);
const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });
const tree = (sessionId: string) => api<SessionTreeDto>("session:tree", { sessionId });
/** The tree without its undo/redo history (what a delete and its undo change on purpose). */
async function treeShape(sessionId: string): Promise<Omit<SessionTreeDto, "history">> {
  const { history: _history, ...shape } = await tree(sessionId);
  return shape;
}
const llmView = () => page.getByTestId("llm-view");
const listed = () => api<SessionSummary[]>("library:list", {});

async function byTitle(title: string): Promise<SessionSummary> {
  const found = (await listed()).find((session) => session.title === title);
  if (!found) throw new Error(`no demo session titled "${title}"`);
  return found;
}

function openSession(sessionId: string, leafId?: string): Promise<void> {
  return openSessionShowingAll(page, mode, sessionId, leafId);
}

async function renderedEntryIds(): Promise<string[]> {
  return page
    .getByTestId("tree-canvas")
    .locator(".tree-node[data-entry-id]")
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
}

const undoButton = () => page.getByTestId("edit-actions").getByRole("button", { name: "Undo", exact: true });
const redoButton = () => page.getByTestId("edit-actions").getByRole("button", { name: "Redo", exact: true });
const entriesOf = (text: string): SessionEntry[] => parseSessionText(text).entries.map((e) => e.entry);

/** Clicks somewhere neutral so keyboard shortcuts are not taken for typing. */
async function focusBody(): Promise<void> {
  await page.locator("body").click({ position: { x: 5, y: 5 } });
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp(
    "edits-finish",
    { server: { defaultText: "## Goal\nUnused summary." }, key: { env: KEY_ENV, value: "sk-e2e-finish" } },
    { page: { acceptDownloads: true } },
  );
  ({ mode, page, fake, work } = app);
  // Building the renderer and starting Chromium is slow on a busy machine.
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

describe("finishing issue 6 in the app", () => {
  it("renames the session in place; the library shows it; Undo/Redo say what they do and disable when empty", async () => {
    const session = await byTitle(PARSER_TITLE);
    await openSession(session.id);
    await poll(() => undoButton().isDisabled()).toBe(true);
    expect(await undoButton().getAttribute("title")).toBe("Nothing to undo.");
    expect(await redoButton().isDisabled()).toBe(true);

    await page.getByTestId("session-header").getByRole("button", { name: "Rename" }).click();
    await page.getByLabel("Session title").fill("E2E renamed session");
    await shot("01-rename-form");
    await page.getByLabel("Session title").press("Enter");
    await poll(async () => (await listed()).find((s) => s.id === session.id)?.title).toBe(
      "E2E renamed session",
    );
    await poll(() => page.locator(`.session-groups [data-session-id="${session.id}"] .session-title`).textContent()).toBe(
      "E2E renamed session",
    );
    await poll(() => page.getByTestId("session-header").locator("h2").textContent()).toBe(
      "E2E renamed session",
    );
    await poll(() => undoButton().getAttribute("title")).toBe("Undo rename (Ctrl+Z)");
    // The title shows once the tree is back; the rename ends (Undo enabled) just after.
    await poll(() => undoButton().isDisabled()).toBe(false);
    await shot("01-renamed");

    // F2 renames too; an empty title goes back to the file's own. Escape cancels a double-click rename.
    await page.getByTestId("session-header").locator("h2").dblclick();
    await page.getByLabel("Session title").press("Escape");
    await poll(() => page.getByLabel("Session title").count()).toBe(0);
    await focusBody();
    await page.keyboard.press("F2");
    await page.getByLabel("Session title").fill("");
    await page.getByLabel("Session title").press("Enter");
    await poll(async () => (await listed()).find((s) => s.id === session.id)?.title).toBe(PARSER_TITLE);
    // The rename has finished in the page too (the library answers first; an edit in flight
    // ignores Ctrl+Z): its outcome line shows when it has.
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Cleared the session's title.");

    // Ctrl+Z: back to the rename; again: back to the original; Redo says what it re-applies.
    await focusBody();
    await page.keyboard.press("Control+z");
    await poll(async () => (await listed()).find((s) => s.id === session.id)?.title).toBe(
      "E2E renamed session",
    );
    await poll(() => page.locator(`.session-groups [data-session-id="${session.id}"] .session-title`).textContent()).toBe(
      "E2E renamed session",
    );
    // The first undo has finished (an edit in flight ignores the keys) and the next one is named.
    await poll(() => undoButton().getAttribute("title")).toBe("Undo rename (Ctrl+Z)");
    await poll(() => undoButton().isDisabled()).toBe(false);
    await page.keyboard.press("Control+z");
    await poll(async () => (await listed()).find((s) => s.id === session.id)?.title).toBe(PARSER_TITLE);
    await poll(() => undoButton().isDisabled()).toBe(true);
    await poll(() => redoButton().getAttribute("title")).toBe("Redo rename (Ctrl+Shift+Z)");
    await poll(() => redoButton().isDisabled()).toBe(false);
    await shot("01-undo-disabled-redo-titled");
  });

  it("exports from the dialog without archived branches (downloaded text has none of them), Escape closes it", async () => {
    const session = await byTitle(PARSER_TITLE);
    const current = await tree(session.id);
    const onPath = new Set(pathTo(current.nodes, current.viewLeafId).map((node) => node.id));
    const side = current.nodes.find(
      (n) => !onPath.has(n.id) && n.parentId !== null && onPath.has(n.parentId),
    );
    if (!side) throw new Error("the demo session has no side branch");
    await api("edits:archive", { sessionId: session.id, entryId: side.id });
    const archived = (await tree(session.id)).nodes.filter((node) => node.archived).map((node) => node.id);
    expect(archived.length).toBeGreaterThan(0);
    await openSession(session.id);

    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);

    await page.getByRole("button", { name: "Export…" }).click();
    expect(await dialog.getByLabel(/Resume at the view leaf/).isChecked()).toBe(true);
    await dialog.getByLabel("Without archived branches").check();
    await shot("02-export-dialog");
    const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
    const text = readFileSync(await download.path(), "utf8");
    const ids = entriesOf(text).map((entry) => entry.id);
    for (const id of archived) expect(ids).not.toContain(id);
    const marker = entriesOf(text).at(-1) as SessionEntry & { customType?: string };
    expect(marker).toMatchObject({
      type: "custom",
      customType: "canopy.resume",
      parentId: current.viewLeafId,
    });
    await poll(() => dialog.count()).toBe(0);
    await poll(() => page.getByTestId("notice").textContent()).toContain(
      "with a resume marker at the view leaf",
    );
    await shot("02-exported");

    // The same export with the branches in has them all (the option is what left them out).
    await page.getByRole("button", { name: "Export…" }).click();
    await dialog.getByLabel("Without archived branches").uncheck();
    const [full] = await Promise.all([
      page.waitForEvent("download"),
      dialog.getByRole("button", { name: "Download" }).click(),
    ]);
    const fullIds = entriesOf(readFileSync(await full.path(), "utf8")).map((entry) => entry.id);
    expect(fullIds).toEqual(expect.arrayContaining(archived));
    await api("edits:undo", { sessionId: session.id });
  });

  it("warns before exporting into the folder of a file its agent is still writing, and re-imports its new lines", async () => {
    const folder = path.join(work, "agent-sessions");
    mkdirSync(folder);
    const source = path.join(folder, "live.jsonl");
    const line = (id: string, parentId: string | null, role: string, text: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-03-01T10:00:00.000Z",
        message: {
          role,
          content: [{ type: "text", text }],
          timestamp: 1,
          ...(role === "assistant" ? { model: "m", usage: { input: 1, output: 1 }, stopReason: "stop" } : {}),
        },
      });
    writeFileSync(
      source,
      `${[
        JSON.stringify({
          type: "session",
          version: 3,
          id: "e2e-live",
          timestamp: "2026-03-01T10:00:00.000Z",
          cwd: "/tmp/e2e-live",
        }),
        line("l1", null, "user", "start"),
        line("l2", "l1", "assistant", "working"),
      ].join("\n")}\n`,
    );
    await api("library:import", { path: source });
    await openSession("e2e-live");
    // The agent writes one more line.
    appendFileSync(source, `${line("l3", "l2", "user", "agent wrote this just now")}\n`);
    const before = readFileSync(source);

    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    const out = path.join(folder, "copy.jsonl");
    await dialog.getByLabel(/Save to path/).fill(out);
    await dialog.getByLabel(/Save to path/).press("Enter");
    const warning = page.getByTestId("export-warning");
    await poll(() => warning.textContent()).toContain("its agent is still writing it");
    expect(await warning.textContent()).toContain("1 new entry re-imported");
    // The new line is in the library already; nothing was written yet.
    await poll(async () => (await tree("e2e-live")).nodes.map((node) => node.id)).toContain("l3");
    await shot("03-live-folder-warning");
    expect(() => readFileSync(out)).toThrow();

    await warning.getByRole("button", { name: "Export anyway" }).click();
    await poll(() => dialog.count()).toBe(0);
    // The page's tree has the new line before Fit View fits it (the library had it first; an
    // entry off the fitted view is not drawn).
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-total-count")).toBe("3");
    await page.getByRole("button", { name: "Fit View" }).click();
    await poll(renderedEntryIds).toContain("l3");
    await poll(() => page.getByTestId("notice").textContent()).toContain(`as ${out}`);
    expect(entriesOf(readFileSync(out, "utf8")).map((entry) => entry.id)).toEqual([
      "l1",
      "l2",
      "l3",
      expect.any(String),
    ]);
    expect(readFileSync(source).equals(before)).toBe(true);
    await shot("03-exported-anyway");
  });

  it("deletes a session from the sidebar (asked first, naming it); the notice's Undo and Ctrl+Z bring it back whole", async () => {
    const session = await byTitle(STORE_TITLE);
    await openSession(session.id);
    const before = await treeShape(session.id);
    const deleteButton = page.getByRole("button", { name: `Delete “${STORE_TITLE}” from the library` });

    await deleteButton.click();
    const confirm = page.getByRole("alertdialog", { name: "Delete this session from the library?" });
    await poll(() => confirm.textContent()).toContain(`Delete “${STORE_TITLE}” from the library?`);
    await shot("04-delete-asks");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await listed()).map((s) => s.id)).toContain(session.id);

    await deleteButton.click();
    await confirm.getByRole("button", { name: "Delete" }).click();
    await poll(async () => (await listed()).map((s) => s.id)).not.toContain(session.id);
    await poll(() => page.locator(`.session-groups [data-session-id="${session.id}"]`).count()).toBe(0);
    await poll(() => page.getByTestId("notice").textContent()).toContain(
      `Deleted “${STORE_TITLE}” from the library`,
    );
    const { hits } = await api<{ hits: { sessionId: string }[] }>("library:search", { query: "session", limit: 500 });
    expect(hits.some((hit) => hit.sessionId === session.id)).toBe(false);
    await poll(() => undoButton().getAttribute("title")).toBe(`Undo delete of “${STORE_TITLE}” (Ctrl+Z)`);
    await shot("04-deleted-notice");

    await page.getByRole("button", { name: "Undo the delete" }).click();
    await poll(async () => (await listed()).map((s) => s.id)).toContain(session.id);
    await poll(() => page.locator(`.session-groups [data-session-id="${session.id}"]`).getAttribute("aria-current")).toBe(
      "true",
    );
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    expect(await treeShape(session.id)).toEqual(before);
    await shot("04-restored");

    // Again, undone with Ctrl+Z this time.
    await deleteButton.click();
    await confirm.getByRole("button", { name: "Delete" }).click();
    await poll(() => page.locator(`.session-groups [data-session-id="${session.id}"]`).count()).toBe(0);
    // The delete has finished in the page (an edit in flight ignores Ctrl+Z).
    await poll(() => undoButton().getAttribute("title")).toBe(`Undo delete of “${STORE_TITLE}” (Ctrl+Z)`);
    await poll(() => undoButton().isDisabled()).toBe(false);
    await focusBody();
    await page.keyboard.press("Control+z");
    await poll(() => page.locator(`.session-groups [data-session-id="${session.id}"]`).count()).toBe(1);
    expect(await treeShape(session.id)).toEqual(before);
    await poll(() => llmView().getAttribute("data-leaf-id")).toBe(before.viewLeafId ?? "");
  });

  it("continues from an edited user message: the model's reply appears on the canvas and in the LLM view", async () => {
    await api("settings:set", {
      key: "model",
      value: {
        baseUrl: fake.baseUrl,
        id: "fake-model",
        contextWindow: 1_000_000,
        apiKeyEnv: KEY_ENV,
        stream: true,
      },
    });
    const session = await byTitle(PARSER_TITLE);
    const current = await tree(session.id);
    const users = pathTo(current.nodes, current.viewLeafId).filter(
      (node) => node.kind === "user" && node.parentId,
    );
    const user = users.at(-1);
    if (!user) throw new Error("no user message on the active path");
    await openSession(session.id, user.id);
    await page.getByRole("button", { name: "Edit as new branch" }).click();
    await page.getByLabel("Edited message").fill(EDITED);
    await page.getByRole("button", { name: "Save as new branch" }).click();
    await poll(async () => (await tree(session.id)).nodes.length).toBe(current.nodes.length + 1);
    const edited = (await tree(session.id)).viewLeafId as string;
    expect(edited).not.toBe(current.viewLeafId);

    // The rest of the reply comes once its start has been seen (200 ms later raced a loaded machine).
    let releaseRest = () => {};
    const holdRest = new Promise<void>((resolve) => {
      releaseRest = resolve;
    });
    fake.enqueue({
      type: "reply",
      chunks: [REPLY.slice(0, 20), REPLY.slice(20)],
      chunkDelayMs: 200,
      holdRest,
      match: isChat,
    });
    const continueButton = page.getByRole("button", { name: "Continue from here" });
    await continueButton.click();
    await poll(() => page.getByTestId("chat-reply").textContent()).toContain(REPLY.slice(0, 20));
    releaseRest();
    await poll(async () => (await tree(session.id)).nodes.length).toBe(current.nodes.length + 2);
    const after = await tree(session.id);
    const reply = after.nodes.find((node) => node.parentId === edited);
    expect(reply).toMatchObject({ kind: "assistant" });
    expect(after.viewLeafId).toBe(reply?.id);
    // No second user message: the edited one is the request's last, once.
    const request = fake.requests.filter((r) => isChat(r.body as Record<string, unknown>)).at(-1);
    const sent =
      (request?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
    expect(sent.at(-1)).toEqual({ role: "user", content: EDITED });
    expect(sent.filter((m) => m.content === EDITED)).toHaveLength(1);

    // The page has the reply in its tree before Fit View fits it (the library has it first; an
    // entry off the fitted view is not drawn).
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-total-count")).toBe(
      String(after.nodes.length),
    );
    await page.getByRole("button", { name: "Fit View" }).click();
    await poll(renderedEntryIds).toContain(reply?.id);
    const expected = await api<ContextView>("context:get", { sessionId: session.id });
    await poll(() => llmView().getAttribute("data-leaf-id")).toBe(reply?.id);
    await poll(() => llmView().getAttribute("data-message-count")).toBe(String(expected.messages.length));
    const last = llmView().locator("[data-role]").last();
    expect(await last.getAttribute("data-role")).toBe("assistant");
    expect(await last.getAttribute("data-entry-id")).toBe(reply?.id);
    expect(await last.textContent()).toContain(REPLY);
    await shot("05-continued-from-here");

    // Undo now: the edit is the newest undo step. The reply below it is kept, so the edited
    // branch is hidden (archived) rather than removed, and the notice says so; Redo shows it again.
    await poll(() => undoButton().getAttribute("title")).toBe("Undo edit as new branch (Ctrl+Z)");
    await undoButton().click();
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Undid edit as new branch.");
    const notice = await page.getByTestId("job-message").textContent();
    expect(notice).toContain(`has entry ${reply?.id} (a reply or summary) below it`);
    expect(notice).toContain("its branch is archived instead");
    const undone = await tree(session.id);
    expect(undone.viewLeafId).toBe(current.viewLeafId);
    expect(undone.nodes.filter((node) => node.archived).map((node) => node.id)).toEqual(
      expect.arrayContaining([edited, reply?.id]),
    );
    expect(undone.nodes).toHaveLength(after.nodes.length);
    await poll(renderedEntryIds).not.toContain(reply?.id);
    await shot("06-undo-hides-the-answered-edit");
    await redoButton().click();
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Redid edit as new branch.");
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(reply?.id);
    await poll(renderedEntryIds).toContain(reply?.id);
  });
});
