/**
 * Opening a session that holds one very large text (a 2 or 20 MB compaction summary, a 20 MB tool
 * result) in Chromium through browser mode: from the click on the session in the list to the tree
 * canvas and the LLM view on screen, and the context:get / session:tree responses on the way.
 * Prints figures; never fails. Run: node --experimental-strip-types bench/big-text.bench.ts [--profile]
 * (--profile prints the renderer's heaviest functions by self time for each open).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { CDPSession, Page } from "playwright-core";
import type { SessionSummary } from "../core/api/dto.ts";
import { startBrowserMode } from "../main/serve.ts";
import { bigSummarySession, bigToolResultSession } from "../test/helpers/big-session.ts";
import { apiCall, buildRendererInto } from "../test/helpers/browser-mode.ts";
import { launchChromium } from "../test/helpers/chromium.ts";
import { fmt, tempDir } from "./bench-utils.ts";

const MB = 1024 * 1024;
const CASES = [
  { name: "summary 2 MB", id: "big-summary-2mb", file: () => bigSummarySession("big-summary-2mb", 2 * MB) },
  {
    name: "summary 20 MB",
    id: "big-summary-20mb",
    file: () => bigSummarySession("big-summary-20mb", 20 * MB),
  },
  {
    name: "tool result 20 MB",
    id: "big-tool-20mb",
    file: () => bigToolResultSession("big-tool-20mb", 20 * MB),
  },
];
const LIMIT_MS = 600_000;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function topSelfTime(profile: Profile, count: number): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    const key = `${frame.functionName || "(anonymous)"} ${path.basename(frame.url)}:${frame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `    ${fmt(ms).padStart(9)} ms  ${key}`);
}

/** Opens `session` by its deep link and waits until its LLM view is on screen. */
async function openSmallSession(page: Page, url: string, session: SessionSummary): Promise<void> {
  await page.goto(`${url}#/session/${encodeURIComponent(session.id)}`);
  await page.locator(`[data-testid="llm-view"][data-leaf-id="${session.viewLeafId ?? ""}"]`).waitFor();
}

async function openAndTime(page: Page, sessionId: string, leafId: string): Promise<Record<string, number>> {
  const started = Date.now();
  const responses: Record<string, number> = {};
  page.on("response", (response) => {
    const match = /\/api\/([^?]+)/.exec(response.url())?.[1];
    const channel = match === undefined ? undefined : decodeURIComponent(match);
    if (channel === undefined) return;
    // A channel asked twice is listed twice (context:get, context:get#2).
    let key = channel;
    for (let n = 2; key in responses; n++) key = `${channel}#${n}`;
    responses[key] = -1;
    void response.finished().then(() => {
      responses[key] = Date.now() - started;
    });
  });
  await page.locator(`[data-session-id="${sessionId}"]`).click({ timeout: LIMIT_MS });
  await page
    .locator(`[data-testid="tree-canvas"][data-tree-session="${sessionId}"] .react-flow__node`)
    .first()
    .waitFor({ timeout: LIMIT_MS });
  const tree = Date.now() - started;
  await page
    .locator(`[data-testid="llm-view"][data-leaf-id="${leafId}"] .message`)
    .last()
    .waitFor({ timeout: LIMIT_MS });
  const llm = Date.now() - started;
  // One more frame painted: the page is responsive again.
  await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => resolve(null)))");
  const responsive = Date.now() - started;
  return { tree, llm, responsive, ...responses };
}

export async function runBigTextBench(profile: boolean): Promise<void> {
  const { dir: work, cleanup } = tempDir("canopy-big-text-");
  const rendererDir = await buildRendererInto(path.join(work, "renderer"));
  const mode = await startBrowserMode({ dbPath: path.join(work, "library.db"), rendererDir, watch: false });
  const browser = await launchChromium();
  try {
    // All files first: a pause of seconds between two requests lets the server close the
    // kept-alive connection just as fetch reuses it (ECONNRESET).
    for (const item of CASES) writeFileSync(path.join(work, `${item.id}.jsonl`), item.file());
    for (const item of CASES)
      await apiCall(mode, "library:import", { path: path.join(work, `${item.id}.jsonl`) });
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const demo = sessions.find((s) => s.isDemo);
    if (!demo) throw new Error("the library has no demo session");
    for (const item of CASES) {
      const session = sessions.find((s) => s.sourcePath?.endsWith(`${item.id}.jsonl`));
      if (!session) throw new Error(`${item.id} was not imported`);
      // A fresh page per case, opened on a small demo session (not the newest, which the app
      // would open by itself), settled before the click.
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await openSmallSession(page, mode.url, demo);
      await page.locator(`[data-session-id="${session.id}"]`).waitFor();
      let cdp: CDPSession | undefined;
      if (profile) {
        cdp = await page.context().newCDPSession(page);
        await cdp.send("Profiler.enable");
        await cdp.send("Profiler.start");
      }
      const figures = await openAndTime(page, session.id, session.viewLeafId ?? "");
      console.log(
        `${item.name.padEnd(18)} ${Object.entries(figures)
          .map(([key, ms]) => `${key} ${fmt(ms)} ms`)
          .join(" · ")}`,
      );
      if (cdp) {
        const { profile: result } = (await cdp.send("Profiler.stop")) as unknown as { profile: Profile };
        console.log(topSelfTime(result, 12).join("\n"));
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await mode.stop();
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  await runBigTextBench(process.argv.includes("--profile"));
