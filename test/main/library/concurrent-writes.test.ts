// Requests that write the same session at the same time: the serving thread's live re-import
// (export guard, restore) while another connection (the import runner's thread in a folder
// import, a CLI) stores the same file's new lines, and a restore whose catch-up with its file is
// still running when the session is deleted again. Real SQLite, real files, real handlers.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startLibraryWatcher } from "../../../main/library/watch.ts";
import { getSessionRow } from "../../../main/store/repos/sessions.ts";
import { listEntryRows } from "../../../main/store/repos/entries.ts";
import { exportChunks, writeChunks } from "../../../main/library/export-lines.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { appendUserLine, makeOld } from "../../helpers/live-file.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
let source: string;

beforeEach(() => {
  h = createHarness();
  source = path.join(h.dir, "agent", "session.jsonl");
  fs.mkdirSync(path.dirname(source));
  fs.writeFileSync(
    source,
    new SessionFile({ id: "same-1" }).user("u1", "hello").assistant("a1", "hi").text(),
  );
  makeOld(source);
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

/** The ids stored for the session, with how many rows hold each (read past the API). */
function storedIdCounts(sessionId: string): Map<string, number> {
  const row = getSessionRow(h.api.ctx.db, sessionId);
  if (!row) throw new Error(`no row for ${sessionId}`);
  const counts = new Map<string, number>();
  for (const r of listEntryRows(h.api.ctx.db, row.sid))
    counts.set(r.id ?? "", (counts.get(r.id ?? "") ?? 0) + 1);
  return counts;
}

const HELD_IMPORT = fileURLToPath(new URL("../../helpers/held-import-worker.ts", import.meta.url));

/**
 * Another connection imports `file` (held-import-worker.ts); resolves once it holds its rows
 * uncommitted for `holdMs` (0: once it starts the import), with a promise of its commit.
 */
async function importElsewhere(file: string, holdMs: number): Promise<{ committed: Promise<void> }> {
  const worker = new Worker(HELD_IMPORT, { workerData: { dbPath: h.dbPath, file, holdMs } });
  const heard = (kind: string) =>
    new Promise<void>((resolve, reject) => {
      worker.on("message", (message: { kind: string }) => {
        if (message.kind === kind) resolve();
      });
      worker.on("error", reject);
    });
  const committed = heard("committed");
  await heard(holdMs > 0 ? "holding" : "starting");
  return { committed: committed.finally(() => worker.terminate()) };
}

describe("two connections storing the same file's new lines", () => {
  it("an export's re-import while another connection's import of the tail is not committed yet stores each line once", async () => {
    const { sessionId } = (await h.call("library:import", { path: source })).files[0] as {
      sessionId: string;
    };
    appendUserLine(source, "u2", "a1");
    appendUserLine(source, "u3", "u2");
    makeOld(source);
    const other = await importElsewhere(source, 600);
    const out = path.join(h.dir, "out.jsonl");
    const exported = await h.call("session:export", { sessionId, outPath: out });
    await other.committed;
    const counts = storedIdCounts(sessionId);
    expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(counts.get("u2")).toBe(1);
    expect(counts.get("u3")).toBe(1);
    const summary = (await h.call("session:get", { sessionId })).summary;
    expect(summary.entryCount).toBe(4);
    expect(exported.lines).toBe(5);
  });

  it("a label stored while another connection imports the file's new lines keeps its place in the session's figures", async () => {
    const { sessionId } = (await h.call("library:import", { path: source })).files[0] as {
      sessionId: string;
    };
    appendUserLine(source, "u2", "a1");
    appendUserLine(source, "u3", "u2");
    makeOld(source);
    const { db } = h.api.ctx;
    // The import's WAL checkpoint (a timer) runs first: it cannot run inside the transaction below.
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The label's transaction stays open while the other connection reads the session and waits
    // for the write lock, as a label does when it commits in the middle of another's import.
    db.exec("BEGIN IMMEDIATE");
    let other: { committed: Promise<void> };
    try {
      await h.call("edits:label", { sessionId, targetId: "u1", label: "mine" });
      other = await importElsewhere(source, 0);
      await new Promise((resolve) => setTimeout(resolve, 400));
    } finally {
      db.exec("COMMIT");
    }
    await other.committed;
    const counts = storedIdCounts(sessionId);
    expect(counts.get("u2")).toBe(1);
    const summary = (await h.call("session:get", { sessionId })).summary;
    // The header's two entries, the two appended and the label.
    expect(summary.entryCount).toBe(5);
    expect(summary.messageCount).toBe(4);
  });
});

describe("a restore whose catch-up with its file is still running", () => {
  /** A deleted session whose file gained lines since (its catch-up awaits the file's prefix hash). */
  async function deletedAndGrown(): Promise<string> {
    const { sessionId } = (await h.call("library:import", { path: source })).files[0] as {
      sessionId: string;
    };
    await h.call("library:delete", { sessionId });
    appendUserLine(source, "u2", "a1");
    makeOld(source);
    return sessionId;
  }

  it("library:restore and a library:delete sent meanwhile both succeed, in that order", async () => {
    const sessionId = await deletedAndGrown();
    const restoring = h.api.call("library:restore", { sessionId });
    const deleting = h.api.call("library:delete", { sessionId });
    const [restored, deleted] = await Promise.all([restoring, deleting]);
    expect(restored).toMatchObject({ ok: true, value: { operation: "restore" } });
    expect(deleted).toMatchObject({ ok: true, value: { operation: "delete" } });
    expect(getSessionRow(h.api.ctx.db, sessionId)?.deleted_at).not.toBeNull();
    // Back in the library, the session has the line its agent wrote, once.
    await h.call("edits:undo", { sessionId });
    expect(storedIdCounts(sessionId).get("u2")).toBe(1);
    expect((await h.call("session:get", { sessionId })).summary.entryCount).toBe(3);
  });

  it("undo of the delete and a redo sent meanwhile both succeed, in that order", async () => {
    const sessionId = await deletedAndGrown();
    const undoing = h.api.call("edits:undo", { sessionId });
    const redoing = h.api.call("edits:redo", { sessionId });
    const [undone, redone] = await Promise.all([undoing, redoing]);
    expect(undone).toMatchObject({ ok: true, value: { operation: "delete" } });
    expect(redone).toMatchObject({ ok: true, value: { operation: "delete", history: { undo: "delete" } } });
    expect(getSessionRow(h.api.ctx.db, sessionId)?.deleted_at).not.toBeNull();
  });
});

describe("the watcher's re-import of a file whose session is deleted meanwhile", () => {
  it("announces the library change without a session:changed for it, and logs nothing", async () => {
    const { sessionId } = (await h.call("library:import", { path: source })).files[0] as {
      sessionId: string;
    };
    const heard: { name: string; sessionId?: string }[] = [];
    h.api.ctx.events.subscribe((name, payload) => {
      heard.push({
        name,
        ...(name === "session:changed" ? { sessionId: (payload as { sessionId: string }).sessionId } : {}),
      });
    });
    // The delete comes while the watcher's re-import waits for the file (its prefix hash, read
    // asynchronously): as a request the serving thread answers meanwhile.
    const realSource = fs.realpathSync(source);
    const open = fs.promises.open;
    const spy = vi.spyOn(fs.promises, "open").mockImplementation((file, ...rest) => {
      if (file === realSource && heard.every((e) => e.name !== "deleted")) {
        heard.push({ name: "deleted" });
        void h.api.call("library:delete", { sessionId });
      }
      return open(file, ...rest);
    });
    const logged: string[] = [];
    const watcher = startLibraryWatcher(h.api.ctx, {
      debounceMs: 20,
      maxWaitMs: 200,
      agentFolders: () => [],
      log: (message) => logged.push(message),
    });
    try {
      appendUserLine(source, "u2", "a1");
      const until = Date.now() + 10_000;
      while (!heard.some((e) => e.name === "library:changed" && heard.some((d) => d.name === "deleted"))) {
        if (Date.now() > until) throw new Error(`no re-import heard: ${JSON.stringify(heard)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Past the re-import's announcement (its library:changed comes first).
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      watcher.close();
      spy.mockRestore();
    }
    expect(logged).toEqual([]);
    // The delete's own announcement only: the re-import does not tell windows to show it.
    const afterDelete = heard.slice(heard.findIndex((e) => e.name === "deleted"));
    expect(afterDelete.filter((e) => e.name === "session:changed" && e.sessionId === sessionId)).toHaveLength(
      1,
    );
    expect(getSessionRow(h.api.ctx.db, sessionId)?.deleted_at).not.toBeNull();
  });
});

describe("an export while the runner's thread re-imports a rewritten file", () => {
  it("re-imports its own file's new lines once that import is over (its write lock held nothing up)", async () => {
    const { sessionId } = (await h.call("library:import", { path: source })).files[0] as {
      sessionId: string;
    };
    appendUserLine(source, "u2", "a1");
    makeOld(source);
    // Held as reimportLive holds it while the runner imports another session's rewritten file.
    let end = () => {};
    h.api.ctx.writes.hold(new Promise<void>((resolve) => (end = resolve)));
    let answered = false;
    const exporting = h.api.call("session:export", { sessionId }).then((result) => {
      answered = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    expect(storedIdCounts(sessionId).get("u2")).toBeUndefined();
    end();
    const exported = await exporting;
    expect(exported).toMatchObject({ ok: true, value: { reimportedEntries: 1 } });
    expect(storedIdCounts(sessionId).get("u2")).toBe(1);
  });
});

describe("an export read on another connection while this one writes the session", () => {
  it("without archived branches: an entry added below an archived one meanwhile is left out with it", async () => {
    fs.writeFileSync(
      source,
      new SessionFile({ id: "same-1" })
        .user("u1", "hello")
        .assistant("a1", "hi")
        .user("x1", "a side question", "a1")
        .user("u2", "go on", "a1")
        .assistant("a2", "going")
        .text(),
    );
    makeOld(source);
    const { sessionId } = (await h.call("library:import", { path: source })).files[0] as {
      sessionId: string;
    };
    await h.call("edits:archive", { sessionId, entryId: "x1" });
    // The export as the import runner's thread makes it: its own connection, the chunks taken after
    // the checks (the output file is opened in between), while this connection stores an append.
    const runner = openDatabase(h.dbPath);
    try {
      const chunks = exportChunks(runner, sessionId, { withoutArchived: true });
      appendUserLine(source, "x2", "x1");
      makeOld(source);
      expect((await h.call("library:import", { path: source })).files[0]?.entriesAdded).toBe(1);
      const parts: string[] = [];
      writeChunks(chunks, (chunk) => parts.push(chunk));
      const exported = parts
        .join("")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { type: string; id?: string; parentId?: string | null });
      const ids = new Set(exported.map((entry) => entry.id));
      expect(
        exported.filter((e) => e.type !== "session" && e.parentId != null && !ids.has(e.parentId)),
      ).toEqual([]);
      expect([...ids].filter((id) => id?.startsWith("x"))).toEqual([]);
    } finally {
      runner.close();
    }
  });
});
