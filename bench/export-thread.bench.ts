/**
 * How long an export of the generated 100k-entry session (196 MB) to a file, as the contract's
 * text (the desktop app's download) and as browser mode's download block the serving thread (the longest event-loop delay while it runs: what any
 * other request waits), when written on that thread (as before; InPlaceImports, as the CLI does)
 * against the import runner's thread (ThreadImports, as the app and browser mode do now), in one
 * run on the same library. The API's text export over HTTP (the JSON answer) is also measured as
 * the server sends it now (streamed from the spool, server/export-json.ts) against that answer made
 * one JSON string, as it was before. Run: node bench/export-thread.bench.ts [--entries 100000]
 */
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { EXPORT_FILE_TYPE } from "../core/api/contract.ts";
import { toJson } from "../core/text/json-deep.ts";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { answerRequest } from "../main/ipc.ts";
import { startBrowserServer } from "../main/server/index.ts";
import { postChannel } from "../test/helpers/post-channel.ts";
import { fmt, importIntoNewLibrary, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

interface Timing {
  wallMs: number;
  blockedMs: number;
  bytes: number;
}

/** `work`'s wall time and the longest event-loop delay meanwhile. */
async function measure(work: () => Promise<number>): Promise<Timing> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  const bytes = await work();
  const wallMs = performance.now() - started;
  // The delay of a turn is recorded when the monitor's timer next fires.
  await new Promise((resolve) => setTimeout(resolve, 5));
  delay.disable();
  return { wallMs, blockedMs: delay.max / 1e6, bytes };
}

/** An export to a file and a download, through the contract of a context with or without the runner's thread. */
async function exportBoth(
  dbPath: string,
  sessionId: string,
  outDir: string,
  importThread: boolean,
): Promise<{
  file: Timing;
  text: Timing;
  download: Timing;
  answer: Timing;
  answerWhole: Timing;
  ipc: Timing;
}> {
  const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false, importThread });
  const api = createApi(ctx);
  const server = await startBrowserServer({ api, rendererDir: outDir });
  try {
    const outPath = path.join(outDir, `export-${importThread ? "thread" : "here"}.jsonl`);
    const file = await measure(async () => {
      const result = await api.call("session:export", { sessionId, outPath });
      if (!result.ok) throw new Error(result.error.message);
      return fs.statSync(outPath).size;
    });
    fs.rmSync(outPath);
    const text = await measure(async () => {
      const result = await api.call("session:export", { sessionId });
      if (!result.ok) throw new Error(result.error.message);
      return Buffer.byteLength(result.value.text ?? "");
    });
    const download = await measure(async () => {
      const body = JSON.stringify({ sessionId });
      const response = await postChannel(server, "session:export", body, EXPORT_FILE_TYPE);
      let bytes = 0;
      for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).length;
      return bytes;
    });
    // The API's text export over HTTP: the JSON answer, streamed from the spool a slice per turn …
    const answer = await measure(async () => {
      const response = await postChannel(server, "session:export", JSON.stringify({ sessionId }));
      let bytes = 0;
      for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).length;
      return bytes;
    });
    // … against that answer made one JSON string, as the server did before (res.end(toJson(result))).
    const answerWhole = await measure(async () => {
      const result = await api.call("session:export", { sessionId });
      return Buffer.byteLength(toJson(result));
    });
    // The desktop app's IPC answer, until it is handed back (Electron then flattens it as it sends it).
    const ipc = await measure(
      async () => (await answerRequest(api, "session:export", JSON.stringify({ sessionId }))).length,
    );
    return { file, text, download, answer, answerWhole, ipc };
  } finally {
    await server.close();
    await ctx.imports.close();
    ctx.db.close();
  }
}

export async function runExportThreadBench(options: { entries?: number } = {}): Promise<void> {
  const generated = writeGeneratedSession(defaultGeneratedPath(options.entries), options.entries);
  const tmp = tempDir("canopy-export-thread-");
  try {
    const source = path.join(tmp.dir, "session.jsonl");
    fs.copyFileSync(generated.file, source);
    // Not one its agent is writing: the live-folder guard is not what is measured.
    fs.utimesSync(source, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const dbPath = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(dbPath, source);
    const outDir = path.join(tmp.dir, "out");
    fs.mkdirSync(outDir);
    const before = await exportBoth(dbPath, sessionId, outDir, false);
    const now = await exportBoth(dbPath, sessionId, outDir, true);
    for (const t of [before.file, before.text, before.download, now.file, now.text, now.download]) {
      if (t.bytes !== before.file.bytes)
        throw new Error(`export sizes differ: ${t.bytes} vs ${before.file.bytes}`);
    }
    if (now.ipc.bytes !== now.answerWhole.bytes) throw new Error(`IPC answer differs: ${now.ipc.bytes}`);
    if (now.answer.bytes !== now.answerWhole.bytes)
      throw new Error(`answer sizes differ: ${now.answer.bytes} vs ${now.answerWhole.bytes}`);
    const mb = fmt(before.file.bytes / 1e6, 1);
    const row = (what: string, a: Timing, b: Timing): string[][] => [
      [what, "before: on the serving thread", fmt(a.wallMs, 0), fmt(a.blockedMs, 1), ""],
      [
        "",
        "now: import runner's thread",
        fmt(b.wallMs, 0),
        fmt(b.blockedMs, 1),
        `${fmt(a.blockedMs / Math.max(b.blockedMs, 0.01), 0)}× less blocked`,
      ],
    ];
    console.log(
      `export of a ${mb} MB session; blocked = longest event-loop delay while it runs (now: the first export starts the thread);\n` +
        "text: until its byte length is taken, which makes the text one flat string as sending it over IPC does\n" +
        "(what is left blocked now: the string is read back a chunk per turn, but made flat at once)\n",
    );
    printTable(
      ["export", "route", "ms", "blocked ms", ""],
      [
        ...row("to a file (outPath)", before.file, now.file),
        ...row("text (desktop download)", before.text, now.text),
        ...row("browser-mode download", before.download, now.download),
        ...row("API text (HTTP JSON answer)", before.answer, now.answer),
        ...row("text over IPC (desktop app)", before.ipc, now.ipc),
        [
          "",
          "now, answer one JSON string (as before)",
          fmt(now.answerWhole.wallMs, 0),
          fmt(now.answerWhole.blockedMs, 1),
          `${fmt(now.answerWhole.blockedMs / Math.max(now.answer.blockedMs, 0.01), 0)}× more than streamed`,
        ],
      ],
    );
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runExportThreadBench({ entries: numberArg("--entries") });
}
