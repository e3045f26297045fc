/**
 * Arrow moves on the canvas in Chromium (browser mode, Debian's Chromium, a generated session,
 * default 30,000 entries): keydown → the first painted frame with the new entry selected, split
 * into moves that land inside a collapsed chain (the chain splits around the revealed entry) and
 * the others. Prints figures; never fails. `--profile FILE` also writes a CPU profile of the moves.
 * Run: node --experimental-strip-types bench/tree-arrow.bench.ts [--entries N] [--moves N]
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { SessionSummary, SessionTreeDto } from "../core/api/dto.ts";
import { startBrowserMode } from "../main/serve.ts";
import { apiCall, buildRendererInto } from "../test/helpers/browser-mode.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import { fmt, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

interface PageElement {
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  addEventListener(type: string, listener: () => void, capture: boolean): void;
};
declare function requestAnimationFrame(callback: (now: number) => void): number;
declare const window: { __keyAt: number };

const entries = numberArg("--entries") ?? 30_000;
const moves = numberArg("--moves") ?? 40;
const profileAt = process.argv.indexOf("--profile");
const profileFile = profileAt > 0 ? process.argv[profileAt + 1] : undefined;

const generated = writeGeneratedSession(defaultGeneratedPath(entries), entries);
const tmp = tempDir("canopy-bench-arrow-");
const rendererDir = await buildRendererInto(path.join(tmp.dir, "renderer"));
const mode = await startBrowserMode({
  dbPath: path.join(tmp.dir, "library.db"),
  rendererDir,
  seedDemo: false,
  watch: false,
});
const browser = await launchChromium();
try {
  await apiCall(mode, "library:import", { path: generated.file });
  const sessionId = ((await apiCall<SessionSummary[]>(mode, "library:list", {}))[0] as SessionSummary).id;
  const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}`);
  const leaf = page.locator(`.tree-node[data-entry-id="${tree.viewLeafId}"]`);
  await leaf.waitFor({ timeout: 120_000 });
  await leaf.click();
  await page.waitForTimeout(1000);
  await page.evaluate(() => {
    window.__keyAt = 0;
    document.addEventListener(
      "keydown",
      () => {
        window.__keyAt = performance.now();
      },
      true,
    );
  });
  const cdp = profileFile ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.start");
  }
  const reveal: number[] = [];
  const other: number[] = [];
  for (let i = 0; i < moves; i++) {
    const before = await page.evaluate(() => ({
      selected: document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null,
      nodes: document.querySelector(".tree-canvas")?.getAttribute("data-node-count") ?? "",
    }));
    const waited = page.evaluate(async (from) => {
      // Wait for the keydown, then for a frame with another entry selected, then for it to paint.
      await new Promise<void>((resolve) => {
        const check = () => {
          const now = document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null;
          if (window.__keyAt > 0 && now !== null && now !== from) resolve();
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const ms = performance.now() - window.__keyAt;
      window.__keyAt = 0;
      return ms;
    }, before.selected);
    await page.keyboard.press("ArrowUp");
    const ms = await waited;
    const nodes = await page.evaluate(
      () => document.querySelector(".tree-canvas")?.getAttribute("data-node-count") ?? "",
    );
    (nodes !== before.nodes ? reveal : other).push(ms);
    // Let the LLM view's answer land before the next move.
    await page.waitForTimeout(300);
  }
  if (cdp && profileFile) {
    const { profile } = await cdp.send("Profiler.stop");
    writeFileSync(profileFile, JSON.stringify(profile));
  }
  console.log(`${fmt(tree.nodes.length)} entries, ${moves} ArrowUp moves from the view leaf`);
  printTable(
    ["keydown → painted", "moves", "median ms", "min ms", "max ms"],
    [
      [
        "into a chain (reveal)",
        String(reveal.length),
        fmt(median(reveal), 1),
        fmt(Math.min(...reveal), 1),
        fmt(Math.max(...reveal), 1),
      ],
      [
        "other moves",
        String(other.length),
        fmt(median(other), 1),
        fmt(Math.min(...other), 1),
        fmt(Math.max(...other), 1),
      ],
    ],
  );
} finally {
  await browser.close();
  await mode.stop();
  tmp.cleanup();
}
