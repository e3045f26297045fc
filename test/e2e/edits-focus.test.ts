// The edit buttons of the entry details keep the keyboard focus (Debian's Chromium, browser mode,
// bundled demo data): an edit disables them while it runs, and once its refreshed state has
// landed the button pressed has the focus again — Undo ↔ Redo when it has nothing left, the
// selected entry when the button is gone or disabled — also for Ctrl+Z / Ctrl+Shift+Z pressed on
// a button, with the server slow to answer, and never once the user clicked elsewhere meanwhile;
// Save as new branch gives it to Edit as new branch the same way (and keeps it when the save
// fails, the box still open); an edit's outcome line names its
// session when another one was opened meanwhile (and the archive question is not asked there);
// renaming by keyboard leaves it on Rename; Ctrl+Z pressed twice, then another session opened, undoes
// once and says the second press was dropped.
// Screenshots: test-artifacts/edits-focus/.
import path from "node:path";
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { SessionSummary, SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import { openSessionShowingAll, pathTo, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { demoAppSuite } from "../helpers/demo-app-suite.ts";
import { demoSessionId } from "../helpers/e2e-app.ts";

const shots = path.join(artifactsDir(), "edits-focus");
const STORE_TITLE = "Session store tree";
const PARSER_TITLE = "Refactor the parser (omp dialect copy of tree-01)";

const suite = demoAppSuite("edits-focus", shots);
const { api, shot, tree } = suite;
const labelBox = () => suite.page.getByRole("textbox", { name: "Label", exact: true });
const button = (name: string) => suite.page.getByTestId("edit-actions").getByRole("button", { name, exact: true });
const entry = (id: string) => suite.page.locator(`.tree-node[data-entry-id="${id}"]`);
const editTarget = () => suite.page.getByTestId("edit-target").textContent();

/** What has the focus: "body", "tree", `entry:<id>`, or a control's text. */
const focused = () =>
  suite.page.evaluate(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) return "body";
    if (active.getAttribute("role") === "tree") return "tree";
    const id = active.getAttribute("data-entry-id");
    if (id !== null) return `entry:${id}`;
    return active.getAttribute("aria-label") ?? active.textContent ?? "";
  });

/** Where the focus is expected after Undo/Redo pressed on `from`: it, else its neighbour. */
function afterHistory(from: "Undo" | "Redo", history: SessionTreeDto["history"]): "Undo" | "Redo" {
  if (from === "Undo") return history.undo !== null ? "Undo" : "Redo";
  return history.redo !== null ? "Redo" : "Undo";
}

/** Answers the page's calls to `channel` `ms` late (the server does the work after the wait). */
async function slowDown(channels: string[], ms: number): Promise<() => Promise<void>> {
  const matches = (url: URL) =>
    channels.some((channel) => decodeURIComponent(url.pathname) === `/api/${channel}`);
  const handler = async (route: Route) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await route.continue().catch(() => undefined);
  };
  await suite.page.route(matches, handler);
  return () => suite.page.unroute(matches, handler);
}

/** Entries on the canvas, with parents on it too: one on the active path (not the leaf), one off it. */
async function entriesToEdit(sessionId: string) {
  const before = await tree(sessionId);
  const onPath = new Set(pathTo(before.nodes, before.viewLeafId).map((node) => node.id));
  const byId = new Map(before.nodes.map((node) => [node.id, node]));
  const rendered = await suite.page
    .getByTestId("tree-canvas")
    .locator(".tree-node[data-entry-id]")
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
  const withParent = (id: string) => {
    const node = byId.get(id);
    return (
      node?.parentId != null && node.label === undefined && !node.archived && rendered.includes(node.parentId)
    );
  };
  const onId = rendered.find((id) => withParent(id) && onPath.has(id) && id !== before.viewLeafId);
  const offId = rendered.find((id) => withParent(id) && !onPath.has(id));
  if (!onId || !offId)
    throw new Error("no entries on and off the active path with their parents on the canvas");
  return { before, byId, onId, offId };
}

describe("edit buttons keep the keyboard focus", () => {
  it("Set label, Clear label, Undo, Redo and Ctrl+Z / Ctrl+Shift+Z on them: the button, its neighbour, or the selected entry", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const { byId, onId } = await entriesToEdit(sessionId);
    const parentId = byId.get(onId)?.parentId as string;
    const labelOf = async () => (await tree(sessionId)).nodes.find((node) => node.id === onId)?.label;

    // Set label: disabled afterwards (the box holds the label): the selected entry takes the focus.
    await entry(onId).click();
    await poll(editTarget).toContain(onId.slice(0, 8));
    await labelBox().fill("qa-focus");
    await button("Set label").click();
    await poll(labelOf).toBe("qa-focus");
    await poll(focused).toBe(`entry:${onId}`);
    await page.keyboard.press("ArrowUp");
    await poll(editTarget).toContain(parentId.slice(0, 8));
    await shot("01-set-label-entry-focused");

    // Clear label: the button is gone.
    await entry(onId).click();
    await button("Clear label").click();
    await poll(labelOf).toBe(undefined);
    await poll(focused).toBe(`entry:${onId}`);

    // Undo keeps it (the label set is left to undo); Redo, with nothing left to redo, gives it to Undo.
    await button("Undo").click();
    await poll(labelOf).toBe("qa-focus");
    await poll(focused).toBe("Undo");
    await button("Redo").click();
    await poll(labelOf).toBe(undefined);
    await poll(focused).toBe("Undo");
    await shot("02-redo-undo-focused");

    // Ctrl+Z with the focus on Undo: it keeps the focus while it has something to undo, else Redo
    // takes it; Ctrl+Shift+Z on that button likewise.
    await page.keyboard.press("Control+z");
    await poll(labelOf).toBe("qa-focus");
    await poll(focused).toBe("Undo");
    await page.keyboard.press("Control+z");
    await poll(labelOf).toBe(undefined);
    const afterUndos = afterHistory("Undo", (await tree(sessionId)).history);
    await poll(focused).toBe(afterUndos);
    await page.keyboard.press("Control+Shift+z");
    await poll(labelOf).toBe("qa-focus");
    await poll(focused).toBe(afterHistory(afterUndos, (await tree(sessionId)).history));
    await page.keyboard.press("Control+Shift+z");
    await poll(labelOf).toBe(undefined);
    // Nothing left to redo: Undo has it, and Enter on it undoes.
    await poll(focused).toBe("Undo");
    await page.keyboard.press("Enter");
    await poll(labelOf).toBe("qa-focus");
    await poll(focused).toBe("Undo");
  });

  it("Archive branch, Restore branch, Fork (and Ctrl+Z on them) and Undo compaction", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const { offId } = await entriesToEdit(sessionId);
    const archived = async () => (await tree(sessionId)).nodes.filter((node) => node.archived).length;
    const archivedBefore = await archived();

    // Archive branch (off the active path: no question): the button, for the view leaf now.
    await entry(offId).click();
    await poll(editTarget).toContain(offId.slice(0, 8));
    await button("Archive branch").click();
    await poll(archived).toBeGreaterThan(archivedBefore);
    await poll(focused).toBe("Archive branch");
    // Ctrl+Z on it: the archive is undone, the focus stays.
    await page.keyboard.press("Control+z");
    await poll(archived).toBe(archivedBefore);
    await poll(focused).toBe("Archive branch");

    // Restore branch, with archived branches shown: the same place holds Archive branch after it.
    await entry(offId).click();
    await button("Archive branch").click();
    await poll(archived).toBeGreaterThan(archivedBefore);
    // The page's archive has ended (the library answers first; its refresh would take the entry
    // clicked next out of the selection): the focus is back on the button.
    await poll(focused).toBe("Archive branch");
    await page.getByLabel("Show archived").check();
    await entry(offId).click();
    await poll(editTarget).toContain(offId.slice(0, 8));
    await button("Restore branch").click();
    await poll(archived).toBe(archivedBefore);
    await poll(focused).toBe("Archive branch");
    await page.getByLabel("Show archived").uncheck();

    // Fork: the new session opens with the focus on its Fork button; Ctrl+Z there goes back.
    const canvas = page.getByTestId("tree-canvas");
    await button("Fork to new session").click();
    await poll(() => canvas.getAttribute("data-tree-session")).not.toBe(sessionId);
    await poll(focused).toBe("Fork to new session");
    await page.keyboard.press("Control+z");
    await poll(() => canvas.getAttribute("data-tree-session")).toBe(sessionId);
    await poll(focused).toBe("Fork to new session");
    await shot("03-fork-undone-focus-kept");

    // Undo compaction: the button is gone (the view leaf moved before it): the view leaf has it.
    let found: { session: SessionSummary; compaction: TreeNodeDto } | null = null;
    for (const session of await api<SessionSummary[]>("library:list", {})) {
      const current = await tree(session.id);
      const compaction = pathTo(current.nodes, current.viewLeafId).find((node) => node.type === "compaction");
      if (compaction) {
        found = { session, compaction };
        break;
      }
    }
    if (!found) throw new Error("no demo session with a compaction on its active path");
    const { session, compaction } = found;
    const leaf = (await tree(session.id)).viewLeafId;
    await openSessionShowingAll(page, mode, session.id, compaction.id);
    await button("Undo compaction").click();
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(compaction.parentId);
    await poll(async () => [`entry:${compaction.parentId}`, "tree"].includes(await focused())).toBe(true);
    await page.keyboard.press("Control+z");
    await poll(async () => (await tree(session.id)).viewLeafId).toBe(leaf);
    // The page has the undo's outcome before the next test opens another session.
    await poll(() => page.getByTestId("job-message").textContent()).toContain("Undid");
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(leaf ?? "");
  });

  it("with the server slow to answer the edit and the refreshed tree, Undo and Redo still get the focus back", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const { onId } = await entriesToEdit(sessionId);
    const labelOf = async () => (await tree(sessionId)).nodes.find((node) => node.id === onId)?.label;
    await api("edits:label", { sessionId, targetId: onId, label: "qa-slow" });
    await poll(() => button("Undo").getAttribute("title")).toContain("Undo label");
    const restore = await slowDown(
      ["edits:undo", "edits:redo", "session:tree", "session:tree-update", "context:get"],
      500,
    );
    try {
      await button("Undo").click();
      await poll(labelOf).toBe(undefined);
      await poll(focused).toBe(afterHistory("Undo", (await tree(sessionId)).history));
      await button("Redo").click();
      await poll(labelOf).toBe("qa-slow");
      await poll(focused).toBe("Undo");
      // A second label on top; Ctrl+Z twice on Undo, the second while the first runs: it waits its
      // turn (before, it was dropped without a word: one undo), so both labels are undone, in
      // order, and the focus still goes back once the second has landed.
      await api("edits:label", { sessionId, targetId: onId, label: "qa-slow-2" });
      await poll(() => page.locator(`.tree-node[data-entry-id="${onId}"]`).textContent()).toContain("qa-slow-2");
      await page.keyboard.press("Control+z");
      await page.keyboard.press("Control+z");
      await poll(labelOf).toBe(undefined);
      await poll(() => page.getByTestId("job-message").textContent()).toContain("Undid label");
      await poll(focused).toBe(afterHistory("Undo", (await tree(sessionId)).history));
      expect((await tree(sessionId)).history.redo).toBe("label");
      // Redo brings the first label back, not the second: the two undos ran in order.
      await page.keyboard.press("Control+Shift+z");
      await poll(labelOf).toBe("qa-slow");
    } finally {
      await restore();
    }
  }, 60_000);

  it("a click elsewhere while the edit runs keeps its focus: the button does not take it back", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const { onId } = await entriesToEdit(sessionId);
    const labelOf = async () => (await tree(sessionId)).nodes.find((node) => node.id === onId)?.label;
    const restore = await slowDown(["edits:label"], 1_000);
    try {
      await entry(onId).click();
      await poll(editTarget).toContain(onId.slice(0, 8));
      await labelBox().fill("qa-elsewhere");
      await button("Set label").click();
      // While the label is being set, the user clicks into the label box.
      await labelBox().click();
      expect(await focused()).toBe("Label");
      await poll(labelOf).toBe("qa-elsewhere");
      await poll(() => page.getByTestId("job-message").textContent()).toContain("qa-elsewhere");
      expect(await button("Undo").isDisabled()).toBe(false);
      // Some frames later the focus is still in the box.
      await page.evaluate(
        () =>
          new Promise((resolve) =>
            requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 300))),
          ),
      );
      expect(await focused()).toBe("Label");
    } finally {
      await restore();
    }
  });

  it("Save as new branch gives the focus back to Edit as new branch once the branch has landed, not after a click elsewhere", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    const before = await tree(sessionId);
    const user = pathTo(before.nodes, before.viewLeafId)
      .filter((node) => node.kind === "user" && node.parentId !== null)
      .at(-1);
    if (!user) throw new Error("no user message on the store session's path");
    await openSessionShowingAll(page, mode, sessionId, user.id);
    const count = async () => (await tree(sessionId)).nodes.length;
    const edit = button("Edit as new branch");

    // Slow answers to the edit and to its refresh: Edit has the focus once they are on screen.
    let restore = await slowDown(["edits:edit-message", "session:tree", "context:get"], 500);
    try {
      await edit.click();
      await page.getByLabel("Edited message").fill("QA focus: saved slowly.");
      await page.getByRole("button", { name: "Save as new branch" }).click();
      await poll(count).toBe(before.nodes.length + 1);
      await poll(focused).toBe("Edit as new branch");
    } finally {
      await restore();
    }
    await shot("04-saved-edit-focused");

    // Enter on it opens the box again; a click on the session's title while the save runs (the
    // focus goes to the page) keeps Edit from taking the focus back.
    await page.keyboard.press("Enter");
    await page.getByLabel("Edited message").fill("QA focus: clicked elsewhere.");
    restore = await slowDown(["edits:edit-message"], 1_000);
    try {
      await page.getByRole("button", { name: "Save as new branch" }).click();
      await page.locator(".session-heading").click();
      expect(await focused()).toBe("body");
      await poll(count).toBe(before.nodes.length + 2);
      await poll(() => textOf(page.getByTestId("job-message"))).toContain("Edited as a new branch");
      await poll(() => edit.isDisabled()).toBe(false);
      await page.evaluate(
        () =>
          new Promise((resolve) =>
            requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 300))),
          ),
      );
      expect(await focused()).toBe("body");
    } finally {
      await restore();
    }
    await api("edits:undo", { sessionId });
    await api("edits:undo", { sessionId });
    await poll(count).toBe(before.nodes.length);
  }, 60_000);

  it("Save as new branch refused (the request fails): the box stays and Save keeps the focus, to try again", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    const before = await tree(sessionId);
    const user = pathTo(before.nodes, before.viewLeafId)
      .filter((node) => node.kind === "user" && node.parentId !== null)
      .at(-1);
    if (!user) throw new Error("no user message on the store session's path");
    await openSessionShowingAll(page, mode, sessionId, user.id);
    const isEdit = (url: URL) => decodeURIComponent(url.pathname) === "/api/edits:edit-message";
    const refuse = (route: Route) => route.abort("connectionrefused");
    await page.route(isEdit, refuse);
    try {
      await button("Edit as new branch").focus();
      await page.keyboard.press("Enter");
      await page.getByLabel("Edited message").fill("QA focus: never saved.");
      await page.getByRole("button", { name: "Save as new branch" }).focus();
      await page.keyboard.press("Enter");
      await poll(() => page.getByRole("button", { name: "Save as new branch" }).isDisabled()).toBe(false);
      await page.evaluate(
        () =>
          new Promise((resolve) =>
            requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 300))),
          ),
      );
      expect(await focused()).toBe("Save as new branch");
      expect((await tree(sessionId)).nodes.length).toBe(before.nodes.length);
    } finally {
      await page.unroute(isEdit, refuse);
    }
  });

  it("an edit that ends after another session was opened: its outcome line names the session edited", async () => {
    const { mode, page } = suite;
    const store = await demoSessionId(mode, STORE_TITLE);
    const parser = await demoSessionId(mode, PARSER_TITLE);
    await openSessionShowingAll(page, mode, store);
    const { onId } = await entriesToEdit(store);
    const labelOf = async () => (await tree(store)).nodes.find((node) => node.id === onId)?.label;
    const restore = await slowDown(["edits:label"], 1_500);
    try {
      await entry(onId).click();
      await poll(editTarget).toContain(onId.slice(0, 8));
      await labelBox().fill("qa-other-session");
      await button("Set label").click();
      await page.locator(`.session-groups [data-session-id="${parser}"]`).first().click();
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(parser);
      await poll(labelOf).toBe("qa-other-session");
      await poll(() => textOf(page.getByTestId("job-message"))).toBe(
        `In “${STORE_TITLE}”: Labelled ${onId} “qa-other-session”.`,
      );
      await shot("05-outcome-names-the-session");
    } finally {
      await restore();
    }
    await api("edits:undo", { sessionId: store });
    await poll(labelOf).toBe(undefined);
  }, 60_000);

  it("Ctrl+Z pressed twice, then another session opened while the first undo runs: the second is dropped, and the line says so", async () => {
    const { mode, page } = suite;
    const store = await demoSessionId(mode, STORE_TITLE);
    const parser = await demoSessionId(mode, PARSER_TITLE);
    await openSessionShowingAll(page, mode, store);
    const { onId } = await entriesToEdit(store);
    const labelOf = async () => (await tree(store)).nodes.find((node) => node.id === onId)?.label;
    await api("edits:label", { sessionId: store, targetId: onId, label: "qa-kept" });
    await api("edits:label", { sessionId: store, targetId: onId, label: "qa-undone" });
    await poll(() => entry(onId).textContent()).toContain("qa-undone");
    const parserHistory = (await tree(parser)).history;
    const restore = await slowDown(["edits:undo"], 1_500);
    try {
      await page.locator("body").click({ position: { x: 5, y: 5 } });
      await page.keyboard.press("Control+z");
      await page.keyboard.press("Control+z");
      await page.locator(`.session-groups [data-session-id="${parser}"]`).first().click();
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(parser);
      await poll(() => textOf(page.getByTestId("job-message"))).toBe(
        `In “${STORE_TITLE}”: Undid label. 1 more Ctrl+Z press was dropped: the open session changed meanwhile.`,
      );
      await shot("05-second-undo-dropped");
      // One undo on the session it was pressed for; nothing undone in the one opened.
      expect(await labelOf()).toBe("qa-kept");
      expect((await tree(parser)).history).toEqual(parserHistory);
    } finally {
      await restore();
    }
    await api("edits:undo", { sessionId: store });
  });

  it("the archive question answered after another session was opened: not asked there, the line names the session", async () => {
    const { mode, page } = suite;
    const store = await demoSessionId(mode, STORE_TITLE);
    const parser = await demoSessionId(mode, PARSER_TITLE);
    await openSessionShowingAll(page, mode, store);
    const { onId } = await entriesToEdit(store);
    const archived = async () => (await tree(store)).nodes.filter((node) => node.archived).length;
    const archivedBefore = await archived();
    // On the active path: the branch holds the view leaf, the archive asks first.
    const restore = await slowDown(["edits:archive"], 1_500);
    try {
      await entry(onId).click();
      await poll(editTarget).toContain(onId.slice(0, 8));
      await button("Archive branch").click();
      await page.locator(`.session-groups [data-session-id="${parser}"]`).first().click();
      await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(parser);
      await poll(() => textOf(page.getByTestId("job-message"))).toBe(
        `In “${STORE_TITLE}”: Not archived: the branch below ${onId} holds the view leaf; archive it again there to confirm.`,
      );
      expect(await page.getByRole("alertdialog", { name: "Archive the branch holding the view leaf?" }).count()).toBe(0);
      expect(await archived()).toBe(archivedBefore);
    } finally {
      await restore();
    }
  }, 60_000);

  it("renaming by keyboard (F2 or Rename, type, Enter or Escape), with the server slow: the title field, then Rename, has the focus", async () => {
    const { mode, page } = suite;
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const header = page.getByTestId("session-header");
    const rename = header.getByRole("button", { name: "Rename", exact: true });
    const title = async () =>
      (await api<SessionSummary[]>("library:list", {})).find((session) => session.id === sessionId)?.title;
    const restore = await slowDown(["edits:rename", "library:list", "session:tree"], 500);
    try {
      // F2 from the page: the field has the focus; Enter saves, Rename has the focus once enabled.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press("F2");
      await poll(focused).toBe("Session title");
      await page.keyboard.type("QA focus title");
      await page.keyboard.press("Enter");
      await poll(title).toBe("QA focus title");
      await poll(() => textOf(header.locator("h2"))).toBe("QA focus title");
      await poll(focused).toBe("Rename");
      // F2 again, Escape: nothing renamed, Rename has it.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press("F2");
      await poll(focused).toBe("Session title");
      await page.keyboard.type("QA not saved");
      await page.keyboard.press("Escape");
      await poll(focused).toBe("Rename");
      expect(await title()).toBe("QA focus title");

      // Enter on Rename: the field has the focus; Enter saves (an empty title: the file's own).
      await rename.focus();
      await page.keyboard.press("Enter");
      await poll(focused).toBe("Session title");
      await page.keyboard.press("Backspace");
      await page.keyboard.press("Enter");
      await poll(title).not.toBe("QA focus title");
      await poll(() => textOf(header.locator("h2"))).not.toBe("QA focus title");
      await poll(focused).toBe("Rename");
      // Rename is never unavailable (it opens while another edit is saved, as F2 does).
      expect(await rename.getAttribute("aria-disabled")).not.toBe("true");
      // And Escape from there.
      await page.keyboard.press("Enter");
      await poll(focused).toBe("Session title");
      await page.keyboard.press("Escape");
      await poll(focused).toBe("Rename");
      await shot("06-rename-escape-focus");

      // Escape while the rename still runs (the field stays until it ends): the title is saved,
      // and Rename has the focus once back.
      await page.keyboard.press("Enter");
      await poll(focused).toBe("Session title");
      await page.keyboard.type("QA escaped title");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Escape");
      await poll(title).toBe("QA escaped title");
      // The field goes once the title is saved: Rename is back.
      await rename.waitFor();
      await poll(focused).toBe("Rename");
    } finally {
      await restore();
    }
  }, 60_000);
});
