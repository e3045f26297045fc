// Issue 6: deleting a session from the library (never its file). A soft delete that undo, redo,
// restore and an explicit import of the very file reverse exactly — entries, view leaf, labels,
// archived branches, the undo stack; folder scans and the watcher leave a deleted session alone.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EventName } from "../../../core/api/contract.ts";
import type { SessionDetail, SessionTreeDto } from "../../../core/api/dto.ts";
import { type LibraryWatcher, startLibraryWatcher } from "../../../main/library/watch.ts";
import { listEntryRows } from "../../../main/store/repos/entries.ts";
import { getSessionRow } from "../../../main/store/repos/sessions.ts";
import { cliRecorder } from "../../helpers/cli.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

const UNIQUE = "zanzibarquux";

let h: Harness;
let watcher: LibraryWatcher | null = null;

beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  watcher?.close();
  watcher = null;
  h.close();
  removeDir(h.dir);
});

/** A fixture copied into the temp folder (so the test may append to it). */
function copyFixture(name: string, folder = h.dir): string {
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, name);
  fs.copyFileSync(fixturePath(name), file);
  return file;
}

async function importFile(file: string): Promise<string> {
  const report = await h.call("library:import", { path: file });
  const sessionId = report.files[0]?.sessionId;
  if (!sessionId) throw new Error(`import of ${file} failed: ${JSON.stringify(report.files[0])}`);
  return sessionId;
}

/** Raw rows of a session, read past the API (which no longer shows a deleted session). */
function storedRows(sessionId: string): { id: string | null; json: string }[] {
  const row = getSessionRow(h.api.ctx.db, sessionId);
  if (!row) throw new Error(`no row for ${sessionId}`);
  return listEntryRows(h.api.ctx.db, row.sid).map((r) => ({ id: r.id, json: r.json }));
}

const listedIds = async () => (await h.call("library:list", {})).map((s) => s.id);
const deletedIds = async () => (await h.call("library:list", { deleted: true })).map((s) => s.id);

/** Everything a user sees of a session: the detail (without the undo state) and the tree. */
async function view(
  sessionId: string,
): Promise<{ detail: Omit<SessionDetail, "history">; tree: Omit<SessionTreeDto, "history"> }> {
  // The undo/redo history is what changes; it is checked on its own.
  const { history: _history, ...detail } = await h.call("session:get", { sessionId });
  const { history: _treeHistory, ...tree } = await h.call("session:tree", { sessionId });
  return { detail, tree };
}

/** tree-02 with Canopy state on top: a moved view leaf, a label, an archived branch, a rename. */
async function preparedSession(): Promise<{ sessionId: string; file: string }> {
  const file = copyFixture("tree-02.jsonl");
  const sessionId = await importFile(file);
  const tree = await h.call("session:tree", { sessionId });
  const users = tree.nodes.filter((n) => n.kind === "user");
  const target = users[1] ?? users[0];
  if (!target) throw new Error("fixture has no user message");
  await h.call("session:set-view-leaf", { sessionId, leafId: target.id });
  await h.call("edits:label", { sessionId, targetId: target.id, label: "keep-me" });
  const leafPath = new Set<string>();
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  for (let id: string | null = target.id; id; id = byId.get(id)?.parentId ?? null) leafPath.add(id);
  const side = tree.nodes.find((n) => !leafPath.has(n.id) && n.parentId !== null && leafPath.has(n.parentId));
  if (!side) throw new Error("fixture has no side branch");
  await h.call("edits:archive", { sessionId, entryId: side.id });
  await h.call("edits:rename", { sessionId, title: "Before delete" });
  return { sessionId, file };
}

describe("library:delete", () => {
  it("hides the session from list, search and every session channel; undo brings back exactly everything", async () => {
    const { sessionId, file } = await preparedSession();
    const fileBytes = fs.readFileSync(file);
    const before = await view(sessionId);
    const rows = storedRows(sessionId);
    expect(before.detail.labels).toMatchObject({});
    expect(Object.values(before.detail.labels)).toContain("keep-me");
    expect(before.tree.nodes.some((n) => n.archived)).toBe(true);
    const hitsBefore = (await h.call("library:search", { query: "parser", limit: 500 })).hits;
    expect(hitsBefore.some((hit) => hit.sessionId === sessionId)).toBe(true);

    const deleted = await h.call("library:delete", { sessionId });
    expect(deleted.operation).toBe("delete");
    expect(deleted.history).toEqual({ undo: "delete", redo: null });
    expect(await listedIds()).not.toContain(sessionId);
    expect(await deletedIds()).toEqual([sessionId]);
    const listedDeleted = (await h.call("library:list", { deleted: true }))[0];
    expect(listedDeleted?.deletedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(listedDeleted?.title).toBe("Before delete");
    const hits = (await h.call("library:search", { query: "parser", limit: 500 })).hits;
    expect(hits.some((hit) => hit.sessionId === sessionId)).toBe(false);
    for (const channel of ["session:get", "session:tree", "context:get"] as const) {
      const error = await h.fail(channel, { sessionId });
      expect(error.code).toBe("not_found");
      expect(error.message).toContain("deleted from the library");
    }
    expect((await h.fail("edits:rename", { sessionId, title: "x" })).code).toBe("not_found");
    expect((await h.fail("library:delete", { sessionId })).code).toBe("not_found");
    // Nothing is lost in the library, and the file is untouched.
    expect(storedRows(sessionId)).toEqual(rows);
    expect(fs.readFileSync(file).equals(fileBytes)).toBe(true);

    const undone = await h.call("edits:undo", { sessionId });
    expect(undone.operation).toBe("delete");
    expect(undone.history).toEqual({ undo: "rename", redo: "delete" });
    expect(await listedIds()).toContain(sessionId);
    expect(await view(sessionId)).toEqual(before);
    expect(storedRows(sessionId)).toEqual(rows);
    const hitsAfter = (await h.call("library:search", { query: "parser", limit: 500 })).hits;
    expect(hitsAfter.filter((hit) => hit.sessionId === sessionId)).toEqual(
      hitsBefore.filter((hit) => hit.sessionId === sessionId),
    );
    // The undo stack survived the delete: the rename, then the archive come off next.
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("rename");
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("archive");
    expect(fs.readFileSync(file).equals(fileBytes)).toBe(true);
  });

  it("redo deletes again; restore is an operation undo reverses; restoring a listed session is refused", async () => {
    const { sessionId } = await preparedSession();
    await h.call("library:delete", { sessionId });
    await h.call("edits:undo", { sessionId });
    expect((await h.call("edits:redo", { sessionId })).operation).toBe("delete");
    expect(await listedIds()).not.toContain(sessionId);
    // While deleted, only the delete can be undone (redo has nothing).
    expect((await h.call("edits:redo", { sessionId })).operation).toBeNull();

    const restored = await h.call("library:restore", { sessionId });
    expect(restored.operation).toBe("restore");
    expect(restored.history.undo).toBe("restore");
    expect(await listedIds()).toContain(sessionId);
    expect((await h.fail("library:restore", { sessionId })).code).toBe("invalid_input");
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("restore");
    expect(await listedIds()).not.toContain(sessionId);
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("delete");
    expect(await listedIds()).toContain(sessionId);
    expect((await h.call("session:get", { sessionId })).summary.title).toBe("Before delete");
  });

  it("redo goes on past a delete and its restore: the edits undone after them are not lost", async () => {
    const { sessionId } = await preparedSession();
    await h.call("library:delete", { sessionId });
    await h.call("library:restore", { sessionId });
    const users = (await h.call("session:tree", { sessionId })).nodes.filter((n) => n.kind === "user");
    const edited = await h.call("edits:edit-message", {
      sessionId,
      entryId: (users[0] as { id: string }).id,
      text: "the words I typed",
    });
    const before = await view(sessionId);
    // Undo the edit, the restore (deleted again) and the delete; then redo them all.
    for (const kind of ["edit-message", "restore", "delete"]) {
      expect((await h.call("edits:undo", { sessionId })).operation).toBe(kind);
    }
    expect((await h.call("edits:redo", { sessionId })).operation).toBe("delete");
    expect((await h.call("edits:redo", { sessionId })).history.redo).toBe("edit-message");
    expect(await listedIds()).toContain(sessionId);
    expect((await h.call("edits:redo", { sessionId })).operation).toBe("edit-message");
    expect(await view(sessionId)).toEqual(before);
    expect(before.detail.summary.viewLeafId).toBe(edited.entryId);
  });

  it("back in the library (undo or restore), a session catches up with the lines its agent wrote meanwhile", async () => {
    const { sessionId, file } = await preparedSession();
    const rows = storedRows(sessionId);
    const lastId = rows.at(-1)?.id as string;
    const append = (id: string, parentId: string) =>
      fs.appendFileSync(
        file,
        `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-12-02T10:00:00.000Z", message: { role: "user", content: [{ type: "text", text: id }], timestamp: 1 } })}\n`,
      );
    await h.call("library:delete", { sessionId });
    append("while-deleted-1", lastId);
    expect(storedRows(sessionId)).toEqual(rows);
    await h.call("edits:undo", { sessionId });
    const afterUndo = storedRows(sessionId);
    expect(afterUndo.slice(0, rows.length)).toEqual(rows);
    expect(afterUndo.map((r) => r.id).slice(rows.length)).toEqual(["while-deleted-1"]);

    await h.call("edits:redo", { sessionId });
    append("while-deleted-2", "while-deleted-1");
    await h.call("library:restore", { sessionId });
    expect(
      storedRows(sessionId)
        .map((r) => r.id)
        .slice(rows.length),
    ).toEqual(["while-deleted-1", "while-deleted-2"]);
  });

  it("is refused while a chat turn runs for the session", async () => {
    const { sessionId } = await preparedSession();
    const job = h.api.ctx.jobs.start(sessionId, "chat");
    const error = await h.fail("library:delete", { sessionId });
    expect(error.code).toBe("conflict");
    expect(error.message).toContain("chat turn");
    h.api.ctx.jobs.finish(job);
    expect((await h.call("library:delete", { sessionId })).operation).toBe("delete");
  });
});

describe("a deleted session and imports", () => {
  it("a folder scan leaves it deleted (no new session either); importing its very file restores it with the new lines", async () => {
    const folder = path.join(h.dir, "agent");
    const file = copyFixture("tree-02.jsonl", folder);
    const other = path.join(folder, "other.jsonl");
    fs.writeFileSync(other, new SessionFile({ id: "other-session" }).user("o1", "other").text());
    const report = await h.call("library:import", { path: folder });
    const sessionId = report.files.find((f) => f.path === file)?.sessionId as string;
    expect(sessionId).toBeTruthy();
    const rowsBefore = storedRows(sessionId);
    await h.call("library:delete", { sessionId });

    // The agent goes on writing the file.
    const lastId = rowsBefore.at(-1)?.id as string;
    const line = {
      type: "message",
      id: "appended1",
      parentId: lastId,
      timestamp: "2026-12-02T10:00:00.000Z",
      message: { role: "user", content: [{ type: "text", text: `more ${UNIQUE}` }], timestamp: 1 },
    };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    const rescan = await h.call("library:import", { path: folder });
    const entry = rescan.files.find((f) => f.path === file);
    expect(entry?.status).toBe("skipped");
    expect(entry?.sessionId).toBeNull();
    expect(entry?.reason).toContain(`session ${sessionId} was deleted`);
    expect(rescan.skipped).toBe(1);
    expect(await listedIds()).toEqual(["other-session"]);
    expect(await deletedIds()).toEqual([sessionId]);
    expect((await h.call("library:search", { query: UNIQUE })).hits).toEqual([]);

    const explicit = await h.call("library:import", { path: file });
    expect(explicit.files[0]?.sessionId).toBe(sessionId);
    expect(explicit.files[0]?.reason).toContain("restored");
    expect(await deletedIds()).toEqual([]);
    expect((await listedIds()).sort()).toEqual(["other-session", sessionId].sort());
    const rowsAfter = storedRows(sessionId);
    expect(rowsAfter.slice(0, rowsBefore.length)).toEqual(rowsBefore);
    expect(rowsAfter.map((r) => r.id)).toContain("appended1");
    expect((await h.call("library:search", { query: UNIQUE })).hits[0]?.sessionId).toBe(sessionId);
    // The restore is an operation: undo deletes again.
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("restore");
    expect(await deletedIds()).toEqual([sessionId]);
  });

  it("the watcher neither re-imports nor announces a deleted session's file, but still follows the others", async () => {
    const folder = path.join(h.dir, "live");
    const deletedFile = path.join(folder, "deleted.jsonl");
    const keptFile = path.join(folder, "kept.jsonl");
    fs.mkdirSync(folder);
    fs.writeFileSync(deletedFile, new SessionFile({ id: "gone" }).user("g1", "one").text());
    fs.writeFileSync(keptFile, new SessionFile({ id: "kept" }).user("k1", "one").text());
    await h.call("library:import", { path: folder });
    await h.call("library:delete", { sessionId: "gone" });
    const seen: { name: EventName; ids: string[] }[] = [];
    h.api.ctx.events.subscribe((name, payload) => {
      const ids =
        "sessionIds" in payload ? payload.sessionIds : "sessionId" in payload ? [payload.sessionId] : [];
      seen.push({ name, ids: ids as string[] });
    });
    watcher = startLibraryWatcher(h.api.ctx, {
      debounceMs: 30,
      maxWaitMs: 200,
      agentFolders: () => [],
      log: () => {},
    });
    const before = storedRows("gone");
    const append = (file: string, id: string, parent: string) =>
      fs.appendFileSync(
        file,
        `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-02-01T11:00:00.000Z", message: { role: "user", content: [{ type: "text", text: id }], timestamp: 2 } })}\n`,
      );
    append(deletedFile, "g2", "g1");
    append(keptFile, "k2", "k1");
    await vi.waitFor(() => expect(storedRows("kept").map((r) => r.id)).toContain("k2"), {
      timeout: 5000,
      interval: 25,
    });
    // Give the deleted file's own debounce time to pass too.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(storedRows("gone")).toEqual(before);
    expect(seen.some((e) => e.ids.includes("gone"))).toBe(false);
    expect(await listedIds()).toEqual(["kept"]);
  });
});

describe("CLI delete, undelete, undo, redo, label", () => {
  it("runs the same handlers, with list --deleted to find what undelete brings back", async () => {
    const { sessionId } = await preparedSession();
    const tree = await h.call("session:tree", { sessionId });
    const entryId = tree.nodes.find((n) => n.kind === "user")?.id as string;
    h.close();
    const { out, err, run } = cliRecorder(h.dbPath);

    expect(await run("list", "--deleted")).toBe(0);
    expect(out.pop()).toBe("No deleted sessions.");
    expect(await run("delete", sessionId)).toBe(0);
    expect(out.pop()).toContain(`deleted ${sessionId}`);
    expect(await run("list", "--json")).toBe(0);
    expect(JSON.parse(out.pop() as string)).toEqual([]);
    expect(await run("show", sessionId)).toBe(1);
    expect(err.pop()).toContain(`session ${sessionId} is deleted from the library`);
    expect(await run("list", "--deleted", "--json")).toBe(0);
    expect(JSON.parse(out.pop() as string).map((s: { id: string }) => s.id)).toEqual([sessionId]);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid delete");
    expect(await run("redo", sessionId)).toBe(0);
    expect(out.pop()).toBe("redid delete");
    expect(await run("undelete", "some/file.jsonl")).toBe(2);
    expect(err.pop()).toContain("canopy import some/file.jsonl");
    expect(await run("undelete", "no-such-id")).toBe(1);
    expect(err.pop()).toContain("list --deleted");
    expect(await run("undelete", sessionId.slice(0, 8))).toBe(0);
    expect(out.pop()).toBe(`restored ${sessionId}`);
    expect(await run("undelete", sessionId)).toBe(1);

    expect(await run("label", sessionId, entryId, "from-cli")).toBe(0);
    expect(out.pop()).toBe(`labelled ${entryId}`);
    expect(await run("show", sessionId)).toBe(0);
    expect(out.pop()).toContain("from-cli");
    expect(await run("label", sessionId, entryId)).toBe(0);
    expect(out.pop()).toBe(`cleared the label of ${entryId}`);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid label");
    expect(await run("redo", sessionId, "--json")).toBe(0);
    const redone = JSON.parse(out.pop() as string);
    expect(redone.operation).toBe("label");
    expect(redone.history).toEqual({ undo: "label", redo: null });
    expect(await run("redo", sessionId)).toBe(0);
    expect(out.pop()).toBe("nothing to redo");
    expect(await run("rename", sessionId)).toBe(0);
    expect(out.pop()).toBe(`cleared the title of ${sessionId}`);
    // Again: nothing to clear, nothing recorded (undo still undoes the rename above).
    expect(await run("rename", sessionId)).toBe(0);
    expect(out.pop()).toBe(`nothing changed: ${sessionId} has no title of Canopy's to clear`);
    expect(await run("label", sessionId, entryId, "from-cli")).toBe(0);
    expect(await run("label", sessionId, entryId, "from-cli")).toBe(0);
    expect(out.pop()).toBe(`nothing changed: ${entryId} already has that label`);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid label");
    expect(await run("label", sessionId, entryId)).toBe(0);
    expect(out.pop()).toBe(`nothing changed: ${entryId} has no label`);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toBe("undid rename");
  });
});
