// Live re-import of a large session file its agent appends to (import-live.ts, used by the
// watcher and the export guard): an append reads the new bytes, not the whole file, and keeps the
// stored hashes and list figures exact; rewrites (shorter or longer lines, another file in its
// place, a byte changed in place) are still caught and merged; a cut-off last line still works.
// The first live re-import after start (no memo yet) hashes the prefix in the background
// (seedLiveMemo) instead of reading the whole file on the serving thread, and stores what the
// full import stored.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AppContext } from "../../../main/api/types.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { importPath } from "../../../main/library/import.ts";
import { CHECK_BLOCK_BYTES, importLiveFile } from "../../../main/library/import-live.ts";
import { needsLiveSeed, SEED_SLICE_BYTES, seedLiveMemo } from "../../../main/library/live-seed.ts";
import { refreshLiveSource } from "../../../main/library/live-source.ts";
import { loadMalformedLines, loadStoredEntries } from "../../../main/library/load.ts";
import { checkpointWal, type Database, openDatabase } from "../../../main/store/open.ts";
import { computeSessionStats } from "../../../main/library/stats.ts";
import { startLibraryWatcher } from "../../../main/library/watch.ts";
import { findSessionsByPath, type SessionRow } from "../../../main/store/repos/sessions.ts";
import { writeBigSession } from "../../helpers/live-file.ts";
import { makeTempDir } from "../store/helpers.ts";

const ENTRIES = 5000;

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let file: string;
let sessionId: string;
let leaf: string;
let appended = 0;

/** One complete line as the agent appends it, child of the last appended entry. */
function appendLine(): string {
  const id = `new${++appended}`;
  const entry = {
    type: "message",
    id,
    parentId: leaf,
    timestamp: "2026-03-01T11:00:00.000Z",
    message: { role: "user", content: [{ type: "text", text: `appended ${id}` }], timestamp: 2 },
  };
  fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
  leaf = id;
  return id;
}

const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");
const row = (): SessionRow => findSessionsByPath(ctx.db, fs.realpathSync(file))[0] as SessionRow;

/**
 * Bytes read from files (fs.readSync and fs.readFileSync) and rows fetched with Statement.all
 * from the library while `fn` runs; the calls are passed through, only counted.
 */
function readsBy(fn: () => Promise<void>): Promise<{ bytes: number; rows: number }>;
function readsBy(fn: () => void): { bytes: number; rows: number };
function readsBy(
  fn: () => void | Promise<void>,
): { bytes: number; rows: number } | Promise<{ bytes: number; rows: number }> {
  const statement = Object.getPrototypeOf(ctx.db.prepare("SELECT 1")) as {
    all(...args: unknown[]): unknown[];
  };
  const reads = countSyncReads();
  const all = vi.spyOn(statement, "all");
  const count = () => {
    const rows = all.mock.results.reduce(
      (sum, r) => sum + (r.type === "return" ? (r.value as unknown[]).length : 0),
      0,
    );
    return { bytes: reads.bytes(), rows };
  };
  const restore = () => {
    reads.restore();
    all.mockRestore();
  };
  try {
    const running = fn();
    if (running instanceof Promise) {
      return running.then(count).finally(restore);
    }
    const counted = count();
    restore();
    return counted;
  } catch (error) {
    restore();
    throw error;
  }
}

/** Counts the bytes read synchronously from files (fs.readSync, fs.readFileSync) until restored. */
function countSyncReads(): { bytes(): number; restore(): void } {
  const readSync = vi.spyOn(fs, "readSync");
  const readFileSync = vi.spyOn(fs, "readFileSync");
  return {
    bytes: () =>
      readSync.mock.results.reduce((sum, r) => sum + (r.type === "return" ? (r.value as number) : 0), 0) +
      readFileSync.mock.results.reduce(
        (sum, r) => sum + (r.type === "return" ? Buffer.byteLength(r.value as Buffer | string) : 0),
        0,
      ),
    restore: () => {
      readSync.mockRestore();
      readFileSync.mockRestore();
    },
  };
}

/** The app's watcher on this library, quick to react; `log` collects its one-line reports. */
function startQuickWatcher(log: (message: string) => void = () => {}) {
  return startLibraryWatcher(ctx, { debounceMs: 20, maxWaitMs: 200, agentFolders: () => [], log });
}

const bytesReadBy = (fn: () => void): number => readsBy(fn).bytes;

/** The stored state agrees with the file: its hashes, size, and figures a full recount gives. */
function expectExact(): void {
  const bytes = fs.readFileSync(file);
  const r = row();
  expect(r.file_hash).toBe(sha256(bytes));
  expect(r.imported_bytes).toBe(bytes.lastIndexOf(0x0a) + 1);
  expect(r.imported_hash).toBe(sha256(bytes.subarray(0, r.imported_bytes)));
  const { patch } = computeSessionStats(ctx.db, r.sid);
  expect(Object.fromEntries(Object.keys(patch).map((k) => [k, r[k as keyof SessionRow]]))).toEqual(patch);
}

beforeEach(() => {
  tmp = makeTempDir("canopy-live-append-");
  file = path.join(tmp.dir, "agent", "big.jsonl");
  fs.mkdirSync(path.dirname(file));
  leaf = writeBigSession(file, ENTRIES);
  appended = 0;
  ctx = createAppContext({ dbPath: path.join(tmp.dir, "library.db"), seedDemo: false, loadUserHooks: false });
  sessionId = importPath(ctx.db, file).files[0]?.sessionId as string;
  expect(sessionId).toBe("big-1");
});

afterEach(() => {
  ctx.db.close();
  tmp.cleanup();
});

/** The first live re-import since start reads the whole file once; later appends need not. */
function firstLiveAppend(): void {
  appendLine();
  expect(importLiveFile(ctx.db, file).report.entriesAdded).toBe(1);
}

describe("live append to a large session file", () => {
  it("reads only the new bytes (not the ~10 MB file) and rows (not every stored entry); hashes and figures stay exact", async () => {
    const size = fs.statSync(file).size;
    appendLine();
    expect((await refreshLiveSource(ctx, sessionId))?.entriesAdded).toBe(1);
    for (let i = 0; i < 3; i++) {
      const id = appendLine();
      let live: Awaited<ReturnType<typeof refreshLiveSource>> = null;
      const reads = await readsBy(async () => {
        live = await refreshLiveSource(ctx, sessionId);
      });
      expect(live).toMatchObject({ grew: true, entriesAdded: 1 });
      // Two 64 kB windows, one check block, the new line: far less than the file.
      expect(reads.bytes).toBeLessThan(CHECK_BLOCK_BYTES + 256 * 1024);
      expect(reads.bytes).toBeLessThan(size / 5);
      // The list figures come from the new row, not from a scan of the 5,000 stored ones.
      expect(reads.rows).toBeLessThan(50);
      expect(loadStoredEntries(ctx.db, sessionId).at(-1)?.entry).toMatchObject({
        id,
        parentId: `new${appended - 1}`,
      });
      expectExact();
    }
  });

  it("the watcher re-imports an append to a large file without reading all of it", async () => {
    const seen: string[] = [];
    ctx.events.subscribe((name) => seen.push(name));
    const watcher = startQuickWatcher();
    try {
      appendLine();
      await vi.waitFor(() => expect(row().entry_count).toBe(ENTRIES + 1), { timeout: 5000, interval: 20 });
      const reads = countSyncReads();
      try {
        appendLine();
        await vi.waitFor(() => expect(row().entry_count).toBe(ENTRIES + 2), { timeout: 5000, interval: 20 });
        const bytes = reads.bytes();
        expect(bytes).toBeLessThan(fs.statSync(file).size / 5);
      } finally {
        reads.restore();
      }
      expect(seen).toContain("session:changed");
      expectExact();
    } finally {
      watcher.close();
    }
  });

  it("a line rewritten in the middle (longer, the file grew) is caught at the next append and merged", () => {
    firstLiveAppend();
    const text = fs.readFileSync(file, "utf8");
    const middle = "assistant 2501 ";
    expect(text.includes(middle)).toBe(true);
    fs.writeFileSync(file, text.replace(middle, `${middle}(edited) `));
    appendLine();
    const { report } = importLiveFile(ctx.db, file);
    expect(report.problems.map((p) => p.kind)).toContain("file_rewritten");
    expect(report.entriesAdded).toBe(1);
    expect(loadStoredEntries(ctx.db, sessionId)).toHaveLength(ENTRIES + 2);
    expect(row().file_hash).toBe(sha256(fs.readFileSync(file)));
  });

  it("a line cut shorter in the middle (an output pruned) is caught at the next append and merged", () => {
    firstLiveAppend();
    const text = fs.readFileSync(file, "utf8");
    const middle = `${"assistant 2503 ".padEnd(2000, "abcdefghij ")}`;
    expect(text.includes(middle)).toBe(true);
    fs.writeFileSync(file, text.replace(middle, "[pruned]"));
    appendLine();
    const { report } = importLiveFile(ctx.db, file);
    expect(report.problems.map((p) => p.kind)).toContain("file_rewritten");
    expect(loadStoredEntries(ctx.db, sessionId)).toHaveLength(ENTRIES + 2);
    expect(row().file_hash).toBe(sha256(fs.readFileSync(file)));
  });

  it("another file of the same size put in its place (write and rename) is caught at the next append", () => {
    firstLiveAppend();
    const text = fs.readFileSync(file, "utf8").replace("user 1000 ", "user 1001 ");
    const other = `${file}.tmp`;
    fs.writeFileSync(other, text);
    fs.renameSync(other, file);
    appendLine();
    const { report } = importLiveFile(ctx.db, file);
    expect(report.problems.map((p) => p.kind)).toContain("file_rewritten");
    expect(loadStoredEntries(ctx.db, sessionId)).toHaveLength(ENTRIES + 2);
  });

  it("a byte changed in place (every length kept) is caught within one round of block checks; no append is lost meanwhile", () => {
    firstLiveAppend();
    const text = fs.readFileSync(file, "utf8");
    const at = Buffer.byteLength(text.slice(0, text.indexOf("user 1200 ")));
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, "U", at);
    fs.closeSync(fd);
    const rounds = Math.ceil(fs.statSync(file).size / CHECK_BLOCK_BYTES) + 1;
    let caughtAfter = 0;
    for (let i = 1; i <= rounds && caughtAfter === 0; i++) {
      appendLine();
      const { report } = importLiveFile(ctx.db, file);
      expect(report.entriesAdded).toBe(1);
      if (report.problems.some((p) => p.kind === "file_rewritten")) caughtAfter = i;
    }
    expect(caughtAfter).toBeGreaterThan(0);
    expect(loadStoredEntries(ctx.db, sessionId)).toHaveLength(ENTRIES + 1 + caughtAfter);
    expectExact();
  });

  it("a touch without new bytes changes nothing; a cut-off last line is stored, then replaced once complete", () => {
    firstLiveAppend();
    const before = row();
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    expect(importLiveFile(ctx.db, file).report.status).toBe("unchanged");
    expect(row().entry_count).toBe(before.entry_count);

    const line = JSON.stringify({
      type: "message",
      id: "half",
      parentId: leaf,
      timestamp: "2026-03-01T12:00:00.000Z",
      message: { role: "user", content: [{ type: "text", text: "written in two parts" }], timestamp: 3 },
    });
    fs.appendFileSync(file, line.slice(0, 40));
    importLiveFile(ctx.db, file);
    expect(loadMalformedLines(ctx.db, sessionId)).toHaveLength(1);
    fs.appendFileSync(file, `${line.slice(40)}\n`);
    const { report } = importLiveFile(ctx.db, file);
    expect(report.entriesAdded).toBe(1);
    expect(loadMalformedLines(ctx.db, sessionId)).toHaveLength(0);
    expect(loadStoredEntries(ctx.db, sessionId).at(-1)?.entry.id).toBe("half");
    expectExact();
    // And the next append after that takes the short path again.
    leaf = "half";
    appendLine();
    expect(bytesReadBy(() => importLiveFile(ctx.db, file))).toBeLessThan(fs.statSync(file).size / 5);
    expectExact();
  });
});

/** The session as stored in `db`: its row (but the keys and times of the library), entries, malformed lines. */
function stored(db: Database) {
  const { sid, imported_at, updated_at, ...rest } = findSessionsByPath(
    db,
    fs.realpathSync(file),
  )[0] as SessionRow;
  void [sid, imported_at, updated_at];
  return {
    row: rest,
    entries: loadStoredEntries(db, sessionId),
    malformed: loadMalformedLines(db, sessionId),
  };
}

/** What watch.ts does with a changed file: seed the memo in the background when it lacks one, then import. */
async function asWatcher(db: Database): Promise<ReturnType<typeof importLiveFile>["report"]> {
  if (needsLiveSeed(db, file)) await seedLiveMemo(db, file);
  return importLiveFile(db, file).report;
}

describe("the first live re-import after start", () => {
  it("the watcher reads the file's prefix off the serving thread (no synchronous read of it); hashes and figures stay exact", async () => {
    const watcher = startQuickWatcher();
    const reads = countSyncReads();
    try {
      appendLine();
      await vi.waitFor(() => expect(row().entry_count).toBe(ENTRIES + 1), { timeout: 10_000, interval: 20 });
      const bytes = reads.bytes();
      // Two 64 kB windows, one check block, the new line; the ~10 MB prefix was read asynchronously.
      expect(bytes).toBeLessThan(CHECK_BLOCK_BYTES + 256 * 1024);
    } finally {
      reads.restore();
      watcher.close();
    }
    expectExact();
    // The memo it made serves the next append too.
    appendLine();
    expect(bytesReadBy(() => importLiveFile(ctx.db, file))).toBeLessThan(CHECK_BLOCK_BYTES + 256 * 1024);
    expectExact();
  });

  it("the serving thread keeps taking other work while the watcher makes its first re-import", async () => {
    // The WAL of the import above copied, as the import thread does after an import.
    checkpointWal(ctx.db);
    const watcher = startQuickWatcher();
    // The re-import starts with the watcher's look at the file (fs.existsSync), and ends when the
    // row counts the new entry; turns of the event loop (other requests) in between are counted.
    const existsSync = vi.spyOn(fs, "existsSync");
    let turns = 0;
    try {
      appendLine();
      await new Promise<void>((resolve, reject) => {
        const giveUp = Date.now() + 10_000;
        const turn = () => {
          const started = existsSync.mock.calls.some(([p]) => p === file);
          const done = row().entry_count === ENTRIES + 1;
          if (done) return resolve();
          if (Date.now() > giveUp) return reject(new Error("the append was not re-imported"));
          if (started) turns++;
          setImmediate(turn);
        };
        setImmediate(turn);
      });
    } finally {
      existsSync.mockRestore();
      watcher.close();
    }
    // A read and a hashed slice of the ~10 MB prefix per turn at most (as before: one turn for all).
    expect(turns).toBeGreaterThanOrEqual(Math.floor(fs.statSync(file).size / SEED_SLICE_BYTES));
    expectExact();
  });

  it("after the import thread imported the grown file (a folder scan), the watcher seeds again instead of reading it all", async () => {
    firstLiveAppend();
    // The import thread: its own connection, the file imported with importPath; this process's memo no longer holds.
    appendLine();
    const thread = openDatabase(path.join(tmp.dir, "library.db"));
    try {
      expect(importPath(thread, file).files[0]).toMatchObject({ status: "updated", entriesAdded: 1 });
    } finally {
      thread.close();
    }
    expect(needsLiveSeed(ctx.db, file)).toBe(false);
    appendLine();
    expect(needsLiveSeed(ctx.db, file)).toBe(true);
    const watcher = startQuickWatcher();
    const reads = countSyncReads();
    try {
      // The append before the watcher started is re-imported with the next one.
      appendLine();
      await vi.waitFor(() => expect(row().entry_count).toBe(ENTRIES + 4), { timeout: 10_000, interval: 20 });
      const bytes = reads.bytes();
      expect(bytes).toBeLessThan(CHECK_BLOCK_BYTES + 256 * 1024);
    } finally {
      reads.restore();
      watcher.close();
    }
    expectExact();
  });

  it("the library closed while the watcher seeds: one logged line, no unhandled rejection", async () => {
    const logged: string[] = [];
    const watcher = startQuickWatcher((message) => logged.push(message));
    const open = vi.spyOn(fs.promises, "open");
    try {
      appendLine();
      await vi.waitFor(() => expect(open).toHaveBeenCalled(), { timeout: 10_000, interval: 1 });
      ctx.db.close();
      await vi.waitFor(() => expect(logged.join("\n")).toContain("could not be re-imported"), {
        timeout: 10_000,
        interval: 20,
      });
      expect(logged).toHaveLength(1);
    } finally {
      open.mockRestore();
      watcher.close();
    }
  });

  it("the seed hashes a slice at a time: other callbacks run between slices, and appends made meanwhile are imported", async () => {
    const size = fs.statSync(file).size;
    appendLine();
    let ticks = 0;
    let seeded = false;
    const seed = seedLiveMemo(ctx.db, file, { sliceBytes: 1024 * 1024 }).then((ok) => {
      seeded = ok;
    });
    let appendedMeanwhile = false;
    // setImmediate runs once per turn of the event loop: a turn between two slices counts one.
    await new Promise<void>((resolve) => {
      const tick = () => {
        if (seeded) return resolve();
        ticks++;
        if (ticks === 3) {
          appendLine();
          appendedMeanwhile = true;
        }
        setImmediate(tick);
      };
      setImmediate(tick);
    });
    await seed;
    expect(seeded).toBe(true);
    expect(appendedMeanwhile).toBe(true);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(size / (1024 * 1024)));
    let report: ReturnType<typeof importLiveFile>["report"] | null = null;
    expect(
      bytesReadBy(() => {
        report = importLiveFile(ctx.db, file).report;
      }),
    ).toBeLessThan(CHECK_BLOCK_BYTES + 256 * 1024);
    expect(report).toMatchObject({ status: "updated", entriesAdded: 2 });
    expectExact();
  });

  it("an import during the seed (the export guard) wins: the seed keeps its memo, the next append is still exact", async () => {
    appendLine();
    const seed = seedLiveMemo(ctx.db, file, { sliceBytes: 1024 * 1024 });
    expect(importLiveFile(ctx.db, file).report.entriesAdded).toBe(1);
    expect(await seed).toBe(true);
    appendLine();
    expect(bytesReadBy(() => importLiveFile(ctx.db, file))).toBeLessThan(CHECK_BLOCK_BYTES + 256 * 1024);
    expectExact();
  });

  describe("stores what the full import (no memo, as before) stores", () => {
    let other: AppContext;
    beforeEach(() => {
      other = createAppContext({
        dbPath: path.join(tmp.dir, "other.db"),
        seedDemo: false,
        loadUserHooks: false,
      });
      expect(importPath(other.db, file).files[0]?.sessionId).toBe(sessionId);
    });
    afterEach(() => other.db.close());

    /** Changes the file with `change`, then imports it both ways; the reports and the stored sessions agree. */
    async function sameAsFullImport(
      change: () => void,
    ): Promise<ReturnType<typeof importLiveFile>["report"]> {
      change();
      const seeded = await asWatcher(ctx.db);
      const full = importLiveFile(other.db, file).report;
      expect(seeded).toEqual(full);
      expect(stored(ctx.db)).toEqual(stored(other.db));
      expect(row().file_hash).toBe(sha256(fs.readFileSync(file)));
      return seeded;
    }

    it("a pure append", async () => {
      const report = await sameAsFullImport(() => appendLine());
      expect(report).toMatchObject({ status: "updated", entriesAdded: 1, problems: [] });
      expectExact();
    });

    it("a byte changed in place before the old end, then an append (every length kept)", async () => {
      const report = await sameAsFullImport(() => {
        const text = fs.readFileSync(file, "utf8");
        const at = Buffer.byteLength(text.slice(0, text.indexOf("user 1200 ")));
        const fd = fs.openSync(file, "r+");
        fs.writeSync(fd, "U", at);
        fs.closeSync(fd);
        appendLine();
      });
      expect(report.problems.map((p) => p.kind)).toContain("file_rewritten");
    });

    it("a line made longer in the middle, then an append", async () => {
      const report = await sameAsFullImport(() => {
        const text = fs.readFileSync(file, "utf8");
        fs.writeFileSync(file, text.replace("assistant 2501 ", "assistant 2501 (edited) "));
        appendLine();
      });
      expect(report.problems.map((p) => p.kind)).toContain("file_rewritten");
    });

    it("the file cut short (truncated at a line end)", async () => {
      const text = fs.readFileSync(file, "utf8");
      const cut = text.indexOf('{"type":"message","id":"e4000"');
      expect(needsLiveSeed(ctx.db, file)).toBe(false);
      await sameAsFullImport(() => fs.writeFileSync(file, text.slice(0, cut)));
    });

    it("the file cut short and written again past its old end (the seed finds the changed prefix)", async () => {
      const text = fs.readFileSync(file, "utf8");
      const cut = text.indexOf('{"type":"message","id":"e4000"');
      const report = await sameAsFullImport(() => {
        fs.writeFileSync(file, text.slice(0, cut) + text.slice(cut).replaceAll("abcdefghij", "ABCDEFGHIJ!"));
        expect(needsLiveSeed(ctx.db, file)).toBe(true);
      });
      expect(report.problems.map((p) => p.kind)).toContain("file_rewritten");
    });
  });
});
