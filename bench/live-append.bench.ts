/**
 * Live re-import of a growing session: an agent appends one line to a large session file the
 * library holds; how long the re-import takes and how long it blocks the serving thread (event-loop
 * delay while it and the WAL checkpoint run as watch.ts schedules them), for the live path
 * (import-live.ts: new bytes only) against the path the watcher took before (importFile, then the
 * full recount of the list figures its append-only import ended with), measured in the same run;
 * and the first live re-import after start (no memo yet): the whole file read on the serving
 * thread (as before) against the memo seeded in the background first (seedLiveMemo, as watch.ts does).
 * Run: node bench/live-append.bench.ts [--appends N] [--entries 10000,100000] (generated sessions,
 * ~20 MB and ~196 MB)
 */
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { importFile, importPath } from "../main/library/import.ts";
import { importLiveFile } from "../main/library/import-live.ts";
import { seedLiveMemo } from "../main/library/live-seed.ts";
import { refreshSessionStats } from "../main/library/stats.ts";
import { checkpointWal, type Database, openDatabase } from "../main/store/open.ts";
import { fmt, median, numberArg, printTable, tempDir, userLine } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

interface Timing {
  importMs: number;
  blockedMs: number;
  /** The PASSIVE checkpoint watch.ts runs on the serving thread after the re-import. */
  checkpointMs: number;
}

/**
 * Runs `reimport` the way the watcher does (in a timer, the checkpoint in the next one) and
 * returns its time and the longest event-loop delay meanwhile (what a window request waits).
 */
async function asWatcher(
  db: Database,
  reimport: () => void,
  seed: Promise<boolean> | null = null,
): Promise<Timing> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 5));
  if (seed !== null && !(await seed)) throw new Error("the memo was not seeded");
  let importMs = 0;
  let checkpointMs = 0;
  await new Promise<void>((resolve) =>
    setTimeout(() => {
      const started = performance.now();
      reimport();
      importMs = performance.now() - started;
      setTimeout(() => {
        const at = performance.now();
        checkpointWal(db);
        checkpointMs = performance.now() - at;
        setTimeout(resolve, 5);
      }, 0);
    }, 0),
  );
  delay.disable();
  return { importMs, blockedMs: delay.max / 1e6, checkpointMs };
}

async function measureSize(count: number, appends: number): Promise<string[][]> {
  const generated = writeGeneratedSession(defaultGeneratedPath(count), count);
  const tmp = tempDir("canopy-live-append-");
  try {
    const file = path.join(tmp.dir, "session.jsonl");
    fs.copyFileSync(generated.file, file);
    const db = openDatabase(path.join(tmp.dir, "library.db"));
    const sessionId = importPath(db, file).files[0]?.sessionId;
    if (!sessionId) throw new Error(`${file} did not import`);
    checkpointWal(db);
    let parent = generated.deepestLeafId;
    let n = 0;
    const append = (): void => {
      const id = `bench-${++n}`;
      fs.appendFileSync(file, userLine(id, parent));
      parent = id;
    };
    // The first live re-import since start (a connection with no memo yet): as it was, the whole
    // file read and hashed on this thread; as the watcher does it now, the prefix hashed in the
    // background first (seedLiveMemo), then only the new bytes read. Each on a fresh connection.
    const fresh = async (seeded: boolean): Promise<Timing & { wallMs: number }> => {
      const started = openDatabase(path.join(tmp.dir, "library.db"));
      try {
        append();
        const t0 = performance.now();
        const timing = await asWatcher(
          started,
          () => importLiveFile(started, file),
          seeded ? seedLiveMemo(started, file) : null,
        );
        return { ...timing, wallMs: performance.now() - t0 };
      } finally {
        started.close();
      }
    };
    const firstNoMemo = await fresh(false);
    const firstSeeded = await fresh(true);
    const sid = db.prepare("SELECT sid FROM sessions WHERE id = ?").pluck().get(sessionId) as number;
    const before: Timing[] = [];
    const whole: Timing[] = [];
    const live: Timing[] = [];
    for (let i = 0; i < appends; i++) {
      append();
      before.push(
        await asWatcher(db, () => {
          importFile(db, file);
          refreshSessionStats(db, { sid, id: sessionId });
        }),
      );
      append();
      whole.push(await asWatcher(db, () => importFile(db, file)));
      // The whole-file import changed the row: the live path reads the whole file again once.
      append();
      await asWatcher(db, () => importLiveFile(db, file));
      append();
      live.push(await asWatcher(db, () => importLiveFile(db, file)));
    }
    const entries = db.prepare("SELECT entry_count FROM sessions WHERE id = ?").pluck().get(sessionId);
    if (entries !== generated.entries + n)
      throw new Error(`expected ${generated.entries + n} entries, got ${entries}`);
    db.close();
    const mb = fmt(fs.statSync(file).size / 1e6, 1);
    const m = (t: Timing[], key: keyof Timing) => median(t.map((x) => x[key]));
    const ratio = (key: keyof Timing) => `${fmt(m(before, key) / Math.max(m(live, key), 0.01), 0)}×`;
    const row = (label: string, t: Timing[]): string[] => [
      "",
      label,
      fmt(m(t, "importMs"), 1),
      fmt(m(t, "blockedMs"), 1),
      fmt(m(t, "checkpointMs"), 1),
      "",
    ];
    return [
      [`${mb} MB`, ...row("before: whole file + recount", before).slice(1)],
      row("whole file (importFile now)", whole),
      [...row("live (importLiveFile)", live).slice(0, 5), `${ratio("importMs")} / ${ratio("blockedMs")}`],
      [
        "",
        "first live, no memo (as before)",
        fmt(firstNoMemo.wallMs, 1),
        fmt(firstNoMemo.blockedMs, 1),
        fmt(firstNoMemo.checkpointMs, 1),
        "",
      ],
      [
        "",
        "first live, seed + live (now)",
        fmt(firstSeeded.wallMs, 1),
        fmt(firstSeeded.blockedMs, 1),
        fmt(firstSeeded.checkpointMs, 1),
        `${fmt(firstNoMemo.blockedMs / Math.max(firstSeeded.blockedMs, 0.01), 0)}× less blocked`,
      ],
    ];
  } finally {
    tmp.cleanup();
  }
}

export async function runLiveAppendBench(
  options: { appends?: number; entries?: number[] } = {},
): Promise<void> {
  const appends = options.appends ?? 5;
  const rows: string[][] = [];
  for (const count of options.entries ?? [10_000, 100_000]) rows.push(...(await measureSize(count, appends)));
  console.log(
    `append one line, median of ${appends}; blocked = longest event-loop delay (re-import + checkpoint);\n` +
      "first live: one each, on a fresh connection (no memo); its re-import ms is the wall time, seed included\n",
  );
  printTable(["session", "path", "re-import ms", "blocked ms", "checkpoint ms", "before/live"], rows);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entriesAt = process.argv.indexOf("--entries");
  await runLiveAppendBench({
    appends: numberArg("--appends"),
    entries:
      entriesAt > 0
        ? String(process.argv[entriesAt + 1])
            .split(",")
            .map(Number)
        : undefined,
  });
}
