/**
 * Exporting the generated 100k-entry session (196 MB) to a file, to stdout and through browser
 * mode's download, by the old route (the whole text built as one string, old-routes.ts) and the
 * route the code takes now (`canopy export`, browser mode's server), in one run: time and the
 * exporting process's peak memory (maxRSS; heap = heap + external + array buffers, sampled every
 * 10 ms). Each export runs in a child process of its own, so one route's memory is not another's.
 * Run: node --experimental-strip-types bench/export-stream.bench.ts [entries=100000]
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";
import { fmt, importIntoNewLibrary, repoRoot, tempDir } from "./bench-utils.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE_ARGS = [
  "--experimental-strip-types",
  "--no-warnings",
  "--import",
  path.join(here, "export-stream", "peak-memory.ts"),
];

interface Run {
  ms: number;
  rss: number;
  heap: number;
  bytes: number;
}

function peakOf(stderr: string): { rss: number; heap: number } {
  const match = /PEAK rss=(\d+) heap=(\d+)/.exec(stderr);
  if (!match) throw new Error(`no peak reported: ${stderr.slice(-500)}`);
  return { rss: Number(match[1]), heap: Number(match[2]) };
}

/** Runs a child that writes the export to its stdout (counted here) or to a file. */
function runChild(args: string[], outFile?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      cwd: repoRoot,
      env: { ...process.env, CANOPY_NO_DEMO: "1" },
    });
    let bytes = 0;
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`exit ${code}: ${stderr.slice(-500)}`));
      if (outFile) bytes = fs.statSync(outFile).size;
      resolve({ ms, bytes, ...peakOf(stderr) });
    });
  });
}

/** Starts a server child, downloads the export from it (timed), stops it. */
function runServer(args: string[], sessionId: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
      cwd: repoRoot,
      env: { ...process.env, CANOPY_NO_DEMO: "1", CANOPY_NO_WATCH: "1" },
    });
    let stdout = "";
    let stderr = "";
    let result: { ms: number; bytes: number } | undefined;
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("close", () => {
      if (!result) return reject(new Error(`server ended: ${stderr.slice(-500)}`));
      resolve({ ...result, ...peakOf(stderr) });
    });
    child.stdout.on("data", async (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /PORT (\d+) TOKEN (\S+)/.exec(stdout);
      if (!match || result) return;
      result = { ms: 0, bytes: 0 };
      const started = performance.now();
      try {
        const response = await fetch(`http://127.0.0.1:${match[1]}/api/session:export`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/jsonl",
            "x-canopy-token": match[2] as string,
          },
          body: JSON.stringify({ sessionId }),
        });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        for await (const part of response.body) result.bytes += (part as Uint8Array).length;
        result.ms = performance.now() - started;
      } catch (error) {
        stderr += String(error);
        result = undefined;
      }
      child.kill("SIGTERM");
    });
  });
}

const mb = (bytes: number) => `${fmt(bytes / 1e6)} MB`;

export async function runExportStreamBench(count = 100_000): Promise<void> {
  const generated = writeGeneratedSession(defaultGeneratedPath(count), count);
  const tmp = tempDir("canopy-export-bench-");
  try {
    const db = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(db, generated.file);
    console.log(`${count} entries, ${mb(generated.bytes)}; each route in its own process`);
    const out = path.join(tmp.dir, "out.jsonl");
    const old = path.join(here, "export-stream", "old-routes.ts");
    const cli = path.join(repoRoot, "main", "cli.ts");
    const routes: [string, () => Promise<Run>][] = [
      ["idle (canopy list)", () => runChild([cli, "list", "--db", db])],
      ["file   old", () => runChild([old, "file", db, sessionId, out], out)],
      ["file   now", () => runChild([cli, "export", sessionId, "--out", out, "--db", db], out)],
      ["stdout old", () => runChild([old, "stdout", db, sessionId])],
      ["stdout now", () => runChild([cli, "export", sessionId, "--db", db])],
      ["http   old", () => runServer([old, "http", db, sessionId], sessionId)],
      ["http   now", () => runServer([path.join(here, "export-stream", "new-http.ts"), db], sessionId)],
    ];
    for (const [name, run] of routes) {
      const r = await run();
      console.log(
        `${name.padEnd(18)} ${fmt(r.ms).padStart(6)} ms  peak RSS ${mb(r.rss).padStart(7)}  peak heap ${mb(r.heap).padStart(7)}  ${mb(r.bytes)} out`,
      );
    }
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runExportStreamBench(Number(process.argv[2] ?? 100_000));
}
