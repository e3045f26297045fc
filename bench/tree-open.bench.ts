/**
 * Opening a large session's tree, step by step: building session:tree on the main side (the
 * route against the old route, test/helpers/tree-nodes-reference.ts, in the same run), the
 * answer's JSON (stringify, size, parse), the canvas layout in Node, and in Chromium (browser
 * mode) the time from asking for the session to the tree answer received and the first painted
 * frame with nodes. Prints figures; never fails.
 * Run: node --experimental-strip-types bench/tree-open.bench.ts [--entries N] [--runs N] [--no-browser]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import type { SessionSummary, SessionTreeDto } from "../core/api/dto.ts";
import { loadSessionTree } from "../main/library/tree-nodes.ts";
import { openDatabase } from "../main/store/open.ts";
import { type BrowserMode, startBrowserMode } from "../main/serve.ts";
import { layoutTree } from "../renderer/src/features/tree/layout.ts";
import { apiCall, buildRendererInto } from "../test/helpers/browser-mode.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import { loadSessionTreeReference } from "../test/helpers/tree-nodes-reference.ts";
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

// The function passed to page.evaluate runs in Chromium; the project is type-checked without
// the DOM library, so the page globals it uses are declared here (module-local).
declare const document: {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): { length: number };
};
declare const location: { hash: string };
declare function requestAnimationFrame(callback: (now: number) => void): number;
type ResourceTiming = { name: string; responseEnd: number; startTime: number };

export interface ServerFigures {
  entries: number;
  referenceMs: number;
  routeMs: number;
  stringifyMs: number;
  payloadBytes: number;
  parseMs: number;
  layoutMs: number;
}

export interface BrowserFigures {
  /** Hash change → session:tree answer received. */
  treeReceivedMs: number;
  /** Hash change → first painted frame with tree nodes. */
  firstPaintMs: number;
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

/** Old route and route alternately, `runs` times each, on one library; medians. */
export function measureServer(
  dbFile: string,
  sessionId: string,
  entries: number,
  runs: number,
): ServerFigures {
  const db = openDatabase(dbFile);
  try {
    const reference: number[] = [];
    const route: number[] = [];
    const stringify: number[] = [];
    const parse: number[] = [];
    const layout: number[] = [];
    let payloadBytes = 0;
    for (let run = 0; run < runs; run++) {
      reference.push(timed(() => loadSessionTreeReference(db, sessionId)).ms);
      const built = timed(() => loadSessionTree(db, sessionId));
      route.push(built.ms);
      // What browser mode's HTTP server does with the answer, and the page with the body.
      const text = timed(() => JSON.stringify({ ok: true, value: built.value }));
      stringify.push(text.ms);
      payloadBytes = Buffer.byteLength(text.value);
      const parsed = timed(() => (JSON.parse(text.value) as { value: SessionTreeDto }).value);
      parse.push(parsed.ms);
      const tree = parsed.value;
      layout.push(timed(() => layoutTree(tree.nodes, { filter: "default", viewLeafId: tree.viewLeafId })).ms);
    }
    return {
      entries,
      referenceMs: median(reference),
      routeMs: median(route),
      stringifyMs: median(stringify),
      payloadBytes,
      parseMs: median(parse),
      layoutMs: median(layout),
    };
  } finally {
    db.close();
  }
}

/**
 * Opens the small session at its deep link, then switches the hash to the big one and waits in
 * the page for the first painted frame with nodes (median of `runs` opens, a fresh page each).
 */
async function measureBrowser(
  browser: Browser,
  mode: BrowserMode,
  smallId: string,
  bigId: string,
  runs: number,
): Promise<BrowserFigures> {
  const opens: BrowserFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    try {
      await page.goto(`${mode.url}#/session/${encodeURIComponent(smallId)}`);
      await page.locator(`.tree-canvas[data-tree-session="${smallId}"] .tree-node`).first().waitFor();
      opens.push(
        await page.evaluate(async (id) => {
          performance.clearResourceTimings();
          const started = performance.now();
          location.hash = `#/session/${encodeURIComponent(id)}`;
          const painted = () =>
            document.querySelector(".tree-canvas")?.getAttribute("data-tree-session") === id &&
            document.querySelectorAll(".tree-canvas .tree-node").length > 0;
          await new Promise<void>((resolve) => {
            const check = () => (painted() ? resolve() : requestAnimationFrame(check));
            requestAnimationFrame(check);
          });
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          const firstPaintMs = performance.now() - started;
          let treeReceivedMs = Number.NaN;
          for (const entry of performance.getEntriesByType("resource") as unknown as ResourceTiming[]) {
            if (entry.name.includes("/api/session%3Atree") || entry.name.includes("/api/session:tree"))
              treeReceivedMs = entry.responseEnd - started;
          }
          return { firstPaintMs, treeReceivedMs };
        }, bigId),
      );
    } finally {
      await page.close();
    }
  }
  const byPaint = [...opens].sort((a, b) => a.firstPaintMs - b.firstPaintMs);
  return byPaint[Math.floor((byPaint.length - 1) / 2)] as BrowserFigures;
}

export async function runTreeOpenBench(
  options: { entries?: readonly number[]; runs?: number; browser?: boolean } = {},
): Promise<void> {
  const counts = options.entries ?? [25_000, 100_000];
  const runs = options.runs ?? 3;
  const tmp = tempDir("canopy-tree-open-bench-");
  const rows: string[][] = [];
  const browserRows: string[][] = [];
  let browser: Browser | undefined;
  try {
    const rendererDir =
      options.browser === false ? null : await buildRendererInto(path.join(tmp.dir, "renderer"));
    for (const count of counts) {
      const generated = writeGeneratedSession(defaultGeneratedPath(count), count);
      const dbFile = path.join(tmp.dir, `library-${count}.db`);
      const sessionId = importIntoNewLibrary(dbFile, generated.file);
      const s = measureServer(dbFile, sessionId, count, runs);
      rows.push([
        fmt(count),
        fmt(s.referenceMs),
        fmt(s.routeMs),
        `${fmt(s.referenceMs / s.routeMs, 1)}×`,
        fmt(s.stringifyMs),
        fmt(s.payloadBytes / 1e6, 1),
        fmt(s.parseMs),
        fmt(s.layoutMs),
      ]);
      if (!rendererDir) continue;
      const mode = await startBrowserMode({ dbPath: dbFile, rendererDir, seedDemo: false, watch: false });
      try {
        await apiCall(mode, "library:import", {
          path: path.join(repoRoot, "main", "demo", "refactor-small.jsonl"),
        });
        const small = (await apiCall<SessionSummary[]>(mode, "library:list", {})).find(
          (x) => x.id !== sessionId,
        );
        if (!small) throw new Error("the small session was not imported");
        browser ??= await launchChromium();
        const b = await measureBrowser(browser, mode, small.id, sessionId, runs);
        browserRows.push([
          fmt(count),
          fmt(b.treeReceivedMs),
          fmt(b.firstPaintMs - b.treeReceivedMs),
          fmt(b.firstPaintMs),
        ]);
      } finally {
        await mode.stop();
      }
    }
  } finally {
    await browser?.close();
    tmp.cleanup();
  }
  console.log(
    `\nsession:tree on the main side (median of ${runs}; old route = before the tree-open change, same run)\n`,
  );
  printTable(
    [
      "entries",
      "old route ms",
      "route ms",
      "old / route",
      "stringify ms",
      "answer MB",
      "parse ms",
      "layout ms",
    ],
    rows,
  );
  if (browserRows.length === 0) return;
  console.log(`\nChromium, browser mode: deep link to the session → (median of ${runs} opens)\n`);
  printTable(
    ["entries", "session:tree received ms", "then to first paint ms", "first paint ms"],
    browserRows,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = numberArg("--entries");
  const runs = numberArg("--runs");
  await runTreeOpenBench({
    ...(entries === undefined ? {} : { entries: [entries] }),
    ...(runs === undefined ? {} : { runs }),
    browser: !process.argv.includes("--no-browser"),
  });
}
