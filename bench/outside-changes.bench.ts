/**
 * What following other programs' writes costs (main/library/outside-changes.ts) on a library
 * holding the generated 100k-entry session: one poll of an idle library (data_version only),
 * one that finds another connection's commit, the CPU of the timer over a few idle seconds, and
 * against them a poll that scans the entries table (the baseline it avoids); plus what the
 * change-log triggers add to an import of the 100k session. Run: node bench/outside-changes.bench.ts
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { createAppContext } from "../main/app-context.ts";
import { importPath } from "../main/library/import.ts";
import { OUTSIDE_POLL_MS, watchOutsideChanges } from "../main/library/outside-changes.ts";
import { openDatabase } from "../main/store/open.ts";
import { fmt, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const CHANGE_TRIGGERS = [
  "sessions_changed_insert",
  "sessions_changed_update",
  "sessions_changed_delete",
  "edit_ops_changed_insert",
  "edit_ops_changed_update",
  "archived_changed_insert",
  "archived_changed_delete",
];

/** µs per call of `fn`, the median of `rounds` rounds of `calls` calls. */
function microsPerCall(fn: () => void, calls: number, rounds = 7): number {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) fn();
    samples.push(((performance.now() - started) * 1000) / calls);
  }
  return median(samples);
}

/** Milliseconds to import `file` into a new library, with or without the change-log triggers. */
function importMs(dir: string, file: string, triggers: boolean, run: number): number {
  const dbFile = path.join(dir, `import-${triggers ? "log" : "nolog"}-${run}.db`);
  const db = openDatabase(dbFile);
  if (!triggers) for (const name of CHANGE_TRIGGERS) db.exec(`DROP TRIGGER ${name}`);
  const started = performance.now();
  importPath(db, file);
  const ms = performance.now() - started;
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${dbFile}${suffix}`, { force: true });
  return ms;
}

export async function runOutsideChangesBench(options: { idleSeconds?: number; imports?: number } = {}) {
  const generated = writeGeneratedSession(defaultGeneratedPath(100_000));
  const tmp = tempDir("canopy-bench-outside-");
  try {
    const dbPath = path.join(tmp.dir, "library.db");
    const setup = openDatabase(dbPath);
    const sessionId = importPath(setup, generated.file).files[0]?.sessionId;
    setup.close();
    if (!sessionId) throw new Error("the generated session did not import");

    const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false });
    let announced = 0;
    ctx.events.subscribe((name) => {
      if (name === "session:changed") announced++;
    });
    // The timer is not started here (a long interval): `check` is called by hand.
    const outside = watchOutsideChanges(ctx, { intervalMs: 3_600_000 });
    const other = new BetterSqlite3(dbPath);
    const rename = other.prepare("UPDATE sessions SET canopy_title = ? WHERE id = ?");
    let n = 0;

    const idle = microsPerCall(() => outside.check(), 20_000);
    // Another connection renames the session before each poll: the poll reads the log and announces.
    const foreignSamples: number[] = [];
    for (let i = 0; i < 300; i++) {
      rename.run(`title ${n++}`, sessionId);
      const started = performance.now();
      outside.check();
      foreignSamples.push((performance.now() - started) * 1000);
    }
    const foreign = median(foreignSamples);
    const scan = ctx.db.prepare("SELECT count(*), max(pk), sum(tokens) FROM entries");
    const scanPoll = microsPerCall(() => scan.get(), 20, 3);
    if (announced === 0) throw new Error("the poll announced nothing: the bench measures the wrong thing");

    // CPU of the real timer (OUTSIDE_POLL_MS) over idle seconds, against the same seconds without it.
    const seconds = options.idleSeconds ?? 5;
    const cpuOver = async (withTimer: boolean) => {
      const timer = withTimer ? watchOutsideChanges(ctx) : null;
      const keepAlive = setInterval(() => undefined, 1000);
      const before = process.cpuUsage();
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const used = process.cpuUsage(before);
      clearInterval(keepAlive);
      timer?.close();
      return (used.user + used.system) / 1000;
    };
    // Alternated, three of each: what the process does besides (GC, other threads) is noise.
    const cpuWithRuns: number[] = [];
    const cpuWithoutRuns: number[] = [];
    for (let round = 0; round < 3; round++) {
      cpuWithoutRuns.push(await cpuOver(false));
      cpuWithRuns.push(await cpuOver(true));
    }
    const cpuWith = median(cpuWithRuns);
    const cpuWithout = median(cpuWithoutRuns);
    outside.close();
    other.close();
    ctx.db.close();

    const pollsPerSecond = 1000 / OUTSIDE_POLL_MS;
    printTable(
      ["100k-entry library", "µs", "ratio to idle poll"],
      [
        ["idle poll (PRAGMA data_version)", fmt(idle, 2), "1"],
        ["poll after another connection's write (log + announce)", fmt(foreign, 1), fmt(foreign / idle, 0)],
        ["baseline: a poll that scans the entries table", fmt(scanPoll, 0), fmt(scanPoll / idle, 0)],
      ],
    );
    console.log(
      `idle polling at ${fmt(pollsPerSecond)}/s: ${fmt(idle * pollsPerSecond, 1)} µs of CPU per second (${fmt((idle * pollsPerSecond) / 1e4, 4)}% of a core); ` +
        `process CPU over ${seconds} idle s (median of 3): ${fmt(cpuWith, 1)} ms with the ${OUTSIDE_POLL_MS} ms timer, ${fmt(cpuWithout, 1)} ms without`,
    );

    const runs = options.imports ?? 2;
    const withLog: number[] = [];
    const withoutLog: number[] = [];
    // Alternated, and the fastest of each kept: on a shared machine the slow runs measure the others.
    for (let run = 0; run < runs; run++) {
      withoutLog.push(importMs(tmp.dir, generated.file, false, run));
      withLog.push(importMs(tmp.dir, generated.file, true, run));
    }
    const best = (values: number[]) => Math.min(...values);
    printTable(
      [`import of the ${fmt(generated.entries)}-entry session (fastest of ${runs})`, "ms", "ratio"],
      [
        ["without the change-log triggers (baseline)", fmt(best(withoutLog)), "1.00"],
        ["with them", fmt(best(withLog)), fmt(best(withLog) / best(withoutLog), 2)],
      ],
    );
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runOutsideChangesBench({
    idleSeconds: numberArg("--idle-seconds") ?? 5,
    imports: numberArg("--imports") ?? 2,
  });
}
