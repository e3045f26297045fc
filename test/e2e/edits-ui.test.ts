// Issue 6 acceptance in Debian's Chromium (browser mode, bundled demo data): edit a user message
// as a new branch, archive a branch and restore it, undo and redo a compaction, fork to a new
// session — each checked on the canvas and in the LLM view. Screenshots: test-artifacts/edits/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionSummary, SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, pathTo, poll, textOf, viewportSettled } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const shots = path.join(artifactsDir(), "edits");
const EDITED = "E2E-EDITED: please use a streaming parser instead.";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);
const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });
const tree = (sessionId: string) => api<SessionTreeDto>("session:tree", { sessionId });
const llmView = () => page.getByTestId("llm-view");

/** Opens a session (optionally with an entry selected), with every entry shown. */
function openSession(sessionId: string, leafId?: string): Promise<void> {
  return openSessionShowingAll(page, mode, sessionId, leafId);
}

async function fitView(): Promise<void> {
  await page.getByRole("button", { name: "Fit View" }).click();
  await viewportSettled(page);
}

/**
 * The page's own edit has ended (the library answers first): Undo names it, as the refreshed tree
 * says, and is enabled again. Fit View before that fits the tree as it was: an entry the refresh
 * adds or shows may land off the fitted view, and is not drawn.
 */
async function pageEditDone(undoTitle: string): Promise<void> {
  const undo = page.getByTestId("edit-actions").getByRole("button", { name: "Undo", exact: true });
  await poll(() => undo.getAttribute("title")).toBe(`${undoTitle} (Ctrl+Z)`);
  await poll(() => undo.isDisabled()).toBe(false);
}

async function renderedEntryIds(): Promise<string[]> {
  return page
    .getByTestId("tree-canvas")
    .locator(".tree-node[data-entry-id]")
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
}

/** Waits until the LLM view shows `leafId` with the message count context:get gives for it. */
async function expectLlmViewAt(sessionId: string, leafId: string | null): Promise<ContextView> {
  const expected = await api<ContextView>("context:get", { sessionId, leafId });
  await poll(() => llmView().getAttribute("data-leaf-id")).toBe(leafId ?? "");
  await poll(() => llmView().getAttribute("data-message-count")).toBe(String(expected.messages.length));
  return expected;
}

async function sessions(): Promise<SessionSummary[]> {
  return api<SessionSummary[]>("library:list", {});
}

/** A demo session whose active path holds a compaction. */
async function sessionWithCompaction(): Promise<{ session: SessionSummary; compaction: TreeNodeDto }> {
  for (const session of await sessions()) {
    const current = await tree(session.id);
    const compaction = pathTo(current.nodes, current.viewLeafId).find((node) => node.type === "compaction");
    if (compaction) return { session, compaction };
  }
  throw new Error("no demo session with a compaction on its active path");
}

/** A demo session without a compaction on its active path, with a user message below the root. */
async function sessionForEditing(): Promise<{ session: SessionSummary; user: TreeNodeDto }> {
  const { session: compacted } = await sessionWithCompaction();
  for (const session of await sessions()) {
    if (session.id === compacted.id) continue;
    const current = await tree(session.id);
    const users = pathTo(current.nodes, current.viewLeafId).filter(
      (node) => node.kind === "user" && node.parentId !== null,
    );
    const user = users[users.length - 1];
    if (user) return { session, user };
  }
  throw new Error("no demo session with a user message to edit");
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eApp("edits", { page: { colorScheme: "dark" } });
  ({ mode, page } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe("editing sessions safely (issue 6)", () => {
  let editedSessionId = "";
  let originalUser: TreeNodeDto;
  let editedId = "";

  it("1. edits a user message as a new branch: a sibling on the canvas, the LLM view ends with it", async () => {
    const { session, user } = await sessionForEditing();
    editedSessionId = session.id;
    originalUser = user;
    const before = await tree(session.id);
    await openSession(session.id, user.id);
    await page.getByRole("button", { name: "Edit as new branch" }).click();
    const textarea = page.getByLabel("Edited message");
    expect((await textarea.inputValue()).length).toBeGreaterThan(0);
    await textarea.fill(EDITED);
    await shot("01-edit-message-form");
    await page.getByRole("button", { name: "Save as new branch" }).click();

    await poll(async () => (await tree(session.id)).nodes.length).toBe(before.nodes.length + 1);
    const after = await tree(session.id);
    const added = after.nodes.find((node) => !before.nodes.some((old) => old.id === node.id));
    if (!added) throw new Error("no new entry");
    editedId = added.id;
    expect(added.parentId).toBe(user.parentId);
    expect(added.kind).toBe("user");
    expect(after.viewLeafId).toBe(added.id);
    // The original stays, with its whole branch.
    expect(after.nodes.filter((node) => before.nodes.some((old) => old.id === node.id)).length).toBe(
      before.nodes.length,
    );

    await pageEditDone("Undo edit as new branch");
    await fitView();
    await poll(renderedEntryIds).toContain(added.id);
    expect(await renderedEntryIds()).toContain(user.id);
    await expectLlmViewAt(session.id, added.id);
    const last = llmView().locator("[data-role]").last();
    expect(await last.getAttribute("data-entry-id")).toBe(added.id);
    expect(await last.textContent()).toContain(EDITED);
    await shot("01-edited-as-branch");
  });

  it("2. archives a branch (hidden from the canvas, shown by the filter) and restores it", async () => {
    const sessionId = editedSessionId;
    const before = await tree(sessionId);
    const branch = new Set<string>();
    for (const node of before.nodes) {
      if (node.id === originalUser.id || (node.parentId && branch.has(node.parentId))) branch.add(node.id);
    }
    expect(branch.size).toBeGreaterThan(0);

    await openSession(sessionId, originalUser.id);
    await page.getByRole("button", { name: "Archive branch" }).click();
    await poll(async () => (await tree(sessionId)).nodes.filter((n) => n.archived).length).toBe(branch.size);
    await pageEditDone("Undo archive");
    await fitView();
    await poll(async () => (await renderedEntryIds()).filter((id) => branch.has(id)).length).toBe(0);
    expect(await renderedEntryIds()).toContain(editedId);
    await expectLlmViewAt(sessionId, editedId);
    await shot("02-archived-hidden");

    // The filter shows the archived branch, dashed.
    await page.getByLabel("Show archived").check();
    await fitView();
    await poll(renderedEntryIds).toContain(originalUser.id);
    expect(
      await page.locator(`.tree-node[data-entry-id="${originalUser.id}"]`).getAttribute("data-archived"),
    ).toBe("true");
    await shot("02-archived-shown");

    // One click restores it.
    await page.locator(`.tree-node[data-entry-id="${originalUser.id}"]`).click();
    await poll(() => llmView().getAttribute("data-leaf-id")).toBe(originalUser.id);
    await page.getByRole("button", { name: "Restore branch" }).click();
    await poll(async () => (await tree(sessionId)).nodes.filter((n) => n.archived).length).toBe(0);
    await pageEditDone("Undo branch restore");
    await page.getByLabel("Show archived").uncheck();
    await fitView();
    await poll(async () => (await renderedEntryIds()).filter((id) => branch.has(id)).length).toBeGreaterThan(
      0,
    );
    expect(await renderedEntryIds()).toContain(originalUser.id);
    await shot("02-restored");

    // Archiving the branch that holds the view leaf asks first; Cancel changes nothing.
    await page.locator(`.tree-node[data-entry-id="${editedId}"]`).click();
    await poll(() => llmView().getAttribute("data-leaf-id")).toBe(editedId);
    await page.getByRole("button", { name: "Archive branch" }).click();
    const dialog = page.getByRole("alertdialog");
    await dialog.waitFor();
    await shot("02-archive-asks-first");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await tree(sessionId)).nodes.filter((n) => n.archived).length).toBe(0);
  });

  it("3. undoes and redoes a compaction: the view leaf moves before it and back", async () => {
    const { session, compaction } = await sessionWithCompaction();
    const before = await tree(session.id);
    const leaf = before.viewLeafId;
    const parentId = compaction.parentId;
    await openSession(session.id, compaction.id);
    const compacted = await api<ContextView>("context:get", { sessionId: session.id, leafId: leaf });

    await page.getByRole("button", { name: "Undo compaction" }).click();
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(parentId);
    // Undo (Ctrl+Z) takes it back; Redo has nothing to redo yet.
    await poll(() => textOf(page.getByTestId("job-message"))).toBe(
      `Moved the view leaf before ${compaction.id} (to ${parentId}); Undo moves it back.`,
    );
    const full = await expectLlmViewAt(session.id, parentId);
    expect(full.messages.length).not.toBe(compacted.messages.length);
    expect(full.messageEntryIds).not.toContain(compaction.id);
    await fitView();
    expect(await page.locator(`.tree-node[data-entry-id="${parentId}"]`).getAttribute("data-view-leaf")).toBe(
      "true",
    );
    // The compaction stays in the tree as its own branch.
    expect((await tree(session.id)).nodes.some((node) => node.id === compaction.id)).toBe(true);
    await shot("03-compaction-undone");

    // Ctrl+Z undoes the undo (back to the compacted leaf), Ctrl+Shift+Z redoes it.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("Control+z");
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(leaf);
    await expectLlmViewAt(session.id, leaf);
    await shot("03-compaction-back");
    await page.keyboard.press("Control+Shift+z");
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(parentId);
    await expectLlmViewAt(session.id, parentId);
    await page.getByRole("button", { name: "Undo", exact: true }).click();
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(leaf);
    await expectLlmViewAt(session.id, leaf);
    await shot("03-compaction-redone");

    // Done again, then the view leaf moved elsewhere: undo leaves it where the user put it, and says so.
    await page.getByRole("button", { name: "Redo", exact: true }).click();
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(parentId);
    const elsewhere = pathTo(before.nodes, parentId).find((node) => node.kind === "user")?.id as string;
    await api("session:set-view-leaf", { sessionId: session.id, leafId: elsewhere });
    await expectLlmViewAt(session.id, elsewhere);
    await page.getByRole("button", { name: "Undo", exact: true }).click();
    await poll(() => textOf(page.getByTestId("job-message"))).toBe(
      `Undid moving the leaf before the summary. The view leaf stays at ${elsewhere}, where it was moved since.`,
    );
    expect((await tree(session.id)).viewLeafId).toBe(elsewhere);
    await api("session:set-view-leaf", { sessionId: session.id, leafId: leaf });
    await expectLlmViewAt(session.id, leaf);
  });

  it("4. sets and clears a label from the canvas (D15) without moving the view leaf", async () => {
    const sessionId = editedSessionId;
    const before = await tree(sessionId);
    await openSession(sessionId, originalUser.id);
    await page.getByLabel("Label", { exact: true }).fill("e2e-label");
    await page.getByRole("button", { name: "Set label" }).click();
    await poll(
      async () => (await tree(sessionId)).nodes.find((node) => node.id === originalUser.id)?.label,
    ).toBe("e2e-label");
    expect((await tree(sessionId)).viewLeafId).toBe(before.viewLeafId);
    await poll(() =>
      page.locator(`.tree-node[data-entry-id="${originalUser.id}"]`).getAttribute("aria-label"),
    ).toContain("[e2e-label]");
    await shot("05-labelled");
    await page.getByRole("button", { name: "Clear label" }).click();
    await poll(
      async () => (await tree(sessionId)).nodes.find((node) => node.id === originalUser.id)?.label ?? "",
    ).toBe("");
  });

  it("5. forks to a new session: it appears in the library and opens", async () => {
    const { session } = await sessionWithCompaction();
    const source = await tree(session.id);
    const target = pathTo(source.nodes, source.viewLeafId).filter((node) => node.kind === "user")[0];
    if (!target) throw new Error("no user message to fork at");
    const before = await sessions();
    await openSession(session.id, target.id);
    const expected = await api<ContextView>("context:get", { sessionId: session.id, leafId: target.id });

    await page.getByRole("button", { name: "Fork to new session" }).click();
    await poll(async () => (await sessions()).length).toBe(before.length + 1);
    const fork = (await sessions()).find((s) => !before.some((old) => old.id === s.id));
    if (!fork) throw new Error("no forked session");
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(fork.id);
    await poll(() => page.locator(`.session-groups [data-session-id="${fork.id}"]`).getAttribute("aria-current")).toBe(
      "true",
    );
    const forked = await tree(fork.id);
    // SPEC §2.6: the path's entries minus its label entries (labels come back as fresh entries).
    const carried = pathTo(source.nodes, target.id).filter((node) => node.type !== "label");
    expect(forked.nodes.map((node) => node.id)).toEqual(expect.arrayContaining(carried.map((node) => node.id)));
    expect(forked.nodes.filter((node) => node.type !== "label")).toHaveLength(carried.length);
    await poll(() => llmView().getAttribute("data-message-count")).toBe(String(expected.messages.length));
    await shot("04-forked-session");
  });
});
