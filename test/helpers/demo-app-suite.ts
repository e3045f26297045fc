/**
 * One browser test file on the app with its bundled demo library (e2e-app.ts startE2eApp): the app
 * started before its tests (the screenshots' folder made first) and stopped after them; the API, a
 * screenshot of its page and a session's tree.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "./browser-mode.ts";
import { type E2eApp, startE2eApp } from "./e2e-app.ts";

/** The app and its page: set once beforeAll has run. */
export interface DemoAppSuite {
  app: E2eApp;
  mode: BrowserMode;
  page: Page;
  api<T>(channel: string, input: unknown): Promise<T>;
  /** A screenshot of the page as <shots>/<name>.png. */
  shot(name: string): Promise<Buffer>;
  tree(sessionId: string): Promise<SessionTreeDto>;
}

/** Registers the file's beforeAll (makes `shots`, starts the app `name`) and afterAll (stops it). */
export function demoAppSuite(name: string, shots: string): DemoAppSuite {
  const suite = {
    api: <T>(channel: string, input: unknown) => apiCall<T>(suite.mode, channel, input),
    shot: (shotName: string) => suite.page.screenshot({ path: path.join(shots, `${shotName}.png`) }),
    tree: (sessionId: string) => suite.api<SessionTreeDto>("session:tree", { sessionId }),
  } as DemoAppSuite;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const app = await startE2eApp(name);
    Object.assign(suite, { app, mode: app.mode, page: app.page });
  });
  afterAll(async () => {
    await suite.app?.stop();
  });
  return suite;
}
