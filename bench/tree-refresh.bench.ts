/**
 * Refreshing an open big session after one agent append: the bytes and time of session:tree over
 * HTTP (the delta from the tree the page has, `since`, asked first as the open page does, then
 * the full answer), and in Chromium
 * (browser mode) the time from the page asking for the tree after the append (library:import
 * of the grown file announces it; the page refreshes) to the appended entry painted on the canvas.
 * Run: node --experimental-strip-types bench/tree-refresh.bench.ts [--entries N] [--runs N] [--no-browser]
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionTreeDto } from "../core/api/dto.ts";
import { importLiveFile } from "../main/library/import-live.ts";
import { startBrowserMode } from "../main/serve.ts";
import { openDatabase } from "../main/store/open.ts";
import { apiCall, buildRendererInto } from "../test/helpers/browser-mode.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import {
  fmt,
  importIntoNewLibrary,
  median,
  numberArg,
  printTable,
  tempDir,
  userLine,
} from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

declare const document: { querySelector(selector: string): unknown };
declare function requestAnimationFrame(callback: (now: number) => void): number;
type ResourceTiming = { name: string; encodedBodySize: number; responseEnd: number; startTime: number };

/**
 * session:tree over HTTP as the page asks it: bytes of the body, ms to the parsed answer. Each on
 * a connection of its own: importing the append between requests can take longer than the server
 * keeps an idle connection (5 s), and fetch's pool then reused one being closed (ECONNRESET).
 */
async function treeOverHttp(
  port: number,
  token: string,
  input: Record<string, unknown>,
): Promise<{ bytes: number; ms: number; tree: SessionTreeDto }> {
  const started = performance.now();
  const channel = input.since === undefined ? "session:tree" : "session:tree-update";
  const body = JSON.stringify(input);
  const text = await new Promise<string>((resolve, reject) => {
    const request = http.request(
      `http://127.0.0.1:${port}/api/${channel}`,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-canopy-token": token,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
  const result = JSON.parse(text) as { ok: boolean; value: SessionTreeDto; error?: { message: string } };
  if (!result.ok) throw new Error(result.error?.message);
  return { bytes: Buffer.byteLength(text), ms: performance.now() - started, tree: result.value };
}

export async function runTreeRefreshBench(
  options: { entries?: number; runs?: number; browser?: boolean } = {},
): Promise<void> {
  const count = options.entries ?? 100_000;
  const runs = options.runs ?? 5;
  const tmp = tempDir("canopy-tree-refresh-bench-");
  try {
    const generated = writeGeneratedSession(defaultGeneratedPath(count), count);
    // Appends go to a copy: the generated file is shared by the other benches.
    const file = path.join(tmp.dir, "session.jsonl");
    fs.copyFileSync(generated.file, file);
    const dbFile = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(dbFile, file);
    const rendererDir =
      options.browser === false
        ? path.join(tmp.dir, "none")
        : await buildRendererInto(path.join(tmp.dir, "renderer"));
    const mode = await startBrowserMode({ dbPath: dbFile, rendererDir, seedDemo: false, watch: false });
    // The agent's side: another connection appends and imports the new line (an outside write).
    const writer = openDatabase(dbFile);
    importLiveFile(writer, file);
    let leaf = (await treeOverHttp(mode.port, mode.token, { sessionId })).tree.fileLeafId as string;
    let n = 0;
    const append = (): string => {
      const id = `bench-append-${n++}`;
      fs.appendFileSync(file, userLine(id, leaf));
      importLiveFile(writer, file);
      leaf = id;
      return id;
    };
    const rows: string[][] = [];
    try {
      const full: { bytes: number; ms: number }[] = [];
      const delta: { bytes: number; ms: number }[] = [];
      let previous = await treeOverHttp(mode.port, mode.token, { sessionId });
      for (let run = 0; run < runs; run++) {
        append();
        // First, as the open page asks after an append: the delta from the tree it had.
        const since = (previous.tree as { version?: string }).version;
        const d = since === undefined ? undefined : await treeOverHttp(mode.port, mode.token, { sessionId, since });
        // Then the whole answer, as a page opening the session gets it.
        const f = await treeOverHttp(mode.port, mode.token, { sessionId });
        full.push(f);
        delta.push(d ?? f);
        previous = f;
      }
      const row = (name: string, xs: { bytes: number; ms: number }[]) => [
        name,
        fmt(median(xs.map((x) => x.bytes))),
        fmt(median(xs.map((x) => x.ms))),
      ];
      rows.push(row("full answer", full), row("delta (since)", delta));
      console.log(`\nsession:tree over HTTP after one append, ${fmt(count)} entries (median of ${runs})\n`);
      printTable(["", "bytes", "ms (request → parsed)"], rows);

      if (options.browser === false) return;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
        await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}`);
        await page.locator(`.tree-node[data-entry-id="${leaf}"]`).waitFor({ timeout: 120_000 });
        const shown: number[] = [];
        const bodies: number[] = [];
        const handled: number[] = [];
        for (let run = 0; run < runs; run++) {
          await page.evaluate(() => performance.clearResourceTimings());
          const id = `bench-append-${n++}`;
          fs.appendFileSync(file, userLine(id, leaf));
          leaf = id;
          // The server imports the new line and announces it: the page refreshes the open session.
          const imported = apiCall(mode, "library:import", { path: file });
          const figures = await page.evaluate(async (entryId) => {
            const shownAt = await new Promise<number>((resolve) => {
              const check = () =>
                document.querySelector(`.tree-node[data-entry-id="${entryId}"]`)
                  ? resolve(performance.now())
                  : requestAnimationFrame(check);
              requestAnimationFrame(check);
            });
            const trees = (performance.getEntriesByType("resource") as unknown as ResourceTiming[]).filter(
              (e) => e.name.includes("session%3Atree") || e.name.includes("session:tree"),
            );
            const last = trees[trees.length - 1];
            return {
              askedToShownMs: shownAt - (trees[0]?.startTime ?? Number.NaN),
              receivedToShownMs: shownAt - (last?.responseEnd ?? Number.NaN),
              bytes: trees.reduce((sum, e) => sum + e.encodedBodySize, 0),
              requests: trees.length,
            };
          }, id);
          await imported;
          shown.push(figures.askedToShownMs);
          handled.push(figures.receivedToShownMs);
          bodies.push(figures.bytes);
        }
        console.log(
          `\nChromium, browser mode: the page asks for the tree after an append → appended entry painted (median of ${runs})\n`,
        );
        printTable(
          ["", "tree answer bytes", "ms asked → entry painted", "of which answer received → painted"],
          [["after one append", fmt(median(bodies)), fmt(median(shown)), fmt(median(handled))]],
        );
      } finally {
        await browser.close();
      }
    } finally {
      writer.close();
      await mode.stop();
    }
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = numberArg("--entries");
  const runs = numberArg("--runs");
  await runTreeRefreshBench({
    ...(entries === undefined ? {} : { entries }),
    ...(runs === undefined ? {} : { runs }),
    browser: !process.argv.includes("--no-browser"),
  });
}
