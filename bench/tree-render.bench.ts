/**
 * Tree canvas rendering in Chromium: a generated 10,000-entry session imported into a temporary
 * library, browser mode, Debian's Chromium. Reports (a) time to first paint of the tree, from
 * the click on the session to a painted canvas with nodes, and (b) frame times of a scripted
 * ~2 s pan (requestAnimationFrame timestamps in the page); the same two figures for React Flow's
 * default rendering of the same graph (no chain collapsing, no culling: the renderer's
 * `?bench=baseline` URL flag, see renderer/src/features/tree/bench-mode.ts) in the same run.
 * Targets (issue 4): first paint < 1.5 s, median frame < 16 ms. Prints figures; never fails.
 *
 * Chromium runs headless with the frame-rate limit lifted (no vsync), so a frame time is the
 * time the page needs to produce a frame, not the 16.7 ms vsync interval.
 * Run: node --experimental-strip-types bench/tree-render.bench.ts [--runs N] [--entries N]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import type { SessionSummary } from "../core/api/dto.ts";
import { type BrowserMode, startBrowserMode } from "../main/serve.ts";
import { apiCall, buildRendererInto } from "../test/helpers/browser-mode.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import { fmt, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// The functions passed to page.evaluate run in Chromium. This project is type-checked without
// the DOM library, so the few page globals they use are declared here (module-local).
interface PageElement {
  getAttribute(name: string): string | null;
  click(): void;
  getBoundingClientRect(): { x: number; y: number; width: number; height: number };
  dispatchEvent(event: unknown): boolean;
  style: { transform: string };
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): { length: number };
};
declare function requestAnimationFrame(callback: (now: number) => void): number;
declare const WheelEvent: new (type: string, init: Record<string, unknown>) => unknown;
type ResourceTiming = { name: string; startTime: number; responseEnd: number };

const FIRST_PAINT_TARGET_MS = 1500;
const FRAME_TARGET_MS = 16;
const PAN_MS = 2000;
const VIEWPORT = { width: 1920, height: 1080 };

export interface OpenFigures {
  /** Click on the session → first painted frame with tree nodes. */
  firstPaintMs: number;
  /** Click → the session:tree response fully received (server + transfer + JSON). */
  treeResponseMs: number;
  /** The other contract calls the click started, each click → response end. */
  calls: Record<string, number>;
  /** DOM nodes of the canvas once painted. */
  renderedNodes: number;
  flowNodes: number;
}

export interface PanFigures {
  frames: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  /** How far the view travelled (px), to show the pan happened. */
  pannedPx: number;
}

export interface ModeFigures {
  open: OpenFigures;
  pan: PanFigures;
}

export interface TreeRenderFigures {
  entries: number;
  shownNodes: number;
  serverTreeMs: number;
  serverGetMs: number;
  canvas: ModeFigures;
  baseline: ModeFigures;
}

/**
 * A page on the small session (a deep link: the library then opens nothing else on its own) with
 * the big session's row in the sidebar, ready for the measured click. Without the link the app
 * opens the list's first session itself, and when that was the big one the baseline page was
 * busy rendering all its nodes for longer than the waits here.
 */
async function openPage(
  browser: Browser,
  mode: BrowserMode,
  baseline: boolean,
  sessionId: string,
  smallId: string,
): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT, colorScheme: "dark" });
  await page.goto(`${mode.url}${baseline ? "&bench=baseline" : ""}#/session/${encodeURIComponent(smallId)}`);
  await page.locator(`.tree-canvas[data-tree-session="${smallId}"] .tree-node`).first().waitFor();
  await page.locator(`.session-groups [data-session-id="${sessionId}"]`).waitFor();
  return page;
}

/** Clicks the session in the sidebar and waits, in the page, for the first painted frame with nodes. */
async function measureOpen(page: Page, sessionId: string): Promise<OpenFigures> {
  const result = await page.evaluate(async (id) => {
    performance.clearResourceTimings();
    const button = document.querySelector(`.session-groups [data-session-id="${id}"]`);
    if (!button) throw new Error("session not in the sidebar");
    const started = performance.now();
    button.click();
    // The small session's nodes are on the canvas until the clicked session's tree replaces them.
    const nodes = () =>
      document.querySelector(".tree-canvas")?.getAttribute("data-tree-session") === id
        ? document.querySelectorAll(".tree-canvas .tree-node").length
        : 0;
    await new Promise<void>((resolve, reject) => {
      const give = setTimeout(() => reject(new Error("no tree nodes after 120 s")), 120_000);
      const check = () => {
        if (nodes() > 0) {
          clearTimeout(give);
          resolve();
        } else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
    // The frame with the nodes is painted once the next frame starts.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const firstPaintMs = performance.now() - started;
    const calls: Record<string, number> = {};
    for (const entry of performance.getEntriesByType("resource") as unknown as ResourceTiming[]) {
      const match = /\/api\/([^?]+)/.exec(entry.name);
      if (match?.[1] && entry.startTime >= started) {
        calls[decodeURIComponent(match[1])] = Math.max(calls[match[1]] ?? 0, entry.responseEnd - started);
      }
    }
    const canvas = document.querySelector(".tree-canvas");
    return {
      firstPaintMs,
      calls,
      renderedNodes: nodes(),
      flowNodes: Number(canvas?.getAttribute("data-node-count") ?? 0),
    };
  }, sessionId);
  const { "session:tree": treeResponseMs = Number.NaN, ...calls } = result.calls;
  return { ...result, treeResponseMs, calls };
}

/** Pans for ~2 s with wheel events (the canvas pans on scroll), one per frame, timing every frame. */
async function measurePan(page: Page): Promise<PanFigures> {
  await page.waitForTimeout(800);
  return page.evaluate(async (duration) => {
    const pane = document.querySelector(".react-flow__pane") ?? document.querySelector(".react-flow");
    const viewport = document.querySelector(".react-flow__viewport");
    if (!pane || !viewport) throw new Error("no React Flow pane");
    const box = pane.getBoundingClientRect();
    // React Flow writes the viewport as an inline "translate(xpx, ypx) scale(z)".
    const position = () => {
      const match = /translate\(([-\d.e]+)px, ?([-\d.e]+)px\)/.exec(viewport.style.transform);
      return { x: Number(match?.[1] ?? 0), y: Number(match?.[2] ?? 0) };
    };
    let last = position();
    let travelled = 0;
    const stamps: number[] = [];
    await new Promise<void>((resolve) => {
      const step = (now: number) => {
        stamps.push(now);
        const at = position();
        travelled += Math.hypot(at.x - last.x, at.y - last.y);
        last = at;
        const t = stamps.length;
        // A loop: right, down, left, up, so the pan crosses many nodes and stays near the tree.
        const phase = Math.floor(t / 30) % 4;
        const deltaX = phase === 0 ? 24 : phase === 2 ? -24 : 0;
        const deltaY = phase === 1 ? 24 : phase === 3 ? -24 : 0;
        pane.dispatchEvent(
          new WheelEvent("wheel", {
            deltaX,
            deltaY,
            deltaMode: 0,
            clientX: box.x + box.width / 2,
            clientY: box.y + box.height / 2,
            bubbles: true,
            cancelable: true,
          }),
        );
        if (now - (stamps[0] ?? now) < duration) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
    const frames = stamps.slice(1).map((stamp, i) => stamp - (stamps[i] ?? stamp));
    const sorted = [...frames].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
    return {
      frames: frames.length,
      medianMs: at(0.5),
      p95Ms: at(0.95),
      maxMs: sorted.at(-1) ?? 0,
      pannedPx: Math.round(travelled),
    };
  }, PAN_MS);
}

async function measureMode(
  browser: Browser,
  mode: BrowserMode,
  baseline: boolean,
  sessionId: string,
  smallId: string,
  runs: number,
): Promise<ModeFigures> {
  const opens: OpenFigures[] = [];
  let pan: PanFigures | null = null;
  for (let run = 0; run < runs; run++) {
    const page = await openPage(browser, mode, baseline, sessionId, smallId);
    try {
      opens.push(await measureOpen(page, sessionId));
      if (run === runs - 1) pan = await measurePan(page);
    } finally {
      await page.close();
    }
  }
  const byPaint = [...opens].sort((a, b) => a.firstPaintMs - b.firstPaintMs);
  const open = byPaint[Math.floor((byPaint.length - 1) / 2)] as OpenFigures;
  return { open, pan: pan as PanFigures };
}

async function timeApi(mode: BrowserMode, channel: string, input: unknown, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await apiCall(mode, channel, input);
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function runTreeRenderBench(options: { runs?: number; entries?: number } = {}): Promise<TreeRenderFigures> {
  const runs = options.runs ?? 3;
  const count = options.entries ?? 10_000;
  const generated = writeGeneratedSession(defaultGeneratedPath(count), count);
  const tmp = tempDir("canopy-tree-bench-");
  let mode: BrowserMode | undefined;
  let browser: Browser | undefined;
  try {
    const rendererDir = await buildRendererInto(path.join(tmp.dir, "renderer"));
    mode = await startBrowserMode({
      dbPath: path.join(tmp.dir, "library.db"),
      rendererDir,
      seedDemo: false,
      watch: false,
    });
    await apiCall(mode, "library:import", { path: generated.file });
    // A second, small session: each measured open starts from it (see openPage).
    await apiCall(mode, "library:import", { path: path.join(repoRoot, "main", "demo", "refactor-small.jsonl") });
    const listed = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const session = listed.find((s) => s.entryCount === generated.entries);
    const small = listed.find((s) => s !== session);
    if (!session || !small) throw new Error("the generated or the small session was not imported");
    const serverTreeMs = await timeApi(mode, "session:tree", { sessionId: session.id }, 5);
    const serverGetMs = await timeApi(mode, "session:get", { sessionId: session.id }, 5);

    browser = await launchChromium(["--disable-gpu-vsync", "--disable-frame-rate-limit"]);
    const canvas = await measureMode(browser, mode, false, session.id, small.id, runs);
    const baseline = await measureMode(browser, mode, true, session.id, small.id, runs);
    const figures: TreeRenderFigures = {
      entries: session.entryCount,
      shownNodes: baseline.open.flowNodes,
      serverTreeMs,
      serverGetMs,
      canvas,
      baseline,
    };
    report(figures, runs);
    return figures;
  } finally {
    await browser?.close();
    await mode?.stop();
    tmp.cleanup();
  }
}

function report(f: TreeRenderFigures, runs: number): void {
  const { canvas: c, baseline: b } = f;
  console.log(
    `\nTree canvas, ${fmt(f.entries)}-entry session in Chromium ${VIEWPORT.width}×${VIEWPORT.height} ` +
      `(first paint: median of ${runs} opens; pan: ${PAN_MS / 1000} s of wheel panning, frame-rate limit off)\n`,
  );
  const calls = (o: OpenFigures) =>
    Object.entries(o.calls)
      .map(([name, ms]) => `${name} ${fmt(ms)}`)
      .join(", ");
  printTable(
    ["", "canvas", "baseline (React Flow default)", "baseline / canvas"],
    [
      ["React Flow nodes", fmt(c.open.flowNodes), fmt(b.open.flowNodes), ""],
      ["DOM tree nodes after first paint", fmt(c.open.renderedNodes), fmt(b.open.renderedNodes), ""],
      ["first paint (ms)", fmt(c.open.firstPaintMs), fmt(b.open.firstPaintMs), `${fmt(b.open.firstPaintMs / c.open.firstPaintMs, 1)}×`],
      ["  of which session:tree received (ms)", fmt(c.open.treeResponseMs), fmt(b.open.treeResponseMs), ""],
      ["pan frames", fmt(c.pan.frames), fmt(b.pan.frames), ""],
      ["frame median (ms)", fmt(c.pan.medianMs, 1), fmt(b.pan.medianMs, 1), `${fmt(b.pan.medianMs / c.pan.medianMs, 1)}×`],
      ["frame p95 (ms)", fmt(c.pan.p95Ms, 1), fmt(b.pan.p95Ms, 1), `${fmt(b.pan.p95Ms / c.pan.p95Ms, 1)}×`],
      ["frame max (ms)", fmt(c.pan.maxMs, 1), fmt(b.pan.maxMs, 1), `${fmt(b.pan.maxMs / c.pan.maxMs, 1)}×`],
    ],
  );
  console.log(`\nother calls started by the click (click → response end, ms): canvas: ${calls(c.open)}; baseline: ${calls(b.open)}`);
  console.log(
    `server alone (median of 5, over HTTP from Node): session:tree ${fmt(f.serverTreeMs)} ms, session:get ${fmt(f.serverGetMs)} ms`,
  );
  const serverShare = c.open.treeResponseMs / c.open.firstPaintMs;
  console.log(
    `session:tree arrives ${fmt(c.open.treeResponseMs)} ms into the canvas's ${fmt(c.open.firstPaintMs)} ms first paint ` +
      `(${fmt(serverShare * 100)}%)${serverShare > 0.5 ? ": opening is dominated by the server" : ": most of the time is the renderer"}`,
  );
  const met = (ok: boolean) => (ok ? "met" : "MISSED");
  console.log(
    `target first paint < ${FIRST_PAINT_TARGET_MS} ms: ${met(c.open.firstPaintMs < FIRST_PAINT_TARGET_MS)} (${fmt(c.open.firstPaintMs)} ms); ` +
      `target median frame < ${FRAME_TARGET_MS} ms: ${met(c.pan.medianMs < FRAME_TARGET_MS)} (${fmt(c.pan.medianMs, 1)} ms)`,
  );
  console.log(`pan moved the view by ${fmt(c.pan.pannedPx)} px (canvas) and ${fmt(b.pan.pannedPx)} px (baseline) in all`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = numberArg("--runs");
  const entries = numberArg("--entries");
  await runTreeRenderBench({
    ...(runs === undefined ? {} : { runs }),
    ...(entries === undefined ? {} : { entries }),
  });
}
