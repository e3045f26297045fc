/**
 * The app as a browser test meets it: the renderer built into a temp folder of the test file's
 * own, browser mode on a fresh library there (demo sessions, no folder watcher), and Chromium
 * with one 1280×800 page. `stop()` closes all three and removes the folder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { type BrowserMode, startBrowserMode } from "../../main/serve.ts";
import { buildRendererInto } from "./browser-mode.ts";
import { launchChromium } from "./chromium.ts";

export interface E2eApp {
  mode: BrowserMode;
  browser: Browser;
  page: Page;
  /** The test file's temp folder (holds the renderer and library.db). */
  work: string;
  stop(): Promise<void>;
}

/** `name`: a short word for the temp folder (which test file left it, if one is left). */
export async function startE2eApp(name: string): Promise<E2eApp> {
  const work = mkdtempSync(path.join(os.tmpdir(), `canopy-${name}-e2e-`));
  let mode: BrowserMode | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await mode?.stop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    const rendererDir = await buildRendererInto(path.join(work, "renderer"));
    mode = await startBrowserMode({ dbPath: path.join(work, "library.db"), rendererDir, watch: false });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(10_000);
    return { mode, browser, page, work, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
