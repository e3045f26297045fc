/**
 * The first full-text search after a large import (a folder of generated sessions, 230,000
 * entries by default), through the app's API, paired in one process: the app as it is (a
 * background SearchIndexer: the search answers from what is indexed and says how far indexing
 * is) against the app without it (the search waits until everything is indexed: the baseline).
 * Two starts: right after an import on the import thread, and opening a library the CLI imported
 * (nothing indexed yet). For the background runs also: how long until everything is indexed, and
 * how long `library:list` takes while it is. Run: node bench/search-index.bench.ts [--runs N] [--entries N]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { importPath } from "../main/library/import.ts";
import { checkpointWal, openDatabase } from "../main/store/open.ts";
import { fmt, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedFolder } from "./generate-session.ts";

const SESSION_ENTRIES = 10_000;
const QUERY = "parser lexer";

interface Run {
  firstSearchMs: number;
  /** Percent indexed that the first search reported (100 when it waited for everything). */
  percent: number;
  /** From the first search's answer until nothing waits to be indexed. */
  indexedAfterMs: number;
  /** library:list while the index fills (background runs only). */
  listMs: number[];
  maxSliceMs: number;
  slices: number;
}

type Start = "after-import" | "cli-library";

async function runOnce(
  dir: string,
  folder: string,
  template: string,
  start: Start,
  background: boolean,
): Promise<Run> {
  const dbPath = path.join(dir, `${start}-${background ? "bg" : "wait"}.db`);
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${dbPath}${suffix}`, { force: true });
  if (start === "cli-library") fs.copyFileSync(template, dbPath);
  const ctx = createAppContext({
    dbPath,
    seedDemo: false,
    loadUserHooks: false,
    env: {},
    importThread: true,
    backgroundSearchIndex: background,
  });
  const api = createApi(ctx);
  // Timers and the import thread are unref'd: keep the process alive while they work.
  const keepAlive = setInterval(() => {}, 1000);
  try {
    if (start === "after-import") {
      const imported = await api.call("library:import", { path: folder });
      if (!imported.ok) throw new Error(imported.error.message);
    }
    let started = performance.now();
    const found = await api.call("library:search", { query: QUERY, limit: 20 });
    const firstSearchMs = performance.now() - started;
    if (!found.ok) throw new Error(found.error.message);
    const { indexing } = found.value;
    const percent = indexing === null ? 100 : Math.floor((indexing.indexed / indexing.total) * 100);
    started = performance.now();
    const listMs: number[] = [];
    const indexed = ctx.searchIndexer?.whenIndexed() ?? Promise.resolve();
    let done = false;
    void indexed.then(() => {
      done = true;
    });
    while (!done && background) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const at = performance.now();
      await api.call("library:list", {});
      listMs.push(performance.now() - at);
    }
    await indexed;
    // The import thread's own indexing (after an import) ends with it.
    await ctx.imports.searchIndexed();
    const indexedAfterMs = performance.now() - started;
    const stats = ctx.searchIndexer?.stats;
    return {
      firstSearchMs,
      percent,
      indexedAfterMs,
      listMs,
      maxSliceMs: stats?.maxSliceMs ?? 0,
      slices: stats?.slices ?? 0,
    };
  } finally {
    clearInterval(keepAlive);
    ctx.searchIndexer?.close();
    await ctx.imports.close();
    ctx.db.close();
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${dbPath}${suffix}`, { force: true });
  }
}

export async function runSearchIndexBench(options: { runs?: number; entries?: number } = {}): Promise<void> {
  const runs = options.runs ?? 2;
  const sessions = Math.max(1, Math.round((options.entries ?? 230_000) / SESSION_ENTRIES));
  const folder = path.join(path.dirname(defaultGeneratedPath()), `folder-${sessions}x${SESSION_ENTRIES}`);
  const generated = writeGeneratedFolder(folder, sessions, SESSION_ENTRIES);
  const tmp = tempDir("canopy-search-bench-");
  try {
    // A library the CLI imported: every entry stored, none indexed yet.
    const template = path.join(tmp.dir, "template.db");
    const db = openDatabase(template);
    importPath(db, folder);
    checkpointWal(db);
    db.close();

    const rows: string[][] = [];
    for (const start of ["after-import", "cli-library"] as const) {
      const wait: Run[] = [];
      const background: Run[] = [];
      // In turns, so that the load of a shared machine falls on both alike.
      for (let i = 0; i < runs; i++) {
        wait.push(await runOnce(tmp.dir, folder, template, start, false));
        background.push(await runOnce(tmp.dir, folder, template, start, true));
      }
      const m = (list: Run[], pick: (run: Run) => number) => median(list.map(pick));
      const lists = background.flatMap((run) => run.listMs);
      const what = start === "after-import" ? "right after the import" : "opening a library the CLI imported";
      rows.push([
        `${what}: waits for the index (baseline)`,
        fmt(m(wait, (r) => r.firstSearchMs)),
        "100",
        "",
        "",
      ]);
      rows.push([
        `${what}: background indexing`,
        fmt(m(background, (r) => r.firstSearchMs)),
        fmt(m(background, (r) => r.percent)),
        fmt(m(background, (r) => r.indexedAfterMs)),
        lists.length === 0
          ? ""
          : `${fmt(median(lists))} / ${fmt(Math.max(...lists))} (${lists.length}); slices ${fmt(m(background, (r) => r.slices))}, longest ${fmt(m(background, (r) => r.maxSliceMs))} ms`,
      ]);
    }
    console.log(
      `\n${fmt(generated.entries)} entries in ${sessions} sessions (${fmt(generated.bytes / 1e6)} MB), median of ${runs} paired runs\n`,
    );
    printTable(
      [
        "first search of",
        "ms",
        "% indexed",
        "all indexed after ms",
        "library:list ms median / max (n) during it",
      ],
      rows,
    );
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = numberArg("--runs");
  const entries = numberArg("--entries");
  await runSearchIndexBench({
    ...(runs === undefined ? {} : { runs }),
    ...(entries === undefined ? {} : { entries }),
  });
}
