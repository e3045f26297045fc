// Editing flows as a fast keyboard user meets them in Debian's Chromium (browser mode, bundled
// demo data): a delete undone in another window must not leave this one offering to undo it
// (its Ctrl+Z would undo the session's last edit instead), and the label box belongs to the
// entry selected now, not to the one it was typed for; the archive question takes the focus; a
// fork is undone from the fork; a session deleted in one tab is left in the other; the branch
// dialog gives the focus to the entry moved to, saving an edit gives it back to Edit, and
// Ctrl+Z works with the focus on a checkbox or a select; F2 selects the whole title; a session
// opened while an edit of another one runs gets its LLM view.
// Screenshots: test-artifacts/edits-qa/.
import path from "node:path";
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openSessionShowingAll, pathTo, poll } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { demoAppSuite } from "../helpers/demo-app-suite.ts";
import { demoSessionId, openPage } from "../helpers/e2e-app.ts";

const shots = path.join(artifactsDir(), "edits-qa");
const PARSER_TITLE = "Refactor the parser (omp dialect copy of tree-01)";
const STORE_TITLE = "Session store tree";

const suite = demoAppSuite("edits-qa", shots);
const { api, shot, tree } = suite;
const labelBox = () => suite.page.getByRole("textbox", { name: "Label", exact: true });
const undoButton = () => suite.page.getByTestId("edit-actions").getByRole("button", { name: "Undo", exact: true });

describe("editing flows, as a demanding user", () => {
  it("a delete undone elsewhere is no longer offered by the notice or Ctrl+Z, which would undo the session's last edit", async () => {
    const { mode, page } = suite;
    const parser = await demoSessionId(mode, PARSER_TITLE);
    const store = await demoSessionId(mode, STORE_TITLE);
    const before = await tree(parser);
    const target = before.nodes.find((node) => node.parentId !== null && node.label === undefined);
    if (!target) throw new Error("no unlabelled entry in the parser session");
    // An edit made before the delete: the session's history ends with it once the delete is undone.
    await api("edits:label", { sessionId: parser, targetId: target.id, label: "qa-kept" });

    await openSessionShowingAll(page, mode, parser);
    await page.getByRole("button", { name: `Delete “${PARSER_TITLE}” from the library` }).click();
    await page.getByRole("alertdialog", { name: "Delete this session from the library?" }).waitFor();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("notice").textContent()).toContain(`Deleted “${PARSER_TITLE}”`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).not.toBe(parser);
    await page
      .getByRole("button", { name: new RegExp(`^${STORE_TITLE}`) })
      .first()
      .click();
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(store);
    expect(await undoButton().getAttribute("title")).toContain(`Undo delete of “${PARSER_TITLE}”`);

    // Another window (or `canopy undelete`) brings it back.
    await api("edits:undo", { sessionId: parser });
    await poll(async () =>
      (await api<{ id: string }[]>("library:list", {})).some((s) => s.id === parser),
    ).toBe(true);

    await poll(() => undoButton().getAttribute("title")).not.toContain("Undo delete");
    await poll(() => page.getByTestId("notice").textContent()).toContain(
      `“${PARSER_TITLE}” is back in the library.`,
    );
    expect(await page.getByRole("button", { name: "Undo the delete" }).count()).toBe(0);
    await shot("01-delete-undone-elsewhere");

    // Ctrl+Z now is about the open session (nothing to undo there), not the parser's label.
    await page.locator("body").press("Control+z");
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Nothing to undo");
    const after = await tree(parser);
    expect(after.nodes.find((node) => node.id === target.id)?.label).toBe("qa-kept");
    expect(after.history.undo).toBe("label");
  });

  it("typing a label, then selecting another entry: the box shows that entry's label and Set label cannot give it the text typed for the first", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const labelled = new Set(
      (await tree(sessionId)).nodes.filter((node) => node.label).map((node) => node.id),
    );
    const rendered = await page
      .getByTestId("tree-canvas")
      .locator(".tree-node[data-entry-id]")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
    const [first, second] = rendered.filter((id) => id !== "" && !labelled.has(id));
    if (!first || !second) throw new Error("fewer than two unlabelled entries on the canvas");
    const entry = (id: string) => page.locator(`.tree-node[data-entry-id="${id}"]`);

    await entry(first).click();
    await poll(() => page.getByTestId("edit-target").textContent()).toContain(first.slice(0, 8));
    await labelBox().fill("qa-typed-for-first");
    await entry(second).click();
    await poll(() => page.getByTestId("edit-target").textContent()).toContain(second.slice(0, 8));
    await poll(() => labelBox().inputValue()).toBe("");
    expect(await page.getByRole("button", { name: "Set label" }).isDisabled()).toBe(true);
    await shot("02-label-box-follows-selection");
    const after = await tree(sessionId);
    expect(after.nodes.find((node) => node.id === second)?.label).toBeUndefined();
  });

  it("Ctrl+Z right after a fork, in the new session it opened, undoes the fork and goes back to the original", async () => {
    const { mode, page } = suite;
    const parser = await demoSessionId(mode, PARSER_TITLE);
    const before = await tree(parser);
    await openSessionShowingAll(page, mode, parser);
    await page.getByRole("button", { name: "Fork to new session" }).click();
    const canvas = page.getByTestId("tree-canvas");
    await poll(() => canvas.getAttribute("data-tree-session")).not.toBe(parser);
    const forkId = (await canvas.getAttribute("data-tree-session")) ?? "";
    expect((await api<{ id: string }[]>("library:list", {})).some((s) => s.id === forkId)).toBe(true);
    await poll(() => undoButton().getAttribute("title")).toContain("Undo fork");
    // The title shows once the fork's tree is in; the fork ends (its LLM view in, Undo enabled) after.
    await poll(() => undoButton().isDisabled()).toBe(false);
    await shot("03-fork-undoable-from-the-fork");

    await page.locator("body").press("Control+z");
    await poll(() => canvas.getAttribute("data-tree-session")).toBe(parser);
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Undid fork");
    expect((await api<{ id: string }[]>("library:list", {})).some((s) => s.id === forkId)).toBe(false);
    const after = await tree(parser);
    expect(after.history).toEqual({ undo: before.history.undo, redo: "fork" });
    expect(after.nodes.length).toBe(before.nodes.length);

    // Redo (in the original) brings the fork back.
    await page.locator("body").press("Control+Shift+z");
    await poll(async () =>
      (await api<{ id: string }[]>("library:list", {})).some((s) => s.id === forkId),
    ).toBe(true);
  });

  it("archiving the branch of the view leaf asks with the focus on the question: Escape keeps it, Enter archives, the focus comes back", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const archived = async () => (await tree(sessionId)).nodes.filter((node) => node.archived).length;
    expect(await archived()).toBe(0);
    const question = page.getByRole("alertdialog", { name: "Archive the branch holding the view leaf?" });
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? "");

    await page.getByRole("button", { name: "Archive branch" }).click();
    await question.waitFor();
    await poll(focusedText).toBe("Archive anyway");
    await shot("04-archive-question-focused");
    await page.keyboard.press("Escape");
    await poll(() => question.count()).toBe(0);
    await poll(focusedText).toBe("Archive branch");
    expect(await archived()).toBe(0);

    await page.keyboard.press("Enter");
    await question.waitFor();
    await poll(focusedText).toBe("Archive anyway");
    await page.keyboard.press("Enter");
    await poll(archived).toBeGreaterThan(0);
    await poll(() => question.count()).toBe(0);
    await poll(focusedText).toBe("Restore branch");

    // The keyboard goes on: Ctrl+Z undoes the archive.
    await page.keyboard.press("Control+z");
    await poll(archived).toBe(0);
  });

  it("a session deleted in another tab is left in this one too, with Undo, instead of a tree and an LLM view that cannot load", async () => {
    const { app, mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    const other = await openPage(app);
    try {
      await openSessionShowingAll(page, mode, sessionId);
      await openSessionShowingAll(other, mode, sessionId);
      await page.getByRole("button", { name: `Delete “${STORE_TITLE}” from the library` }).click();
      await page.getByRole("alertdialog", { name: "Delete this session from the library?" }).waitFor();
      await page.keyboard.press("Enter");
      await poll(() => page.getByTestId("notice").textContent()).toContain(`Deleted “${STORE_TITLE}”`);

      const canvas = other.getByTestId("tree-canvas");
      await poll(() => other.getByTestId("notice").textContent()).toContain(
        `“${STORE_TITLE}” was deleted from the library elsewhere (another window or the CLI)`,
      );
      await poll(() => canvas.getAttribute("data-tree-session")).not.toBe(sessionId);
      await poll(() => canvas.getAttribute("data-tree-session")).not.toBe(null);
      expect(await other.getByText("could not be loaded").count()).toBe(0);
      await other.screenshot({ path: path.join(shots, "05-deleted-in-another-tab.png") });

      // Its Undo brings the session back here; the tab that deleted it stops offering Undo.
      await other.getByRole("button", { name: "Undo the delete" }).click();
      await poll(() => canvas.getAttribute("data-tree-session")).toBe(sessionId);
      await poll(() => page.getByTestId("notice").textContent()).toContain(
        `“${STORE_TITLE}” is back in the library.`,
      );
    } finally {
      await other.close();
    }
  });

  it("after dragging the leaf marker and answering the branch dialog, the focus is on the entry moved to and the arrow keys go on", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const before = await tree(sessionId);
    const onPath = new Set(pathTo(before.nodes, before.viewLeafId).map((node) => node.id));
    const rendered = await page
      .getByTestId("tree-canvas")
      .locator(".tree-node[data-entry-id]")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
    const byId = new Map(before.nodes.map((node) => [node.id, node]));
    const targetId = rendered.find((id) => {
      const node = byId.get(id);
      return (
        node !== undefined && !onPath.has(id) && node.parentId !== null && rendered.includes(node.parentId)
      );
    });
    const target = targetId === undefined ? undefined : byId.get(targetId);
    if (!target?.parentId) throw new Error("no entry off the active path, with its parent, on the canvas");

    const marker = await page.getByTestId("leaf-marker").boundingBox();
    const drop = await page.locator(`.tree-node[data-entry-id="${target.id}"]`).boundingBox();
    if (!marker || !drop) throw new Error("leaf marker or drop target not on screen");
    await page.mouse.move(marker.x + marker.width / 2, marker.y + marker.height / 2);
    await page.mouse.down();
    await page.mouse.move(marker.x + 20, marker.y + 20, { steps: 5 });
    await page.mouse.move(drop.x + drop.width / 2, drop.y + drop.height / 2, { steps: 10 });
    await page.mouse.up();
    const dialog = page.getByRole("dialog", { name: "Move the view leaf" });
    await dialog.waitFor();
    await page.keyboard.press("Enter");
    await poll(async () => (await tree(sessionId)).viewLeafId).toBe(target.id);
    // Once the page has the moved view leaf (its refresh landed), the focus is still there.
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(target.id);
    await poll(() => page.locator(`.tree-node[data-entry-id="${target.id}"] [data-testid=leaf-marker]`).count()).toBe(1);
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-entry-id") ?? null)).toBe(
      target.id,
    );
    await page.keyboard.press("ArrowUp");
    await poll(() => page.getByTestId("edit-target").textContent()).toContain(target.parentId.slice(0, 8));
    await shot("06-after-branch-dialog");
  });

  it("saving an edit as a new branch gives the focus back to Edit as new branch, as Cancel does", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, PARSER_TITLE);
    const before = await tree(sessionId);
    const user = pathTo(before.nodes, before.viewLeafId)
      .filter((node) => node.kind === "user" && node.parentId !== null)
      .at(-1);
    if (!user) throw new Error("no user message on the parser session's path");
    await openSessionShowingAll(page, mode, sessionId, user.id);
    await page.getByRole("button", { name: "Edit as new branch" }).click();
    await page.getByLabel("Edited message").fill("QA: saved from the keyboard.");
    await page.getByRole("button", { name: "Save as new branch" }).click();
    await poll(async () => (await tree(sessionId)).nodes.length).toBe(before.nodes.length + 1);
    await poll(() => page.evaluate(() => document.activeElement?.textContent ?? "")).toBe(
      "Edit as new branch",
    );
  });

  it("Ctrl+Z works with the focus on a checkbox or a select (Show archived, Filter), not only on the page", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    const before = await tree(sessionId);
    const onPath = new Set(pathTo(before.nodes, before.viewLeafId).map((node) => node.id));
    const off = before.nodes.find(
      (node) => !onPath.has(node.id) && !node.archived && node.parentId !== null && onPath.has(node.parentId),
    );
    if (!off) throw new Error("no branch off the active path");
    await openSessionShowingAll(page, mode, sessionId);
    const archived = async () => (await tree(sessionId)).nodes.filter((node) => node.archived).length;
    await api("edits:archive", { sessionId, entryId: off.id });
    await poll(() => undoButton().getAttribute("title")).toContain("Undo archive");

    await page.getByLabel("Show archived").check();
    await page.keyboard.press("Control+z");
    await poll(archived).toBe(0);
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Undid archive");

    await page.getByRole("combobox", { name: /^Filter/ }).focus();
    await page.keyboard.press("Control+Shift+z");
    await poll(archived).toBeGreaterThan(0);
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Redid archive");
  });

  it("opening another session while an edit still runs: that session's LLM view loads, not left waiting for the edit's refresh", async () => {
    const { mode, page } = suite;
    const parser = await demoSessionId(mode, PARSER_TITLE);
    const store = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, parser);
    const leafId = (await tree(parser)).viewLeafId;
    const labelOf = async () => (await tree(parser)).nodes.find((node) => node.id === leafId)?.label;
    // The label's answer comes after the other session is open, its LLM view's after that.
    const late = (ms: number) => async (route: Route) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      await route.continue().catch(() => undefined);
    };
    const isChannel = (channel: string) => (url: URL) =>
      decodeURIComponent(url.pathname) === `/api/${channel}`;
    const label = late(1_000);
    const context = late(2_500);
    await page.route(isChannel("edits:label"), label);
    await page.route(isChannel("context:get"), context);
    try {
      await labelBox().fill("qa-switch");
      await page.getByRole("button", { name: "Set label" }).click();
      await page
        .getByRole("button", { name: new RegExp(`^${STORE_TITLE}`) })
        .first()
        .click();
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(store);
      await poll(labelOf).toBe("qa-switch");
      const storeLeaf = (await tree(store)).viewLeafId ?? "";
      await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(storeLeaf);
      await shot("09-other-session-opened-during-edit");
    } finally {
      await page.unroute(isChannel("edits:label"), label);
      await page.unroute(isChannel("context:get"), context);
    }
    await api("edits:undo", { sessionId: parser });
  });

  it("F2 opens the title field with the whole title selected: typing replaces it", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("F2");
    const field = page.getByLabel("Session title");
    await field.waitFor();
    const [start, end, length] = await field.evaluate((input: HTMLInputElement) => [
      input.selectionStart,
      input.selectionEnd,
      input.value.length,
    ]);
    expect(length).toBeGreaterThan(0);
    expect([start, end]).toEqual([0, length]);
    await shot("08-f2-title-selected");
    await page.keyboard.type("QA new title");
    await page.keyboard.press("Enter");
    const title = async () =>
      (await api<{ id: string; title: string | null }[]>("library:list", {})).find((s) => s.id === sessionId)
        ?.title;
    await poll(title).toBe("QA new title");
    await api("edits:undo", { sessionId });
    await poll(title).toMatch(new RegExp(`^${STORE_TITLE}`));
  });
});
