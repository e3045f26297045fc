/**
 * A large live session file rewritten before its old end (a line in the middle made longer, one
 * appended): how long its re-import blocks the serving thread (the longest event-loop delay while
 * it runs: what a window request waits), by the old route (importLiveFile: the full import on this
 * thread) against the route the watcher, the export guard and restore take now (reimportLive: the
 * import runner's thread), each once on the same library, in the same run.
 * Run: node bench/live-rewrite.bench.ts [--entries 100000] (the generated session, ~196 MB)
 */
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { importPath } from "../main/library/import.ts";
import { importLiveFile } from "../main/library/import-live.ts";
import { ThreadImports } from "../main/library/import-runner.ts";
import { reimportLive } from "../main/library/live-reimport.ts";
import { checkpointWal, openDatabase } from "../main/store/open.ts";
import { fmt, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

interface Timing {
  wallMs: number;
  blockedMs: number;
  entriesAdded: number;
}

/** Runs `work` from a timer, as the watcher does; its wall time and the longest event-loop delay meanwhile. */
async function measure(work: () => Promise<number> | number): Promise<Timing> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  const entriesAdded = await new Promise<number>((resolve, reject) =>
    setTimeout(() => Promise.resolve(work()).then(resolve, reject), 0),
  );
  const wallMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 5));
  delay.disable();
  return { wallMs, blockedMs: delay.max / 1e6, entriesAdded };
}

export async function runLiveRewriteBench(options: { entries?: number } = {}): Promise<void> {
  const generated = writeGeneratedSession(defaultGeneratedPath(options.entries), options.entries);
  const tmp = tempDir("canopy-live-rewrite-");
  try {
    const file = path.join(tmp.dir, "session.jsonl");
    fs.copyFileSync(generated.file, file);
    const dbPath = path.join(tmp.dir, "library.db");
    const db = openDatabase(dbPath);
    if (!importPath(db, file).files[0]?.sessionId) throw new Error(`${file} did not import`);
    checkpointWal(db);
    const runner = new ThreadImports(db, dbPath);
    let n = 0;
    /** A line in the middle made longer (its length shifts every later byte), one line appended. */
    const rewrite = (): void => {
      const text = fs.readFileSync(file, "utf8");
      const at = text.indexOf('"text":"', Math.floor(text.length / 2)) + '"text":"'.length;
      const line = JSON.stringify({
        type: "message",
        id: `rewrite-${++n}`,
        parentId: generated.deepestLeafId,
        timestamp: new Date().toISOString(),
        message: {
          role: "user",
          content: [{ type: "text", text: `after rewrite ${n}` }],
          timestamp: Date.now(),
        },
      });
      fs.writeFileSync(file, `${text.slice(0, at)}(edited ${n}) ${text.slice(at)}${line}\n`);
    };
    rewrite();
    const before = await measure(() => importLiveFile(db, file).report.entriesAdded);
    checkpointWal(db);
    rewrite();
    const now = await measure(async () => (await reimportLive(db, runner, file))?.report.entriesAdded ?? -1);
    await runner.close();
    db.close();
    for (const t of [before, now])
      if (t.entriesAdded !== 1) throw new Error(`expected 1 entry added, got ${t.entriesAdded}`);
    const mb = fmt(fs.statSync(file).size / 1e6, 1);
    console.log(
      "a line in the middle rewritten and one appended; blocked = longest event-loop delay while the re-import runs\n" +
        "(now: the runner thread's start is in its wall time)\n",
    );
    printTable(
      ["session", "route", "re-import ms", "blocked ms"],
      [
        [`${mb} MB`, "before: full import on this thread", fmt(before.wallMs, 0), fmt(before.blockedMs, 1)],
        ["", "now: import runner's thread", fmt(now.wallMs, 0), fmt(now.blockedMs, 1)],
        ["", "", "", `${fmt(before.blockedMs / Math.max(now.blockedMs, 0.01), 0)}× less blocked`],
      ],
    );
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runLiveRewriteBench({ entries: numberArg("--entries") });
}
