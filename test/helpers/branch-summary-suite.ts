/**
 * One browser test file on a branch summary: its app (job-page.ts startBranchSummaryApp, the key
 * variable and its value named after the file's app) started before its tests and stopped after,
 * the screenshots' folder made; the job outcome line; the model's chat request bodies; a reply held
 * while a summary runs; and the "Retry the branch summary" a failed one offers: found, then pressed
 * and checked.
 */
import { mkdirSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "./browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "./canvas-page.ts";
import { type E2eChatApp, treeIds } from "./e2e-app.ts";
import type { FakeServer } from "./fake-openai-server.ts";
import { type PlanSessionFile, startBranchSummaryApp } from "./job-page.ts";

/** The file's app and session: set once beforeAll has run. */
export interface BranchSummarySuite {
  app: E2eChatApp;
  page: Page;
  fake: FakeServer;
  sessionId: string;
  /** The job outcome line's text (null without one). */
  outcome(): Promise<string | null>;
  /** The JSON bodies of the chat requests the model got, in order. */
  chatBodies(): string[];
}

/**
 * Registers the file's beforeAll (makes `shots`, starts the app `name` with `session` imported and
 * the model "fake-branch", its key in CANOPY_E2E_<NAME>_KEY = sk-e2e-<name>) and afterAll (stops it).
 */
export function branchSummarySuite(
  name: string,
  shots: string,
  session: PlanSessionFile,
): BranchSummarySuite {
  const keyEnv = `CANOPY_E2E_${name.toUpperCase().replaceAll("-", "_")}_KEY`;
  const suite = {
    outcome: () => textOf(suite.page.getByTestId("job-message")),
    chatBodies: () =>
      suite.fake.requests
        .filter((request) => request.path === "/v1/chat/completions")
        .map((request) => JSON.stringify(request.body)),
  } as BranchSummarySuite;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const started = await startBranchSummaryApp(
      name,
      { key: { env: keyEnv, value: `sk-e2e-${name}` }, model: { id: "fake-branch", contextWindow: 128000 } },
      session,
    );
    Object.assign(suite, { ...started, page: started.app.page, fake: started.app.fake });
  }, 120_000);
  afterAll(async () => {
    await suite.app?.stop();
  });
  return suite;
}

/**
 * The session opened (every entry shown) and the model's next reply queued, its rest held until
 * `release()`, so that a summary asked for stays running meanwhile; the tree's ids before it.
 */
export async function openWithHeldReply(
  suite: BranchSummarySuite,
): Promise<{ before: string[]; release: () => void }> {
  const { app, page, fake, sessionId } = suite;
  await openSessionShowingAll(page, app.mode, sessionId);
  const before = await treeIds(app.mode, sessionId);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  fake.enqueue({ type: "reply", chunks: ["The branch ", "settled the parser."], holdRest: held });
  return { before, release };
}

/** After a failed branch summary: its "Retry the branch summary" button, once shown, the tree still `before`. */
export async function retryOffered(suite: BranchSummarySuite, before: string[]): Promise<Locator> {
  const retry = suite.page.getByRole("button", { name: "Retry the branch summary" });
  await retry.waitFor();
  expect(await treeIds(suite.app.mode, suite.sessionId)).toEqual(before);
  return retry;
}

/**
 * `retry` pressed, the model answering this time: the view leaf is a branch summary under a1, Retry
 * gone, both requests asked with `instructions`. The request bodies and the tree, for more checks.
 */
export async function retrySummarizes(
  suite: BranchSummarySuite,
  retry: Locator,
  instructions: string,
): Promise<{ bodies: string[]; tree: SessionTreeDto }> {
  suite.fake.enqueue({ type: "reply", text: "The abandoned branch settled the parser." });
  await retry.click();
  await poll(suite.outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
  expect(await retry.count()).toBe(0);
  const bodies = suite.chatBodies();
  expect(bodies).toHaveLength(2);
  for (const body of bodies) expect(body).toContain(instructions);
  const tree = await apiCall<SessionTreeDto>(suite.app.mode, "session:tree", { sessionId: suite.sessionId });
  const summary = tree.nodes.find((node) => node.id === tree.viewLeafId);
  expect(summary?.type).toBe("branch_summary");
  expect(summary?.parentId).toBe("a1");
  return { bodies, tree };
}
