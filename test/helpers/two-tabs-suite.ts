/**
 * One browser test file on two tabs of one chat app (e2e-app.ts startTwoTabs): started before its
 * tests (the screenshots' folder made first), the session opened in both tabs before each test,
 * what a test left running aborted after it, stopped after all; the API, a tab's screenshot and the
 * session's tree ids.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { apiCall } from "./browser-mode.ts";
import { type FakeModelSetup, openInBothTabs, startTwoTabs, type TwoTabs, treeIds } from "./e2e-app.ts";
import type { FakeServer, FakeServerOptions } from "./fake-openai-server.ts";

/** The two tabs and their app's fake model server: set once beforeAll has run. */
export interface TwoTabsSuite extends TwoTabs {
  fake: FakeServer;
  api<T>(channel: string, input: unknown): Promise<T>;
  /** A screenshot of `page` as <shots>/<name>.png. */
  shot(page: Page, name: string): Promise<Buffer>;
  /** The ids of the session's tree nodes, as the API has them now. */
  treeIds(): Promise<string[]>;
}

/**
 * Registers the file's hooks: beforeAll starts the app `name` (startTwoTabs on the demo session
 * "Refactor the parser", the fake server with `server`, its model fake-<name> with the key
 * CANOPY_E2E_<NAME>_KEY = sk-e2e-<name>), beforeEach opens the session in both tabs, afterEach calls
 * `abortChannel` on it (a test that failed half-way leaves nothing running for the next one),
 * afterAll stops the app.
 */
export function twoTabsSuite(
  name: string,
  shots: string,
  abortChannel: string,
  server: FakeServerOptions,
): TwoTabsSuite {
  const setup: FakeModelSetup = {
    server,
    key: { env: `CANOPY_E2E_${name.toUpperCase().replaceAll("-", "_")}_KEY`, value: `sk-e2e-${name}` },
    model: { id: `fake-${name}`, contextWindow: 128000 },
  };
  const suite = {
    api: <T>(channel: string, input: unknown) => apiCall<T>(suite.app.mode, channel, input),
    shot: (page: Page, shotName: string) => page.screenshot({ path: path.join(shots, `${shotName}.png`) }),
    treeIds: () => treeIds(suite.app.mode, suite.sessionId),
  } as TwoTabsSuite;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const tabs = await startTwoTabs(name, setup, "Refactor the parser");
    Object.assign(suite, tabs, { fake: tabs.app.fake });
  });
  beforeEach(() => openInBothTabs(suite));
  afterEach(async () => {
    await suite.api(abortChannel, { sessionId: suite.sessionId });
  });
  afterAll(async () => {
    await suite.app?.stop();
  });
  return suite;
}
