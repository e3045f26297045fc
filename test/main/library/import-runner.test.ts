// The app's imports run on a thread of their own (main/library/import-runner.ts): the calling
// thread keeps running while a folder is imported, progress arrives file by file before the
// report, imports run one after the other, and an import thread that cannot start (or a library
// it cannot open) ends in an import on the calling thread or a one-line error, never a hang.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importPath } from "../../../main/library/import.ts";
import { IN_PLACE_BYTES, InPlaceImports, ThreadImports } from "../../../main/library/import-runner.ts";
import { listSessionRows } from "../../../main/store/repos/sessions.ts";
import { fixturesDir } from "../../helpers/fixtures.ts";
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
afterEach(() => {
  runner?.close();
  runner = null;
  lib.cleanup();
});

type Progress = [done: number, total: number, file: string];

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
      runner?.close();
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
    expect((failure as Error).message).toMatch(/^The import stopped: .*not a database/);
    expect((failure as Error).message).not.toContain("\n");
    expect(runner.busy).toBe(false);
    await expect(runner.run(folder)).rejects.toThrow(/not a database/);
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
