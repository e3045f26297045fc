// A large live session file rewritten before its old end (not only appended to) needs its full
// re-import. The watcher, the export guard and restore hand it to the import runner's thread
// (live-reimport.ts) instead of importing it on the serving thread: that thread reads none of the
// file and answers other requests meanwhile, and what is stored, reported and exported is what
// the old route (importLiveFile on the calling thread) gives.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ImportedFileReport } from "../../../core/api/dto.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { exportSession } from "../../../main/library/export.ts";
import { importPath } from "../../../main/library/import.ts";
import { importLiveFile } from "../../../main/library/import-live.ts";
import { IN_PLACE_BYTES } from "../../../main/library/import-runner.ts";
import { reimportLive } from "../../../main/library/live-reimport.ts";
import { loadMalformedLines, loadStoredEntries } from "../../../main/library/load.ts";
import { startLibraryWatcher } from "../../../main/library/watch.ts";
import { type Database, openDatabase } from "../../../main/store/open.ts";
import { findSessionsByPath, type SessionRow } from "../../../main/store/repos/sessions.ts";
import { makeTempDir } from "../store/helpers.ts";
import { ownClockMs } from "../../helpers/own-clock.ts";
import { writeBigSession } from "../../helpers/live-file.ts";
import { serveWhile } from "../../helpers/serve-while.ts";

const ENTRIES = 5000;

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let api: Api;
/** A second library that imported the same file: the old route runs there. */
let other: Database;
let file: string;
let sessionId: string;

/** What an agent's rewrite does: a line in the middle made longer, then one line appended. */
function rewrite(): void {
  const text = fs.readFileSync(file, "utf8");
  expect(text.includes("assistant 2501 ")).toBe(true);
  const entry = {
    type: "message",
    id: "after-rewrite",
    parentId: `e${ENTRIES - 1}`,
    timestamp: "2026-03-01T11:00:00.000Z",
    message: { role: "user", content: [{ type: "text", text: "appended after the rewrite" }], timestamp: 2 },
  };
  fs.writeFileSync(
    file,
    `${text.replace("assistant 2501 ", "assistant 2501 (edited) ")}${JSON.stringify(entry)}\n`,
  );
}

/** The session as stored in `db`: its row (but keys and times), entries, malformed lines. */
function stored(db: Database) {
  const { sid, imported_at, updated_at, ...row } = findSessionsByPath(
    db,
    fs.realpathSync(file),
  )[0] as SessionRow;
  void [sid, imported_at, updated_at];
  return { row, entries: loadStoredEntries(db, sessionId), malformed: loadMalformedLines(db, sessionId) };
}

/** The old route on the other library: the full import on the calling thread. */
function oldRoute(): ImportedFileReport {
  return importLiveFile(other, file).report;
}

/** Bytes read synchronously from files on this thread while `fn` runs (the runner's thread is not counted). */
async function syncBytesReadBy(fn: () => Promise<void>): Promise<number> {
  const readSync = vi.spyOn(fs, "readSync");
  const readFileSync = vi.spyOn(fs, "readFileSync");
  try {
    await fn();
    return (
      readSync.mock.results.reduce((sum, r) => sum + (r.type === "return" ? (r.value as number) : 0), 0) +
      readFileSync.mock.results.reduce(
        (sum, r) => sum + (r.type === "return" ? Buffer.byteLength(r.value as Buffer | string) : 0),
        0,
      )
    );
  } finally {
    readSync.mockRestore();
    readFileSync.mockRestore();
  }
}

beforeEach(() => {
  tmp = makeTempDir("canopy-live-rewrite-");
  file = path.join(tmp.dir, "agent", "big.jsonl");
  fs.mkdirSync(path.dirname(file));
  writeBigSession(file, ENTRIES);
  expect(fs.statSync(file).size).toBeGreaterThan(IN_PLACE_BYTES);
  ctx = createAppContext({
    dbPath: path.join(tmp.dir, "library.db"),
    seedDemo: false,
    loadUserHooks: false,
    importThread: true,
  });
  api = createApi(ctx);
  sessionId = importPath(ctx.db, file).files[0]?.sessionId as string;
  expect(sessionId).toBe("big-1");
  other = openDatabase(path.join(tmp.dir, "other.db"));
  expect(importPath(other, file).files[0]?.sessionId).toBe(sessionId);
});

afterEach(async () => {
  await ctx.imports.close();
  ctx.db.close();
  other.close();
  tmp.cleanup();
});

describe("a large live file rewritten before its old end", () => {
  it("is imported on the runner's thread: this thread reads none of it and answers meanwhile; report and session equal the old route", async () => {
    rewrite();
    let report: ImportedFileReport | undefined;
    let served = { sawRunner: false, answeredMeanwhile: false };
    const bytes = await syncBytesReadBy(async () => {
      const reimport = reimportLive(ctx.db, ctx.imports, file).then((done) => {
        report = done?.report;
      });
      served = await serveWhile(api, () => report !== undefined, "the re-import");
      await reimport;
    });
    expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    expect(bytes).toBeLessThan(fs.statSync(file).size / 10);
    const old = oldRoute();
    expect(old.problems.map((p) => p.kind)).toContain("file_rewritten");
    expect(report).toEqual(old);
    expect(stored(ctx.db)).toEqual(stored(other));
  });

  it("the watcher re-imports it on the runner's thread and announces it", async () => {
    const heard: string[] = [];
    ctx.events.subscribe((name) => heard.push(name));
    const logged: string[] = [];
    const watcher = startLibraryWatcher(ctx, {
      debounceMs: 20,
      maxWaitMs: 200,
      agentFolders: () => [],
      log: (line) => logged.push(line),
    });
    try {
      rewrite();
      const served = await serveWhile(api, () => heard.includes("session:changed"), "the re-import");
      expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    } finally {
      watcher.close();
    }
    oldRoute();
    expect(stored(ctx.db)).toEqual(stored(other));
    expect(logged).toEqual([]);
  });

  it("an export re-imports it first on the runner's thread: the same text and count as the old route", async () => {
    rewrite();
    let answer: Awaited<ReturnType<typeof api.call<"session:export">>> | undefined;
    const exporting = api.call("session:export", { sessionId }).then((result) => {
      answer = result;
    });
    const served = await serveWhile(api, () => answer !== undefined, "the re-import");
    await exporting;
    expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    const old = oldRoute();
    expect(answer?.ok && answer.value).toMatchObject({
      text: exportSession(other, sessionId).text,
      reimportedEntries: old.entriesAdded,
    });
  });

  it("restoring a deleted session catches up with the rewrite on the runner's thread", async () => {
    expect((await api.call("library:delete", { sessionId })).ok).toBe(true);
    rewrite();
    let restored = false;
    const restoring = api.call("library:restore", { sessionId }).then((result) => {
      restored = result.ok;
    });
    const served = await serveWhile(api, () => restored, "the restore");
    await restoring;
    expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    oldRoute();
    const { row, ...rest } = stored(ctx.db);
    const { row: oldRow, ...oldRest } = stored(other);
    expect(rest).toEqual(oldRest);
    expect({ ...row, deleted_at: null }).toEqual(oldRow);
  });

  it("a label sent while the runner's re-import holds the library's write lock waits for it without holding this thread up", async () => {
    rewrite();
    // A second connection that tells, without waiting, whether another one holds the write lock.
    const probe = openDatabase(path.join(tmp.dir, "library.db"));
    probe.pragma("busy_timeout = 0");
    const lockHeld = () => {
      try {
        probe.exec("BEGIN IMMEDIATE");
        probe.exec("ROLLBACK");
        return false;
      } catch (error) {
        void error;
        return true;
      }
    };
    try {
      let exported = false;
      const exporting = api.call("session:export", { sessionId }).then((result) => {
        exported = result.ok;
      });
      await vi.waitFor(() => expect(lockHeld()).toBe(true), { timeout: 20_000, interval: 1 });
      const sent = ownClockMs();
      const labelling = api.call("edits:label", { sessionId, targetId: "e10", label: "while rewritten" });
      // The time the request held this thread before its first await: every other request's wait
      // (on its own clock: not the time it waited for a CPU while other processes ran).
      const heldMs = ownClockMs() - sent;
      const labelled = await labelling;
      await exporting;
      expect(exported).toBe(true);
      expect(labelled.ok).toBe(true);
      expect(heldMs).toBeLessThan(50);
      const tree = await api.call("session:tree", { sessionId });
      expect(tree.ok && tree.value.nodes.find((node) => node.id === "e10")?.label).toBe("while rewritten");
    } finally {
      probe.close();
    }
  });

  it("Canopy closing while the re-import runs: the export fails in one line", async () => {
    // The runner's thread started (one that never started imports in place instead).
    expect((await ctx.imports.run(file)).unchanged).toBe(1);
    rewrite();
    const exporting = api.call("session:export", { sessionId });
    await vi.waitFor(() => expect(ctx.imports.busy).toBe(true), { timeout: 10_000, interval: 1 });
    await ctx.imports.close();
    const answer = await exporting;
    expect(answer.ok).toBe(false);
    if (!answer.ok) {
      expect(answer.error.message).toMatch(/^The import stopped: Canopy is closing$/);
    }
  });
});
