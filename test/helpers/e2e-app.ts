/**
 * The app as a browser test meets it: the run's shared renderer build (read-only), browser mode
 * on a fresh library in a temp folder of the test file's own (demo sessions, no folder watcher
 * unless asked), and Chromium with one 1280×800 page. `stop()` closes all three and removes the folder. The chat
 * variant adds a local fake OpenAI-compatible server (set as the model), the two-tab one a second page.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import type { SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import { type BrowserMode, type BrowserModeOptions, startBrowserMode } from "../../main/serve.ts";
import { apiCall } from "./browser-mode.ts";
import { openSessionShowingAll } from "./canvas-page.ts";
import { launchChromium } from "./chromium.ts";
import { type FakeServer, type FakeServerOptions, startFakeOpenAiServer } from "./fake-openai-server.ts";
import { keepInterceptionOn } from "./held-requests.ts";
import { sharedRenderer } from "./shared-renderer.ts";

export interface E2eApp {
  mode: BrowserMode;
  browser: Browser;
  page: Page;
  /** The test file's temp folder (holds library.db). */
  work: string;
  /** The run's shared renderer build, which the server serves: read it, never write to it. */
  rendererDir: string;
  /** The library's database file, in `work`. */
  dbPath: string;
  stop(): Promise<void>;
}

export interface E2eAppOptions {
  /** Browser mode's options beyond the database and renderer (default `watch: false`). */
  serve?: Omit<BrowserModeOptions, "dbPath" | "rendererDir">;
  /** The first page's options beyond its 1280×800 viewport (colour scheme, downloads). */
  page?: BrowserContextOptions;
  /** Hook modules (file name → source) put in the library's `hooks/` folder before it starts. */
  hooks?: Record<string, string>;
}

const VIEWPORT = { width: 1280, height: 800 };

/** A page of the app's browser: 1280×800 unless `options` say otherwise, 10 s for a step. */
export async function openPage(
  app: Pick<E2eApp, "browser">,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const page = await app.browser.newPage({ viewport: VIEWPORT, ...options });
  // Interception stays on for the page's life (jitter's route or one letting everything through):
  // a test's routes then come and go without turning it off, which can strand a request sent at
  // that moment (keepInterceptionOn).
  if (!(await jitterAnswers(page))) await keepInterceptionOn(page);
  // A step that cannot happen fails with the locator it waited for, well inside the test timeout.
  page.setDefaultTimeout(10_000);
  return page;
}

/**
 * With CANOPY_TEST_JITTER_MS=<n> set, each API request of the page waits a random 0–n ms first, so
 * answers and server events arrive in orders a loaded machine makes rare (a flake hunt's tool;
 * a test's own page.route, added later, takes precedence). False when unset: nothing routed here.
 */
async function jitterAnswers(page: Page): Promise<boolean> {
  const most = Number(process.env.CANOPY_TEST_JITTER_MS ?? 0);
  if (!(most > 0)) return false;
  await page.route(
    (url) => url.pathname.startsWith("/api/"),
    async (route) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * most));
      await route.fallback().catch(() => undefined);
    },
  );
  return true;
}

/** `name`: a short word for the temp folder (which test file left it, if one is left). */
export async function startE2eApp(name: string, options: E2eAppOptions = {}): Promise<E2eApp> {
  const work = mkdtempSync(path.join(os.tmpdir(), `canopy-${name}-e2e-`));
  const dbPath = path.join(work, "library.db");
  let mode: BrowserMode | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await mode?.stop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    const rendererDir = await sharedRenderer();
    if (options.hooks) {
      mkdirSync(path.join(work, "hooks"));
      for (const [name, source] of Object.entries(options.hooks)) writeFileSync(path.join(work, "hooks", name), source);
    }
    mode = await startBrowserMode({ dbPath, rendererDir, watch: false, ...options.serve });
    browser = await launchChromium();
    const page = await openPage({ browser }, options.page);
    return { mode, browser, page, work, rendererDir, dbPath, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Opens the library (no session) and waits for the LLM view panel. */
export async function openLibrary(app: Pick<E2eApp, "mode" | "page">): Promise<void> {
  await app.page.goto(app.mode.url);
  await app.page.getByTestId("llm-view").waitFor();
}

/** The id of the first demo session whose title starts with `titleStart`. */
export async function demoSessionId(mode: BrowserMode, titleStart: string): Promise<string> {
  const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
  const session = sessions.find((s) => s.title?.startsWith(titleStart));
  if (!session) throw new Error("no demo session");
  return session.id;
}

export interface FakeModelSetup {
  /** The fake server's own options (default reply, strict tool messages). */
  server?: FakeServerOptions;
  /** An environment variable of this process that holds the key while the app runs (removed by stop). */
  key?: { env: string; value: string };
  /** Set as the (streaming) model in the settings, with `key` as its key variable; omitted: none is set. */
  model?: { id: string; contextWindow: number };
}

export interface E2eChatApp extends E2eApp {
  fake: FakeServer;
}

/**
 * The app with a local fake OpenAI-compatible server, set as its model when `setup.model` says
 * so. `stop()` also closes the server and removes the key variable.
 */
export async function startE2eChatApp(
  name: string,
  setup: FakeModelSetup,
  options: E2eAppOptions = {},
): Promise<E2eChatApp> {
  const { key, model } = setup;
  if (key) process.env[key.env] = key.value;
  let fake: FakeServer | undefined;
  let app: E2eApp | undefined;
  const stop = async () => {
    await app?.stop();
    await fake?.close();
    if (key) delete process.env[key.env];
  };
  try {
    fake = await startFakeOpenAiServer(setup.server);
    app = await startE2eApp(name, options);
    if (model) {
      const value = {
        baseUrl: fake.baseUrl,
        id: model.id,
        contextWindow: model.contextWindow,
        ...(key ? { apiKeyEnv: key.env } : {}),
        stream: true,
      };
      await apiCall(app.mode, "settings:set", { key: "model", value });
    }
    return { ...app, fake, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Two pages (tabs) of one chat app, on the same demo session. */
export interface TwoTabs {
  app: E2eChatApp;
  pageA: Page;
  pageB: Page;
  sessionId: string;
}

/** The chat app (startE2eChatApp) with a second page, on the demo session whose title starts with `titleStart`. */
export async function startTwoTabs(
  name: string,
  setup: FakeModelSetup,
  titleStart: string,
): Promise<TwoTabs> {
  const app = await startE2eChatApp(name, setup);
  try {
    const pageB = await openPage(app);
    return { app, pageA: app.page, pageB, sessionId: await demoSessionId(app.mode, titleStart) };
  } catch (error) {
    await app.stop();
    throw error;
  }
}

/** Opens the session in both tabs with every entry shown (a two-tab test's beforeEach). */
export async function openInBothTabs({ app, pageA, pageB, sessionId }: TwoTabs): Promise<void> {
  await openSessionShowingAll(pageA, app.mode, sessionId);
  await openSessionShowingAll(pageB, app.mode, sessionId);
}

/** The ids of a session's tree nodes, as the API has them now. */
export async function treeIds(mode: BrowserMode, sessionId: string): Promise<string[]> {
  const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
  return tree.nodes.map((node) => node.id);
}
