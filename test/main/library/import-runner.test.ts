// The app's imports run on a thread of their own (main/library/import-runner.ts): the calling
// thread keeps running while a folder is imported, progress arrives file by file before the
// report, imports run one after the other, and an import thread that cannot start (or a library
// it cannot open) ends in an import on the calling thread or a one-line error, never a hang.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ImportedFileReport } from "../../../core/api/dto.ts";
import { importPath } from "../../../main/library/import.ts";
import { createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { IN_PLACE_BYTES, InPlaceImports, ThreadImports } from "../../../main/library/import-runner.ts";
import { indexPendingSearchText, searchMessages } from "../../../main/library/search.ts";
import { countPendingText } from "../../../main/store/repos/search.ts";
import { listSessionRows } from "../../../main/store/repos/sessions.ts";
import { fixturesDir, repoRoot } from "../../helpers/fixtures.ts";
import { copyFixture, fixtureNames, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
/** The fixtures: less than IN_PLACE_BYTES. */
let fixtures: string;
/** The fixtures and a generated session that takes the folder over IN_PLACE_BYTES. */
let folder: string;
/** Entries in `folder`. */
const ENTRIES = 3357 + 3000;
let runner: ThreadImports | null = null;
beforeEach(() => {
  lib = makeLibrary();
  fixtures = path.join(lib.dir, "fixtures");
  folder = path.join(lib.dir, "sessions");
  for (const name of fixtureNames(fixturesDir())) {
    copyFixture(name, fixtures);
    copyFixture(name, folder);
  }
  writeLargeSession(path.join(folder, "zz-large.jsonl"), 3000);
});
afterEach(async () => {
  await runner?.close();
  runner = null;
  lib.cleanup();
});

type Progress = [done: number, total: number, file: string];

/** The app's context and contract on the test's library file (imports on the import thread). */
function appOnLibrary() {
  lib.db.close();
  const ctx = createAppContext({
    dbPath: lib.dbFile,
    seedDemo: false,
    loadUserHooks: false,
    importThread: true,
  });
  return { ctx, api: createApi(ctx) };
}

/** A session of `count` user messages that comes to IN_PLACE_BYTES or more. */
function writeLargeSession(file: string, count: number): void {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "large", timestamp: "t", cwd: "/w" })];
  const text = "words to import ".repeat(Math.ceil(IN_PLACE_BYTES / count / 16));
  for (let i = 0; i < count; i++) {
    const entry = { type: "message", id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "t" };
    lines.push(JSON.stringify({ ...entry, message: { role: "user", content: text } }));
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
}

/** Counts this thread's timer ticks until `work` settles: 0 means the thread was blocked meanwhile. */
async function ticksWhile<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const value = await work();
    return { value, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe("imports on the import thread", () => {
  it("imports a folder like importPath does, while this thread keeps running, with progress per file first", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    const progress: Progress[] = [];
    let reported = false;
    const { value: report, ticks } = await ticksWhile(() =>
      threads.run(folder, (done, total, file) => {
        expect(reported).toBe(false);
        progress.push([done, total, path.basename(file)]);
      }),
    );
    reported = true;
    const names = fixtureNames(folder);
    expect(progress).toEqual(names.map((name, i) => [i + 1, names.length, name]));
    expect(ticks).toBeGreaterThan(3);
    expect(report).toMatchObject({ imported: names.length, failed: 0, entriesAdded: ENTRIES });
    // The calling thread's connection sees what the thread stored.
    expect(
      listSessionRows(lib.db)
        .map((row) => row.source_path)
        .sort(),
    ).toEqual(names.map((name) => fs.realpathSync(path.join(folder, name))));
    // The same import in place gives the same report (what was stored is compared by reimport).
    const other = makeLibrary();
    try {
      const inPlace = importPath(other.db, folder);
      expect(report.files.map((f) => [f.status, f.sessionId, f.entriesAdded, f.problems.length])).toEqual(
        inPlace.files.map((f) => [f.status, f.sessionId, f.entriesAdded, f.problems.length]),
      );
    } finally {
      other.cleanup();
    }
  });

  it("runs imports one after the other, in the order asked", async () => {
    runner = new ThreadImports(lib.db, lib.dbFile);
    const ended: string[] = [];
    const first = runner.run(folder).then((r) => ended.push(`first ${r.imported}`));
    const second = runner.run(folder).then((r) => ended.push(`second ${r.unchanged}`));
    expect(runner.busy).toBe(true);
    await Promise.all([first, second]);
    await runner.idle();
    expect(runner.busy).toBe(false);
    expect(ended).toEqual(["first 8", "second 8"]);
  });

  it("imports a small file or folder on the calling thread (faster than starting the thread)", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    for (const [target, imported] of [
      [path.join(folder, "tree-00.jsonl"), 1],
      [fixtures, 7],
    ] as const) {
      const { value: report, ticks } = await ticksWhile(() => threads.run(target));
      expect(report).toMatchObject({ imported, failed: 0 });
      expect(ticks).toBe(0);
    }
  });

  it("imports on the calling thread when the thread cannot start", async () => {
    const broken = path.join(lib.dir, "broken-runner.mjs");
    fs.writeFileSync(broken, 'throw new Error("cannot load the SQLite module");\n');
    for (const script of [broken, path.join(lib.dir, "missing-runner.mjs")]) {
      await runner?.close();
      runner = new ThreadImports(lib.db, lib.dbFile, { script });
      const progress: number[] = [];
      const report = await runner.run(folder, (done) => progress.push(done));
      expect(report).toMatchObject({ failed: 0, entriesAdded: script === broken ? ENTRIES : 0 });
      expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // Later imports do not try the thread again.
      expect((await runner.run(folder)).unchanged).toBe(8);
    }
  });

  it("fails with one line when the thread cannot open the library, and the next import still runs", async () => {
    const notADatabase = path.join(lib.dir, "not-a-library.db");
    fs.writeFileSync(notADatabase, "this is not an SQLite file, it is just text ".repeat(100));
    runner = new ThreadImports(lib.db, notADatabase);
    const failure = await runner.run(folder).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(
      /^The import stopped: .*not a Canopy library: it is not an SQLite database/,
    );
    expect((failure as Error).message).not.toContain("\n");
    expect(runner.busy).toBe(false);
    await expect(runner.run(folder)).rejects.toThrow(/not an SQLite database/);
  });
});

describe("search indexing after a thread import", () => {
  const textRows = (l: Library) => l.db.prepare("SELECT count(*) FROM entry_text").pluck().get() as number;

  it("indexes what the import added on the thread, so the first search has nothing left to do", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    await threads.run(folder);
    // Said done once the thread has indexed everything.
    await threads.searchIndexed();
    expect(countPendingText(lib.db)).toBe(0);
    // The same index as catching up in place gives.
    const other = makeLibrary();
    try {
      importPath(other.db, folder);
      indexPendingSearchText(other.db);
      expect(textRows(lib)).toBe(textRows(other));
      const hits = searchMessages(lib.db, "words to import", 5, { catchUp: false });
      expect(hits.map((hit) => hit.sessionId)).toEqual(["large", "large", "large", "large", "large"]);
    } finally {
      other.cleanup();
    }
  });

  it("without background indexing, a search waits for the thread's indexing instead of doing it on the calling thread", async () => {
    const { ctx, api } = appOnLibrary();
    try {
      const imported = await api.call("library:import", { path: folder });
      expect(imported).toMatchObject({ ok: true, value: { imported: 8 } });
      expect(countPendingText(ctx.db)).toBeGreaterThan(0);
      const { value: found, ticks } = await ticksWhile(() =>
        api.call("library:search", { query: "words to import", limit: 3 }),
      );
      expect(found).toMatchObject({ ok: true });
      expect(found.ok && found.value.hits.map((hit) => hit.sessionId)).toEqual(["large", "large", "large"]);
      // Indexed on the thread: this one kept running, and nothing was left for it.
      expect(ticks).toBeGreaterThan(3);
      expect(countPendingText(ctx.db)).toBe(0);
    } finally {
      await ctx.imports.close();
      ctx.db.close();
    }
  });

  it("with background indexing (the app), a search right after the import answers at once and says how far the thread is", async () => {
    lib.db.close();
    const ctx = createAppContext({
      dbPath: lib.dbFile,
      seedDemo: false,
      loadUserHooks: false,
      importThread: true,
      backgroundSearchIndex: true,
    });
    const api = createApi(ctx);
    try {
      const imported = await api.call("library:import", { path: folder });
      expect(imported).toMatchObject({ ok: true, value: { imported: 8 } });
      const found = await api.call("library:search", { query: "words to import", limit: 3 });
      if (!found.ok) throw new Error(found.error.message);
      // The thread is still at it: the answer says how far, instead of waiting for it.
      expect(found.value.indexing?.total).toBeGreaterThanOrEqual(ENTRIES);
      expect(found.value.indexing?.indexed).toBeLessThan(found.value.indexing?.total ?? 0);
      await ctx.imports.searchIndexed();
      await ctx.searchIndexer?.whenIndexed();
      const later = await api.call("library:search", { query: "words to import", limit: 3 });
      expect(later.ok && later.value.indexing).toBeNull();
      expect(later.ok && later.value.hits.map((hit) => hit.sessionId)).toEqual(["large", "large", "large"]);
      // The thread indexed it all; the serving thread had nothing to do.
      expect(ctx.searchIndexer?.stats.rows).toBe(0);
    } finally {
      ctx.searchIndexer?.close();
      await ctx.imports.close();
      ctx.db.close();
    }
  });

  it("checkpoints the WAL the import filled on the thread, never on the serving thread", async () => {
    const { ctx, api } = appOnLibrary();
    // Every checkpoint the serving thread's connection is asked for.
    const checkpoints: string[] = [];
    const pragma = ctx.db.pragma.bind(ctx.db);
    ctx.db.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (source.includes("wal_checkpoint")) checkpoints.push(source);
      return pragma(source, options);
    }) as typeof ctx.db.pragma;
    const copyDir = fs.mkdtempSync(path.join(lib.dir, "copy-"));
    try {
      const imported = await api.call("library:import", { path: folder });
      expect(imported).toMatchObject({ ok: true, value: { imported: 8 } });
      await ctx.imports.searchIndexed();
      // Past any timer the reply left behind.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(checkpoints).toEqual([]);
      // Checkpointed all the same: the library file alone, without its WAL, holds every entry.
      const copy = path.join(copyDir, "library.db");
      fs.copyFileSync(lib.dbFile, copy);
      const alone = new BetterSqlite3(copy, { readonly: true });
      try {
        expect(alone.prepare("SELECT count(*) AS n FROM entries").get()).toEqual({ n: ENTRIES });
      } finally {
        alone.close();
      }
    } finally {
      await ctx.imports.close();
      ctx.db.close();
    }
  });

  it("a search while the thread indexes catches up with it, never indexing an entry twice", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    await threads.run(folder);
    // Both connections catch up at once: each slice takes the write lock before it reads the watermark.
    let searches = 0;
    while (countPendingText(lib.db) > 0) {
      searchMessages(lib.db, "compaction", 5);
      searches++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(searches).toBeGreaterThan(0);
    const other = makeLibrary();
    try {
      importPath(other.db, folder);
      indexPendingSearchText(other.db);
      expect(textRows(lib)).toBe(textRows(other));
    } finally {
      other.cleanup();
    }
  });
});

describe("the contract's import events", () => {
  it("start with one event, then one per file, one saying it finishes, and one saying the import ended", async () => {
    const { ctx, api } = appOnLibrary();
    const events: { done: number; total: number | null; ended?: boolean }[] = [];
    ctx.events.subscribe((name, payload) => {
      if (name === "job:progressed") events.push(payload as (typeof events)[number]);
    });
    try {
      expect(await api.call("library:import", { path: folder })).toMatchObject({ ok: true });
      expect(events.map((e) => [e.done, e.total, e.ended ?? false])).toEqual([
        [0, null, false],
        ...[1, 2, 3, 4, 5, 6, 7, 8].map((done) => [done, 8, false]),
        // Its last batch is stored, then the library updated: the line says so until the end.
        [8, 8, false],
        [8, 8, true],
      ]);
    } finally {
      await ctx.imports.close();
      ctx.db.close();
    }
  });
});

describe("closing", () => {
  it("ends a running thread import with one line, and what it committed stays consistent", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    let closing: Promise<void> | null = null;
    const running = threads.run(folder, () => {
      closing ??= threads.close();
    });
    await expect(running).rejects.toThrow(/^The import stopped: Canopy is closing$/);
    await threads.searchIndexed();
    // The thread stores the file it is at, closes its connection and ends; then nothing changes.
    await closing;
    const stored = listSessionRows(lib.db).length;
    expect(stored).toBeGreaterThanOrEqual(1);
    expect(stored).toBeLessThan(8);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(listSessionRows(lib.db)).toHaveLength(stored);
    // Whatever was committed is whole: every stored session has all its entries.
    for (const row of listSessionRows(lib.db)) {
      const stored = lib.db.prepare("SELECT count(*) FROM entries WHERE sid = ?").pluck().get(row.sid);
      expect(stored).toBe(row.entry_count);
    }
  });
});

describe("a process that ends after a thread import", () => {
  it("waits for the thread's search indexing (the thread is not torn down in the middle of a write), then exits", () => {
    // The process's own work runs out as soon as the import is reported; it does not close the runner.
    const script = path.join(lib.dir, "import-and-end.mts");
    fs.writeFileSync(
      script,
      `import { openDatabase } from ${JSON.stringify(path.join(repoRoot, "main/store/open.ts"))};
      import { ThreadImports } from ${JSON.stringify(path.join(repoRoot, "main/library/import-runner.ts"))};
      const db = openDatabase(${JSON.stringify(lib.dbFile)});
      const threads = new ThreadImports(db, ${JSON.stringify(lib.dbFile)});
      const report = await threads.run(${JSON.stringify(folder)});
      // On the thread (it started), and indexing there when the report came.
      console.log(report.entriesAdded, threads.indexingSearch);\n`,
    );
    const run = spawnSync(process.execPath, [script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect({ status: run.status, signal: run.signal, stdout: run.stdout.trim() }).toEqual({
      status: 0,
      signal: null,
      stdout: `${ENTRIES} true`,
    });
    // Everything the import added was indexed before the process ended.
    expect(countPendingText(lib.db)).toBe(0);
  });
});

describe("the calling thread's writes while the import thread writes", () => {
  it("never fail: each waits for the other's transaction instead of giving up ('database is locked')", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    const small = path.join(lib.dir, "small");
    const reports: (ImportedFileReport | undefined)[] = [];
    const importHere = () => {
      const file = copyFixture("tree-00.jsonl", small, `copy-${reports.length}.jsonl`);
      reports.push(importPath(lib.db, file).files[0]);
    };
    // The thread imports (its batches hold the write lock), then indexes for search in slices.
    let started = false;
    let done = false;
    const running = threads
      .run(folder, () => {
        started = true;
      })
      .then(() => {
        done = true;
      });
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (started && !done) importHere();
    }
    await running;
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      importHere();
    }
    expect(reports.length).toBeGreaterThan(20);
    expect(reports.map((r) => r?.reason ?? r?.status)).toEqual(reports.map(() => "imported"));
  });
});

describe("cancelling imports", () => {
  /** `count` sessions of IN_PLACE_BYTES / 4 each in a folder of their own. */
  function writeFolder(count: number): string {
    const dir = path.join(lib.dir, "many");
    fs.mkdirSync(dir);
    for (let i = 0; i < count; i++) {
      const file = path.join(dir, `s${String(i).padStart(2, "0")}.jsonl`);
      writeLargeSession(file, 500);
      // Each file its own header id (a session per file).
      const text = fs.readFileSync(file, "utf8").replace('"id":"large"', `"id":"many-${i}"`);
      fs.writeFileSync(file, text);
    }
    return dir;
  }

  it("stops a thread import after the file it is at; what it stored stays, and importing again adds the rest", async () => {
    const dir = writeFolder(12);
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    let asked = false;
    const report = await threads.run(dir, () => {
      if (!asked) asked = threads.cancel();
    });
    expect(asked).toBe(true);
    expect(report.cancelled).toBe(true);
    expect(report.files.length).toBeGreaterThan(0);
    expect(report.files.length).toBeLessThan(12);
    expect(report.files.every((f) => f.status === "imported")).toBe(true);
    // Exactly the files reported are in the library, whole.
    const stored = listSessionRows(lib.db);
    expect(stored.map((row) => row.id).sort()).toEqual(report.files.map((f) => f.sessionId).sort());
    expect(stored.every((row) => row.entry_count === 500)).toBe(true);
    // No import runs any more; the next one imports the rest, once.
    expect(threads.busy).toBe(false);
    expect(threads.cancel()).toBe(false);
    const rest = await threads.run(dir);
    expect(rest).toMatchObject({
      cancelled: false,
      imported: 12 - report.files.length,
      unchanged: report.files.length,
    });
    expect(listSessionRows(lib.db)).toHaveLength(12);
  });

  it("a cancel before the first file is stored imports nothing", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    const running = threads.run(folder);
    // The import has begun (the thread is starting): it is cancelled, not dropped.
    await new Promise((resolve) => setImmediate(resolve));
    expect(threads.cancel()).toBe(true);
    const report = await running;
    expect(report).toMatchObject({ cancelled: true, files: [], imported: 0 });
    expect(listSessionRows(lib.db)).toEqual([]);
  });

  it("drops the imports waiting for the running one", async () => {
    const threads = new ThreadImports(lib.db, lib.dbFile);
    runner = threads;
    const first = threads.run(folder);
    const second = threads.run(fixtures);
    expect(threads.cancel()).toBe(true);
    const [a, b] = await Promise.all([first, second]);
    expect(a.cancelled).toBe(true);
    expect(b).toMatchObject({ cancelled: true, files: [], imported: 0 });
    // Imports asked for after the cancel run.
    expect((await threads.run(fixtures)).cancelled).toBe(false);
  });

  it("importPath stops before the file where shouldStop says so", () => {
    let asked = 0;
    const report = importPath(lib.db, fixtures, { shouldStop: () => ++asked > 2 });
    expect(asked).toBe(3);
    // Two files in their turn, and any small ones imported early while the import thread
    // parsed a large one (when a thread is waiting from an earlier import).
    expect(report.cancelled).toBe(true);
    expect(report.files.length).toBeGreaterThanOrEqual(2);
    expect(report.files.length).toBeLessThan(7);
    expect(report.imported).toBe(report.files.length);
    expect(
      listSessionRows(lib.db)
        .map((row) => row.id)
        .sort(),
    ).toEqual(report.files.map((f) => f.sessionId).sort());
  });
});

describe("imports in place", () => {
  it("runs on the calling thread, one after the other", async () => {
    const inPlace = new InPlaceImports(lib.db);
    const progress: number[] = [];
    const { value: report, ticks } = await ticksWhile(() =>
      inPlace.run(folder, (done) => progress.push(done)),
    );
    expect(report).toMatchObject({ imported: 8, failed: 0 });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ticks).toBe(0);
  });
});
