/**
 * Arrow moves on the canvas in Chromium (browser mode, Debian's Chromium, a generated session,
 * default 30,000 entries): keydown → the first painted frame with the new entry selected, split
 * into moves that land inside a collapsed chain (the chain splits around the revealed entry) and
 * the others, and keydown → the LLM view showing the new entry's context. Then a held ArrowUp
 * (`--held N` key repeats, 30 a second, as a keyboard repeats): the longest frame while held,
 * the context:get requests the page sent, and release → the LLM view showing the final entry.
 * `--uncompacted`: a session without compactions, so the view leaf's context has every message
 * of its path (~29,000 at 30,000 entries) instead of the few hundred since the last compaction.
 * Prints figures; never fails. `--profile FILE` also writes a CPU profile of the single moves.
 * Run: node --experimental-strip-types bench/tree-arrow.bench.ts [--entries N] [--moves N]
 *   [--held N] [--uncompacted]
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
declare const window: { __keyAt: number; __longestFrame: number; __frames: boolean };

const entries = numberArg("--entries") ?? 30_000;
const moves = numberArg("--moves") ?? 40;
const held = numberArg("--held") ?? 30;
const uncompacted = process.argv.includes("--uncompacted");
const profileAt = process.argv.indexOf("--profile");
const profileFile = profileAt > 0 ? process.argv[profileAt + 1] : undefined;

const generated = uncompacted
  ? writeGeneratedSession(
      defaultGeneratedPath(entries).replace(/\.jsonl$/, "-uncompacted.jsonl"),
      entries,
      { compactAtTokens: 1e12 },
    )
  : writeGeneratedSession(defaultGeneratedPath(entries), entries);
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
  let contextRequests = 0;
  page.on("request", (request) => {
    if (decodeURIComponent(request.url()).includes("/api/context:get")) contextRequests++;
  });
  /** Resolves when the LLM view shows the selected entry's context (not loading); its time. */
  const viewFollows = (timeout = 120_000) =>
    page.evaluate(async (limit) => {
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          const selected = document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id");
          const view = document.querySelector("[data-testid=llm-view]");
          if (selected && view?.getAttribute("data-leaf-id") === selected && view.getAttribute("aria-busy") !== "true")
            resolve();
          else if (performance.now() - started > limit) reject(new Error("the LLM view did not follow"));
          else requestAnimationFrame(check);
        };
        check();
      });
      return performance.now();
    }, timeout);
  await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}`);
  const leaf = page.locator(`.tree-node[data-entry-id="${tree.viewLeafId}"]`);
  await leaf.waitFor({ timeout: 120_000 });
  await leaf.click();
  await viewFollows();
  const shownMessages = await page.evaluate(
    () => document.querySelector("[data-testid=llm-view]")?.getAttribute("data-message-count") ?? "",
  );
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
  const follow: number[] = [];
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
    const keyAt = await page.evaluate(() => performance.now());
    await page.keyboard.press("ArrowUp");
    const ms = await waited;
    const nodes = await page.evaluate(
      () => document.querySelector(".tree-canvas")?.getAttribute("data-node-count") ?? "",
    );
    (nodes !== before.nodes ? reveal : other).push(ms);
    // The LLM view's answer lands before the next move.
    follow.push((await viewFollows()) - keyAt);
  }
  if (cdp && profileFile) {
    const { profile } = await cdp.send("Profiler.stop");
    writeFileSync(profileFile, JSON.stringify(profile));
  }
  // A held ArrowUp: key repeats every 33 ms, sent on time as a keyboard does (a busy page handles
  // them late, in order).
  const selectedNow = () =>
    page.evaluate(() => document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null);
  const heldFrom = await selectedNow();
  await page.evaluate(() => {
    window.__longestFrame = 0;
    window.__frames = true;
    let last = performance.now();
    const frame = (now: number) => {
      window.__longestFrame = Math.max(window.__longestFrame, now - last);
      last = now;
      if (window.__frames) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  const requestsBefore = contextRequests;
  const holdStart = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < held; i++) {
    const wait = holdStart + i * 33 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(page.keyboard.down("ArrowUp"));
  }
  sent.push(page.keyboard.up("ArrowUp"));
  await Promise.all(sent);
  // Every repeat handled (the page may have been busy): from here, the user waits for the view.
  const releasedAt = await page.evaluate(() => performance.now());
  const holdMs = performance.now() - holdStart;
  const longestHeldFrame = await page.evaluate(() => window.__longestFrame);
  const shownAt = await viewFollows();
  await page.evaluate(() => {
    window.__frames = false;
  });
  const heldTo = await selectedNow();
  // How far up the selection went (one entry per repeat: every key was handled).
  const parentOf = new Map(tree.nodes.map((node) => [node.id, node.parentId]));
  let heldSteps = 0;
  for (let id = heldFrom; id !== null && id !== heldTo; id = parentOf.get(id) ?? null) heldSteps++;

  console.log(
    `${fmt(tree.nodes.length)} entries${uncompacted ? " (no compactions)" : ""}, LLM view of ` +
      `${shownMessages} messages at the view leaf, ${moves} ArrowUp moves from it`,
  );
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
      [
        "keydown → LLM view follows",
        String(follow.length),
        fmt(median(follow), 1),
        fmt(Math.min(...follow), 1),
        fmt(Math.max(...follow), 1),
      ],
    ],
  );
  console.log(
    `\nArrowUp held for ${held} repeats (${fmt(holdMs, 0)} ms until all were handled; the selection went ${heldSteps} entries up)`,
  );
  printTable(
    ["held arrow", "value"],
    [
      ["longest frame while held, ms", fmt(longestHeldFrame, 0)],
      ["context:get requests sent", String(contextRequests - requestsBefore)],
      ["release → LLM view shows the final entry, ms", fmt(shownAt - releasedAt, 0)],
    ],
  );
} finally {
  await browser.close();
  await mode.stop();
  tmp.cleanup();
}
