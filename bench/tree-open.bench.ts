/**
 * Opening a large session's tree, step by step: building session:tree on the main side (the
 * route against the old route, test/helpers/tree-nodes-reference.ts, in the same run), the
 * answer's JSON (stringify, size, parse), the canvas layout in Node, and in Chromium (browser
 * mode) the time from asking for the session to the tree answer received and the first painted
 * frame with nodes, and the longest task meanwhile (the page frozen). Prints figures; never fails.
 * Run: node --experimental-strip-types bench/tree-open.bench.ts [--entries N] [--runs N] [--no-browser]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import type { SessionSummary, SessionTreeDto } from "../core/api/dto.ts";
import { loadSessionTree } from "../main/library/tree-nodes.ts";
import { openDatabase } from "../main/store/open.ts";
import { startBrowserMode } from "../main/serve.ts";
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
  timed,
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
type TaskTiming = { startTime: number; duration: number };
declare class PerformanceObserver {
  constructor(callback: (list: { getEntries(): TaskTiming[] }) => void);
  observe(options: { type: string }): void;
  takeRecords(): TaskTiming[];
  disconnect(): void;
}

export interface ServerFigures {
  entries: number;
  referenceMs: number;
  /** The route on a new connection (nothing kept yet): opening a session the first time. */
  routeMs: number;
  /** The route again (facts kept from the first load): a re-open, or the refresh after a change. */
  reloadMs: number;
  stringifyMs: number;
  payloadBytes: number;
  /** The old route's answer (200-character snippets ending in "…", `hasText` always): stringify and size. */
  oldStringifyMs: number;
  oldPayloadBytes: number;
  parseMs: number;
  layoutMs: number;
}

export interface OpenFigures {
  /** Hash change → session:tree answer received. */
  treeReceivedMs: number;
  /** Hash change → first painted frame with tree nodes. */
  firstPaintMs: number;
  /**
   * The longest task (the page not answering input) from the hash change to LONG_TASK_AFTER_PAINT_MS
   * after the first paint (Long Tasks API: tasks of 50 ms and more; 0 when none).
   */
  longestTaskMs: number;
}

/** How long after the first paint the tasks of the open are still counted (effects, the rest of the draw). */
const LONG_TASK_AFTER_PAINT_MS = 500;

export interface BrowserFigures {
  /** The first open after the server started. */
  first: OpenFigures;
  /** Back to the small session and again to the big one. */
  again: OpenFigures;
}

/** Old route, route on a new connection and route again, `runs` times each, on one library; medians. */
export function measureServer(
  dbFile: string,
  sessionId: string,
  entries: number,
  runs: number,
): ServerFigures {
  const reference: number[] = [];
  const route: number[] = [];
  const reload: number[] = [];
  const stringify: number[] = [];
  const oldStringify: number[] = [];
  let oldPayloadBytes = 0;
  const parse: number[] = [];
  const layout: number[] = [];
  let payloadBytes = 0;
  for (let run = 0; run < runs; run++) {
    // A new connection each run: what the route keeps in memory is kept per connection.
    const db = openDatabase(dbFile);
    try {
      const old = timed(() => loadSessionTreeReference(db, sessionId));
      reference.push(old.ms);
      const oldText = timed(() => JSON.stringify({ ok: true, value: old.value }));
      oldStringify.push(oldText.ms);
      oldPayloadBytes = Buffer.byteLength(oldText.value);
      route.push(timed(() => loadSessionTree(db, sessionId)).ms);
      const built = timed(() => loadSessionTree(db, sessionId));
      reload.push(built.ms);
      // What browser mode's HTTP server does with the answer, and the page with the body.
      const text = timed(() => JSON.stringify({ ok: true, value: built.value }));
      stringify.push(text.ms);
      payloadBytes = Buffer.byteLength(text.value);
      const parsed = timed(() => (JSON.parse(text.value) as { value: SessionTreeDto }).value);
      parse.push(parsed.ms);
      const tree = parsed.value;
      layout.push(timed(() => layoutTree(tree.nodes, { filter: "default", viewLeafId: tree.viewLeafId })).ms);
    } finally {
      db.close();
    }
  }
  return {
    entries,
    referenceMs: median(reference),
    routeMs: median(route),
    reloadMs: median(reload),
    stringifyMs: median(stringify),
    payloadBytes,
    oldStringifyMs: median(oldStringify),
    oldPayloadBytes,
    parseMs: median(parse),
    layoutMs: median(layout),
  };
}

/** Switches the page's hash to the session and waits in the page for the first painted frame with its nodes. */
async function openByHash(page: Page, sessionId: string): Promise<OpenFigures> {
  return page.evaluate(
    async ({ id, afterPaint }) => {
      performance.clearResourceTimings();
      const tasks: TaskTiming[] = [];
      const observer = new PerformanceObserver((list) => {
        tasks.push(...list.getEntries());
      });
      observer.observe({ type: "longtask" });
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
      await new Promise((resolve) => setTimeout(resolve, afterPaint));
      tasks.push(...observer.takeRecords());
      observer.disconnect();
      let longestTaskMs = 0;
      for (const task of tasks) {
        if (task.startTime >= started && task.startTime <= started + firstPaintMs + afterPaint)
          longestTaskMs = Math.max(longestTaskMs, task.duration);
      }
      return { firstPaintMs, treeReceivedMs, longestTaskMs };
    },
    { id: sessionId, afterPaint: LONG_TASK_AFTER_PAINT_MS },
  );
}

/**
 * Per run, a new server on the library (nothing kept in memory): the page opens the small
 * session at its deep link, then the big one (first open), the small one and the big one again.
 */
async function measureBrowser(
  browser: Browser,
  dbFile: string,
  rendererDir: string,
  smallId: string,
  bigId: string,
  runs: number,
): Promise<BrowserFigures> {
  const opens: BrowserFigures[] = [];
  for (let run = 0; run < runs; run++) {
    const mode = await startBrowserMode({ dbPath: dbFile, rendererDir, seedDemo: false, watch: false });
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    try {
      await page.goto(`${mode.url}#/session/${encodeURIComponent(smallId)}`);
      await page.locator(`.tree-canvas[data-tree-session="${smallId}"] .tree-node`).first().waitFor();
      const first = await openByHash(page, bigId);
      await openByHash(page, smallId);
      const again = await openByHash(page, bigId);
      opens.push({ first, again });
    } finally {
      await page.close();
      await mode.stop();
    }
  }
  const mid = <T>(values: T[], key: (v: T) => number): T =>
    [...values].sort((a, b) => key(a) - key(b))[Math.floor((values.length - 1) / 2)] as T;
  // The open of median first paint, with the median of the longest tasks (of any run).
  const pick = (which: (o: BrowserFigures) => OpenFigures): OpenFigures => ({
    ...mid(opens.map(which), (o) => o.firstPaintMs),
    longestTaskMs: median(opens.map((o) => which(o).longestTaskMs)),
  });
  return { first: pick((o) => o.first), again: pick((o) => o.again) };
}

export async function runTreeOpenBench(
  options: { entries?: readonly number[]; runs?: number; browser?: boolean } = {},
): Promise<void> {
  const counts = options.entries ?? [25_000, 100_000];
  const runs = options.runs ?? 3;
  const tmp = tempDir("canopy-tree-open-bench-");
  const rows: string[][] = [];
  const browserRows: string[][] = [];
  const httpLines: string[] = [];
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
        fmt(s.reloadMs),
        `${fmt(s.referenceMs / s.reloadMs, 1)}×`,
        `${fmt(s.oldStringifyMs)} → ${fmt(s.stringifyMs)}`,
        `${fmt(s.oldPayloadBytes / 1e6, 1)} → ${fmt(s.payloadBytes / 1e6, 1)}`,
        fmt(s.parseMs),
        fmt(s.layoutMs),
      ]);
      if (!rendererDir) continue;
      const setup = await startBrowserMode({ dbPath: dbFile, rendererDir, seedDemo: false, watch: false });
      let smallId: string;
      try {
        await apiCall(setup, "library:import", {
          path: path.join(repoRoot, "main", "demo", "refactor-small.jsonl"),
        });
        const small = (await apiCall<SessionSummary[]>(setup, "library:list", {})).find(
          (x) => x.id !== sessionId,
        );
        if (!small) throw new Error("the small session was not imported");
        smallId = small.id;
        // What the open asks the server for, each alone over HTTP (one thread answers them in turn).
        const http: string[] = [];
        for (const channel of ["session:tree", "context:get"]) {
          const times: number[] = [];
          for (let run = 0; run < runs; run++) {
            const started = performance.now();
            await apiCall(setup, channel, { sessionId });
            times.push(performance.now() - started);
          }
          http.push(`${channel} ${fmt(median(times))}`);
        }
        httpLines.push(
          `${fmt(count)} entries: ${http.join(", ")} ms (median of ${runs}, the same server: reloads)`,
        );
      } finally {
        await setup.stop();
      }
      browser ??= await launchChromium();
      const b = await measureBrowser(browser, dbFile, rendererDir, smallId, sessionId, runs);
      for (const [name, o] of [
        ["first open", b.first],
        ["open again", b.again],
      ] as const) {
        browserRows.push([
          fmt(count),
          name,
          fmt(o.treeReceivedMs),
          fmt(o.firstPaintMs - o.treeReceivedMs),
          fmt(o.firstPaintMs),
          fmt(o.longestTaskMs),
        ]);
      }
    }
  } finally {
    await browser?.close();
    tmp.cleanup();
  }
  console.log(
    `\nsession:tree on the main side (median of ${runs}; old route = before the tree-open change, same run; ` +
      "first = a new connection, reload = the same connection again)\n",
  );
  printTable(
    [
      "entries",
      "old route ms",
      "route ms (first)",
      "old / route",
      "reload ms",
      "old / reload",
      "stringify ms (old → now)",
      "answer MB (old → now)",
      "parse ms",
      "layout ms",
    ],
    rows,
  );
  if (browserRows.length === 0) return;
  console.log(
    `\nChromium, browser mode, a new server each run: hash → session:tree received → first paint (median of ${runs}); ` +
      `the longest task from the hash change to ${LONG_TASK_AFTER_PAINT_MS} ms after the first paint (median)\n`,
  );
  printTable(
    [
      "entries",
      "",
      "session:tree received ms",
      "then to first paint ms",
      "first paint ms",
      "longest task ms",
    ],
    browserRows,
  );
  console.log("\nthe server alone over HTTP, as the page asks when opening a session:");
  for (const line of httpLines) console.log(`  ${line}`);
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
