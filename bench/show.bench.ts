/**
 * `canopy show` on the generated 100k-entry session: the old route (session:get's whole detail
 * rendered into one string, bench/show/old-route.ts) against `canopy show` now (one-pass outline,
 * streamed), each in a child process of its own: time, peak memory, and whether the two printed
 * the same bytes. Then, in this process: session:get, what `canopy chat` reads after a turn
 * (session:get before, session:entries now) and the label read behind edits:label (the old plan,
 * forced, against the label index). Old and new run in turns so a busy machine weighs on both.
 * Run: node --experimental-strip-types bench/show.bench.ts [--runs N]
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { requireSession } from "../main/library/load.ts";
import { LABEL_PKS_SQL } from "../main/store/repos/entries.ts";
import { oldSessionDetail } from "../test/helpers/show-oracle.ts";
import {
  fmt,
  importIntoNewLibrary,
  median,
  numberArg,
  printTable,
  repoRoot,
  tempDir,
} from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE_ARGS = [
  "--experimental-strip-types",
  "--no-warnings",
  "--import",
  path.join(here, "show", "child-usage.ts"),
];

interface ChildRun {
  ms: number;
  cpu: number;
  rss: number;
  bytes: number;
  sha: string;
}

/** Runs a child whose stdout is hashed and counted here. */
function runChild(args: string[]): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      cwd: repoRoot,
      env: { ...process.env, CANOPY_NO_DEMO: "1" },
    });
    const hash = createHash("sha256");
    let bytes = 0;
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`exit ${code}: ${stderr.slice(-500)}`));
      const usage = /USAGE rss=(\d+) cpu=(\d+)/.exec(stderr);
      resolve({
        ms,
        cpu: Number(usage?.[2] ?? 0),
        rss: Number(usage?.[1] ?? 0),
        bytes,
        sha: hash.digest("hex"),
      });
    });
  });
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Median wall and CPU ms of `run`, `runs` times. */
async function timed(runs: number, run: () => unknown): Promise<{ ms: number; cpu: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = cpuNow();
    const started = performance.now();
    await run();
    wall.push(performance.now() - started);
    cpu.push(cpuNow() - c);
  }
  return { ms: median(wall), cpu: median(cpu) };
}

export async function runShowBench(options: { runs?: number } = {}): Promise<void> {
  const runs = options.runs ?? 3;
  const generated = writeGeneratedSession(defaultGeneratedPath());
  const tmp = tempDir("canopy-show-bench-");
  try {
    const db = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(db, generated.file);
    const cli = path.join(repoRoot, "main", "cli.ts");
    const old = path.join(here, "show", "old-route.ts");
    const shows: { old: ChildRun[]; now: ChildRun[] } = { old: [], now: [] };
    for (let i = 0; i < Math.max(1, runs - 1); i++) {
      shows.old.push(await runChild([old, db, sessionId]));
      shows.now.push(await runChild([cli, "show", sessionId, "--db", db]));
    }
    const mid = (list: ChildRun[], key: "ms" | "cpu" | "rss") => median(list.map((r) => r[key]));
    const same =
      shows.old.every((r) => r.sha === shows.now[0]?.sha) &&
      shows.now.every((r) => r.sha === shows.now[0]?.sha);
    console.log(
      `${generated.entries} entries; canopy show printed ${fmt((shows.now[0]?.bytes ?? 0) / 1e6, 1)} MB, ` +
        `${same ? "the same bytes by both routes" : "DIFFERENT bytes by the two routes"}; medians of ${shows.now.length} runs each`,
    );
    const ratio = (key: "ms" | "cpu") => fmt(mid(shows.old, key) / mid(shows.now, key), 1);
    printTable(
      ["canopy show (own process)", "ms", "CPU ms", "peak RSS MB"],
      [
        [
          "old: session:get + one string",
          fmt(mid(shows.old, "ms")),
          fmt(mid(shows.old, "cpu")),
          fmt(mid(shows.old, "rss") / 1e6),
        ],
        [
          `now: outline, streamed (${ratio("ms")}x time, ${ratio("cpu")}x CPU)`,
          fmt(mid(shows.now, "ms")),
          fmt(mid(shows.now, "cpu")),
          fmt(mid(shows.now, "rss") / 1e6),
        ],
      ],
    );

    const api = createApi(createAppContext({ dbPath: db, seedDemo: false, loadUserHooks: false, env: {} }));
    try {
      const { sid } = requireSession(api.ctx.db, sessionId);
      const ids = [generated.deepestLeafId];
      const rows: string[][] = [];
      const pair = async (name: string, before: () => unknown, after: () => unknown) => {
        const b = await timed(runs, before);
        const a = await timed(runs, after);
        rows.push([`${name}: before`, fmt(b.ms, 1), fmt(b.cpu, 1)]);
        rows.push([`${name}: now (${fmt(b.ms / a.ms, 1)}x)`, fmt(a.ms, 1), fmt(a.cpu, 1)]);
      };
      await pair(
        "session:get",
        () => oldSessionDetail(api.ctx.db, sessionId),
        () => api.call("session:get", { sessionId }),
      );
      await pair(
        "canopy chat's read after a turn",
        () => api.call("session:get", { sessionId }),
        () => api.call("session:entries", { sessionId, entryIds: ids }),
      );
      // The plan before schema v7, forced: a walk over the session's (sid, seq) index.
      const oldLabels = api.ctx.db.prepare(
        LABEL_PKS_SQL.replace("FROM entries", "FROM entries INDEXED BY sqlite_autoindex_entries_1"),
      );
      const newLabels = api.ctx.db.prepare(LABEL_PKS_SQL);
      await pair(
        "label read of edits:label",
        () => oldLabels.all(sid),
        () => newLabels.all(sid),
      );
      const label = await timed(runs, async () => {
        await api.call("edits:label", { sessionId, targetId: generated.deepestLeafId, label: "bench" });
        return api.call("edits:undo", { sessionId });
      });
      rows.push(["edits:label + edits:undo now", fmt(label.ms, 1), fmt(label.cpu, 1)]);
      console.log("");
      printTable(["in process", "ms", "CPU ms"], rows);
    } finally {
      api.ctx.db.close();
    }
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runShowBench({ runs: numberArg("--runs") ?? 3 });
}
