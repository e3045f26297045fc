// Issue 6: Canopy's own edits (edit as branch, fork, undo a summary, rename, label, archive) and
// their undo/redo, on the shared fixtures. Every file entry stays byte-identical, exports parse
// as pi files and their LLM view at the last line equals the library's context:get.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { buildLlmView } from "../../../core/session/llm-view.ts";
import { contextTemplatesFrom } from "../../../prompts/index.ts";
import { cliRecorder } from "../../helpers/cli.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";

let h: Harness;

beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const FIXTURES = ["tree-01.jsonl", "tree-01.omp.jsonl", "tree-02.jsonl", "tree-03.jsonl"];

async function importFixture(name: string): Promise<string> {
  const report = await h.call("library:import", { path: fixturePath(name) });
  const sessionId = report.files[0]?.sessionId;
  if (!sessionId) throw new Error(`import of ${name} failed`);
  return sessionId;
}

/** Every entry line of the fixture, as parsed (what must never be lost or altered). */
function fileEntries(name: string): SessionEntry[] {
  return parseSessionText(readFileSync(fixturePath(name), "utf8")).entries.map((e) => e.entry);
}

async function entries(sessionId: string): Promise<SessionEntry[]> {
  return (await h.call("session:get", { sessionId })).entries.map((s) => s.entry);
}

/** The fixture's entries are all still there, unchanged, in order. */
async function expectFileIntact(sessionId: string, name: string): Promise<void> {
  const stored = await entries(sessionId);
  const original = fileEntries(name);
  expect(stored.slice(0, original.length)).toEqual(original);
}

/**
 * The export (resuming at Canopy's view leaf, D14) parses as a pi file, and the LLM view the
 * agent would build at its last line equals Canopy's context:get.
 */
async function expectExportMatches(sessionId: string): Promise<string> {
  const view = await h.call("context:get", { sessionId });
  const { text } = await h.call(
    "session:export",
    view.leafId === null ? { sessionId } : { sessionId, leafId: view.leafId },
  );
  const parsed = parseSessionText(text ?? "");
  expect(parsed.header).not.toBeNull();
  expect(parsed.malformed).toEqual([]);
  const list = parsed.entries.map((e) => e.entry);
  const last = list[list.length - 1]?.id ?? null;
  const exported = buildLlmView(list, last, contextTemplatesFrom(h.api.ctx.prompts));
  if (view.leafId !== null) expect(exported.messages).toEqual(view.messages);
  return JSON.stringify(exported.messages);
}

function firstOf(list: SessionEntry[], test: (e: SessionEntry) => boolean): SessionEntry {
  const found = list.find(test);
  if (!found) throw new Error("fixture has no such entry");
  return found;
}

const isUser = (e: SessionEntry) => e.type === "message" && (e.message as { role?: string }).role === "user";

describe.each(FIXTURES)("edits on %s", (name) => {
  it("edits a user message as a new branch, and undo/redo restore it exactly", async () => {
    const sessionId = await importFixture(name);
    const before = await h.snapshot(sessionId);
    const list = await entries(sessionId);
    const user = list.filter(isUser)[1] ?? firstOf(list, isUser);
    const result = await h.call("edits:edit-message", { sessionId, entryId: user.id, text: "edited text" });
    const after = await entries(sessionId);
    expect(after).toHaveLength(list.length + 1);
    const added = after[after.length - 1] as SessionEntry & { message: { content: unknown } };
    expect(added.id).toBe(result.entryId);
    expect(added.parentId).toBe(user.parentId);
    expect(JSON.stringify(added.message.content)).toContain("edited text");
    expect(result.viewLeafId).toBe(added.id);
    const view = await h.call("context:get", { sessionId });
    expect(JSON.stringify(view.messages[view.messages.length - 1])).toContain("edited text");
    await expectFileIntact(sessionId, name);
    expect(await expectExportMatches(sessionId)).toBeTypeOf("string");

    expect((await h.call("edits:undo", { sessionId })).operation).toBe("edit-message");
    expect(await h.snapshot(sessionId)).toEqual(before);
    await expectFileIntact(sessionId, name);
    expect((await h.call("edits:redo", { sessionId })).viewLeafId).toBe(added.id);
    expect(await entries(sessionId)).toEqual(after);
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("edit-message");
    expect((await h.call("edits:undo", { sessionId })).operation).toBeNull();
  });

  it("refuses to edit anything but a user or custom message", async () => {
    const sessionId = await importFixture(name);
    const list = await entries(sessionId);
    const assistant = firstOf(
      list,
      (e) => e.type === "message" && (e.message as { role?: string }).role === "assistant",
    );
    const error = await h.fail("edits:edit-message", { sessionId, entryId: assistant.id, text: "x" });
    expect(error.code).toBe("invalid_input");
    expect(error.message).toContain("only user and custom messages");
  });

  it("forks the path to an entry into a new session with labels carried; undo removes it", async () => {
    const sessionId = await importFixture(name);
    const list = await entries(sessionId);
    const detail = await h.call("session:get", { sessionId });
    const labelled = Object.keys(detail.labels);
    // The deepest-labelled target when there is one, else the view leaf.
    const target =
      labelled.find((id) => list.some((e) => e.id === id && e.type !== "label")) ??
      (detail.summary.viewLeafId as string);
    const result = await h.call("edits:fork", { sessionId, entryId: target });
    const forkId = result.forkSessionId as string;
    const sessions = await h.call("library:list", {});
    expect(sessions.map((s) => s.id)).toContain(forkId);
    const fork = await h.call("session:get", { sessionId: forkId });
    expect(fork.header.parentSession).toBe(sessionId);
    expect(fork.header.version).toBe(3);
    expect(fork.header.cwd).toBe(detail.header.cwd);
    const forkEntries = fork.entries.map((s) => s.entry);
    // The path without its label entries, then one fresh label entry per labelled path entry.
    const firstLabel = forkEntries.findIndex((e) => e.type === "label");
    const labels = firstLabel < 0 ? [] : forkEntries.slice(firstLabel);
    expect(labels.every((e) => e.type === "label" && !list.some((s) => s.id === e.id))).toBe(true);
    const pathIds = forkEntries.filter((e) => e.type !== "label").map((e) => e.id);
    expect(pathIds[pathIds.length - 1]).toBe(target);
    for (const id of pathIds) {
      expect(forkEntries.find((e) => e.id === id)).toEqual(list.find((e) => e.id === id));
      const label = detail.labels[id];
      if (label !== undefined) expect(fork.labels[id]).toBe(label);
    }
    // The fork's view equals the source's view at the entry.
    const forkView = await h.call("context:get", { sessionId: forkId });
    const sourceView = await h.call("context:get", { sessionId, leafId: target });
    expect(forkView.messages).toEqual(sourceView.messages);
    expect(await expectExportMatches(forkId)).toBe(JSON.stringify(forkView.messages));
    await expectFileIntact(sessionId, name);

    await h.call("edits:undo", { sessionId });
    expect((await h.call("library:list", {})).map((s) => s.id)).not.toContain(forkId);
    await h.call("edits:redo", { sessionId });
    expect((await h.call("session:get", { sessionId: forkId })).entries.map((s) => s.entry)).toEqual(
      forkEntries,
    );
  });

  it("undoes and redoes a compaction or branch summary through the view leaf", async () => {
    const sessionId = await importFixture(name);
    const list = await entries(sessionId);
    const summary = firstOf(list, (e) => e.type === "compaction" || e.type === "branch_summary");
    await h.call("session:set-view-leaf", { sessionId, leafId: summary.id });
    const withSummary = await h.call("context:get", { sessionId });
    const result = await h.call("edits:undo-summary", { sessionId, entryId: summary.id });
    expect(result.viewLeafId).toBe(summary.parentId);
    const without = await h.call("context:get", { sessionId });
    expect(without.compactionId === summary.id).toBe(false);
    expect(JSON.stringify(without.messages)).not.toEqual(JSON.stringify(withSummary.messages));
    expect(await entries(sessionId)).toEqual(list);
    expect((await h.call("edits:undo", { sessionId })).viewLeafId).toBe(summary.id);
    expect((await h.call("edits:redo", { sessionId })).viewLeafId).toBe(summary.parentId);
    const error = await h.fail("edits:undo-summary", { sessionId, entryId: firstOf(list, isUser).id });
    expect(error.code).toBe("invalid_input");
  });

  it("undo and redo of an undone summary leave a view leaf the user moved since where it is, as for other edits", async () => {
    const sessionId = await importFixture(name);
    const list = await entries(sessionId);
    const summary = firstOf(list, (e) => e.type === "compaction" || e.type === "branch_summary");
    const elsewhere = firstOf(list, isUser).id;
    await h.call("session:set-view-leaf", { sessionId, leafId: summary.id });
    await h.call("edits:undo-summary", { sessionId, entryId: summary.id });
    await h.call("session:set-view-leaf", { sessionId, leafId: elsewhere });
    const undone = await h.call("edits:undo", { sessionId });
    expect(undone.operation).toBe("undo-summary");
    expect(undone.viewLeafId).toBe(elsewhere);
    expect(undone.note).toBe(`The view leaf stays at ${elsewhere}, where it was moved since`);
    expect(undone.history.redo).toBe("undo-summary");
    // Redo: still moved, so it stays; back where the undo left it, it moves as it did.
    expect((await h.call("edits:redo", { sessionId })).viewLeafId).toBe(elsewhere);
    await h.call("session:set-view-leaf", { sessionId, leafId: summary.parentId as string });
    await h.call("edits:undo", { sessionId });
    expect((await h.call("context:get", { sessionId })).leafId).toBe(summary.id);
    const redone = await h.call("edits:redo", { sessionId });
    expect(redone.viewLeafId).toBe(summary.parentId);
    expect(redone.note).toBeUndefined();
  });

  it("renames in the library and writes the name as the dialect expects on export", async () => {
    const sessionId = await importFixture(name);
    await h.call("edits:rename", { sessionId, title: "My renamed session" });
    expect((await h.call("session:get", { sessionId })).summary.title).toBe("My renamed session");
    const { text } = await h.call("session:export", { sessionId });
    const parsed = parseSessionText(text ?? "");
    const dialect = (await h.call("session:get", { sessionId })).summary.dialect;
    if (dialect === "omp") expect(parsed.header?.title).toBe("My renamed session");
    else {
      const last = parsed.entries[parsed.entries.length - 1]?.entry as SessionEntry & { name?: string };
      expect(last.type).toBe("session_info");
      expect(last.name).toBe("My renamed session");
    }
    await expectExportMatches(sessionId);
    expect(readFileSync(fixturePath(name), "utf8")).not.toContain("My renamed session");
    await h.call("edits:undo", { sessionId });
    expect((await h.call("session:get", { sessionId })).summary.title).not.toBe("My renamed session");
    // Clearing a title that is not there changes nothing and leaves nothing to undo.
    const history = (await h.call("session:get", { sessionId })).history;
    const noop = await h.call("edits:rename", { sessionId, title: null });
    expect(noop.operation).toBeNull();
    expect(noop.history).toEqual(history);
  });

  it("labels from the canvas without moving the view leaf (D15); undo removes the label", async () => {
    const sessionId = await importFixture(name);
    const before = await h.snapshot(sessionId);
    const user = firstOf(await entries(sessionId), isUser);
    await h.call("edits:label", { sessionId, targetId: user.id, label: "start" });
    const detail = await h.call("session:get", { sessionId });
    expect(detail.labels[user.id]).toBe("start");
    expect(detail.summary.viewLeafId).toBe(before.viewLeafId);
    // The same label again appends nothing and adds no undo step.
    const again = await h.call("edits:label", { sessionId, targetId: user.id, label: "start" });
    expect(again.operation).toBeNull();
    expect((await h.call("session:get", { sessionId })).entries).toHaveLength(detail.entries.length);
    await expectExportMatches(sessionId);
    await h.call("edits:undo", { sessionId });
    expect(await h.snapshot(sessionId)).toEqual(before);
    // Clearing a label the entry does not have: nothing appended either.
    const clear = await h.call("edits:label", { sessionId, targetId: user.id, label: null });
    expect(clear.operation).toBeNull();
    expect(await h.snapshot(sessionId)).toEqual(before);
    await expectFileIntact(sessionId, name);
  });

  it("archives a subtree (confirm when it holds the view leaf), exports without it, and restores", async () => {
    const sessionId = await importFixture(name);
    const list = await entries(sessionId);
    const tree = await h.call("session:tree", { sessionId });
    const leaf = tree.viewLeafId as string;
    // The root (the fixtures have one) holds the view leaf: archiving it needs confirm.
    const holder = tree.nodes.find((n) => n.parentId === null)?.id as string;
    const refused = await h.fail("edits:archive", { sessionId, entryId: holder });
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain("view leaf");
    // A branch off the view leaf's path can be archived without confirmation.
    const nodesById = new Map(tree.nodes.map((n) => [n.id, n]));
    const pathIds = new Set<string>();
    for (let id: string | null = leaf; id !== null; id = nodesById.get(id)?.parentId ?? null) pathIds.add(id);
    const side = tree.nodes.find((n) => !pathIds.has(n.id) && n.parentId !== null && pathIds.has(n.parentId));
    if (side) {
      await h.call("edits:archive", { sessionId, entryId: side.id });
      const archivedTree = await h.call("session:tree", { sessionId });
      const archived = archivedTree.nodes.filter((n) => n.archived).map((n) => n.id);
      expect(archived).toContain(side.id);
      expect(archived.some((id) => pathIds.has(id))).toBe(false);
      const pruned = await h.call("session:export", { sessionId, withoutArchived: true });
      const prunedIds = parseSessionText(pruned.text ?? "").entries.map((e) => e.entry.id);
      for (const id of archived) expect(prunedIds).not.toContain(id);
      const full = parseSessionText((await h.call("session:export", { sessionId })).text ?? "");
      expect(full.entries.map((e) => e.entry)).toEqual(list);
      await h.call("edits:unarchive", { sessionId, entryId: side.id });
      expect((await h.call("session:tree", { sessionId })).nodes.some((n) => n.archived)).toBe(false);
      await h.call("edits:undo", { sessionId });
      expect((await h.call("session:tree", { sessionId })).nodes.filter((n) => n.archived).length).toBe(
        archived.length,
      );
      await h.call("edits:undo", { sessionId });
    }
    await h.call("edits:archive", { sessionId, entryId: holder, confirm: true });
    expect((await h.call("session:tree", { sessionId })).nodes.find((n) => n.id === holder)?.archived).toBe(
      true,
    );
    await h.call("edits:undo", { sessionId });
    expect((await h.call("session:tree", { sessionId })).nodes.some((n) => n.archived)).toBe(false);
    expect(await entries(sessionId)).toEqual(list);
  });
});

describe("undo stack", () => {
  it("undoes a sequence of edits in reverse order back to the imported state", async () => {
    const name = "tree-02.jsonl";
    const sessionId = await importFixture(name);
    const before = await h.snapshot(sessionId);
    const list = await entries(sessionId);
    const users = list.filter(isUser);
    const first = (users[2] ?? users[0]) as SessionEntry;
    const edit = await h.call("edits:edit-message", { sessionId, entryId: first.id, text: "one" });
    await h.call("edits:edit-message", { sessionId, entryId: edit.entryId as string, text: "two" });
    await h.call("edits:label", { sessionId, targetId: edit.entryId as string, label: "x" });
    await h.call("edits:rename", { sessionId, title: "renamed" });
    // The first edit has a child (the second edit): it cannot be removed before that one.
    for (const op of ["rename", "label", "edit-message", "edit-message"]) {
      expect((await h.call("edits:undo", { sessionId })).operation).toBe(op);
    }
    expect(await h.snapshot(sessionId)).toEqual(before);
    await expectFileIntact(sessionId, name);
  });

  it("undoing or redoing a label or an edit leaves a view leaf the user moved since where it is", async () => {
    const sessionId = await importFixture("tree-02.jsonl");
    const list = await entries(sessionId);
    const users = list.filter(isUser);
    const first = users[0] as SessionEntry;
    const other = users[2] as SessionEntry;
    await h.call("edits:label", { sessionId, targetId: first.id, label: "x" });
    await h.call("session:set-view-leaf", { sessionId, leafId: other.id });
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("label");
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(other.id);
    const third = users[3] as SessionEntry;
    await h.call("session:set-view-leaf", { sessionId, leafId: third.id });
    expect((await h.call("edits:redo", { sessionId })).operation).toBe("label");
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(third.id);
    // An edit moves the view leaf to the copy; once the user has moved on, undo leaves it there.
    const edit = await h.call("edits:edit-message", { sessionId, entryId: first.id, text: "one" });
    expect(edit.viewLeafId).toBe(edit.entryId);
    await h.call("session:set-view-leaf", { sessionId, leafId: other.id });
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("edit-message");
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(other.id);
    // Undone right away, the edit still takes the view leaf back to where it was.
    await h.call("edits:redo", { sessionId });
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(other.id);
    const again = await h.call("edits:edit-message", { sessionId, entryId: first.id, text: "two" });
    expect(again.viewLeafId).toBe(again.entryId);
    await h.call("edits:undo", { sessionId });
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(other.id);
  });

  it("says what undo and redo would do next, in every edit's result and in the session detail", async () => {
    const sessionId = await importFixture("tree-01.jsonl");
    const history = async () => (await h.call("session:get", { sessionId })).history;
    expect(await history()).toEqual({ undo: null, redo: null });
    const user = firstOf(await entries(sessionId), isUser);
    expect((await h.call("edits:label", { sessionId, targetId: user.id, label: "l" })).history).toEqual({
      undo: "label",
      redo: null,
    });
    expect((await h.call("edits:rename", { sessionId, title: "t" })).history).toEqual({
      undo: "rename",
      redo: null,
    });
    expect(await history()).toEqual({ undo: "rename", redo: null });
    expect((await h.call("edits:undo", { sessionId })).history).toEqual({ undo: "label", redo: "rename" });
    expect((await h.call("edits:undo", { sessionId })).history).toEqual({ undo: null, redo: "label" });
    expect(await history()).toEqual({ undo: null, redo: "label" });
    // Nothing to undo: the result says so and nothing changes.
    const none = await h.call("edits:undo", { sessionId });
    expect(none).toMatchObject({ operation: null, history: { undo: null, redo: "label" } });
    expect((await h.call("edits:redo", { sessionId })).history).toEqual({ undo: "label", redo: "rename" });
    const root = (await h.call("session:tree", { sessionId })).nodes.find((n) => n.parentId === null)
      ?.id as string;
    expect((await h.call("edits:archive", { sessionId, entryId: root, confirm: true })).history).toEqual({
      undo: "archive",
      redo: null,
    });
  });

  it("a rename shows in the library list and in search hits; clearing it falls back to the file's title", async () => {
    const sessionId = await importFixture("tree-01.omp.jsonl");
    const listed = async () => (await h.call("library:list", {})).find((s) => s.id === sessionId)?.title;
    const hitTitle = async () =>
      (await h.call("library:search", { query: "parser", limit: 500 })).hits.find(
        (hit) => hit.sessionId === sessionId,
      )?.sessionTitle;
    const original = await listed();
    expect(await hitTitle()).toBe(original);
    await h.call("edits:rename", { sessionId, title: "  Renamed in Canopy  " });
    expect(await listed()).toBe("Renamed in Canopy");
    expect(await hitTitle()).toBe("Renamed in Canopy");
    await h.call("edits:rename", { sessionId, title: null });
    expect(await listed()).toBe(original);
    expect(await hitTitle()).toBe(original);
  });

  it("a new edit clears the redo stack", async () => {
    const sessionId = await importFixture("tree-01.jsonl");
    await h.call("edits:rename", { sessionId, title: "a" });
    await h.call("edits:undo", { sessionId });
    await h.call("edits:rename", { sessionId, title: "b" });
    expect((await h.call("edits:redo", { sessionId })).operation).toBeNull();
  });
});

describe("CLI", () => {
  it("fork, archive, unarchive, rename and undo run the same handlers", async () => {
    const sessionId = await importFixture("tree-01.jsonl");
    const list = await entries(sessionId);
    const user = firstOf(list, isUser);
    const root = (list[0] as SessionEntry).id;
    h.close();
    const { out, err, run } = cliRecorder(h.dbPath);
    expect(await run("fork", sessionId, user.id)).toBe(0);
    const forkId = out.pop() as string;
    expect(forkId).toMatch(/\S/);
    expect(await run("rename", sessionId, "CLI title")).toBe(0);
    expect(await run("archive", sessionId, root)).toBe(1);
    expect(err.pop()).toContain("view leaf");
    expect(await run("archive", sessionId, root, "--yes")).toBe(0);
    expect(await run("unarchive", sessionId, root)).toBe(0);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid unarchive");
    expect(await run("undo", sessionId)).toBe(0);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid rename");
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid fork");
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("nothing to undo");
  });
});
