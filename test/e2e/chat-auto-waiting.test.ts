// What the composer says is waiting while a chat turn's automatic compaction runs (Debian's
// Chromium, browser mode, a local fake OpenAI-compatible server): the endpoint answers the turn
// "context too long", the compaction's summary is slow, then the turn is sent again. While the
// compaction runs, its own status line says so and the reply does not also count a wait for the
// model's first token; once it is done, the wait for the retried turn is counted from there.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import { type FakeServer, OVERFLOW_ERRORS, type RequestMatcher } from "../helpers/fake-openai-server.ts";

/** Chat turns send the LLM view as is; summary calls carry an output cap. */
const isChat: RequestMatcher = (body) => !("max_tokens" in body);
const isSummary: RequestMatcher = (body) => "max_tokens" in body;

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eChatApp("chat-auto-waiting", {
    key: { env: "CANOPY_E2E_AUTO_WAITING_KEY", value: "sk-e2e-auto-waiting" },
    model: { id: "fake-auto-waiting", contextWindow: 128000 },
  });
  ({ page, fake } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a chat turn's automatic compaction", () => {
  it("is what the composer says is waiting, and the retried turn's wait counts from its end", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const summary = { type: "reply" as const, text: "## Goal\nKeep the parser.", headersDelayMs: 3_000, match: isSummary };
    fake.enqueue(
      { type: "error", status: 400, body: { error: { message: OVERFLOW_ERRORS.openai } }, match: isChat },
      summary,
      summary,
      { type: "reply", text: "Answer after recovery.", headersDelayMs: 4_000, match: isChat },
    );
    await page.locator("#composer").fill("Summarize the parser work");
    await page.locator("#composer").press("Control+Enter");
    const status = page.getByTestId("auto-compaction");
    await poll(() => status.getAttribute("data-status")).toBe("running");
    expect(await textOf(status)).toContain("Compacting automatically");
    // The compaction's line alone: no "Waiting for the model's first token… N s" under the turn.
    expect(await page.getByTestId("chat-stream").getByTestId("waiting-for-model").count()).toBe(0);

    await poll(() => status.getAttribute("data-status")).toBe("done");
    const waiting = page.getByTestId("chat-stream").getByTestId("waiting-for-model");
    await poll(() => waiting.count()).toBe(1);
    // Counted from the compaction's end (it took 3 s or more), not from the turn's start.
    const seconds = Number((await textOf(waiting))?.match(/(\d+) s$/)?.[1]);
    expect(seconds).toBeLessThan(3);
    // The retried turn is answered and ends.
    await poll(() => page.getByTestId("chat-stream").count()).toBe(0);
    expect(fake.requests.filter((request) => isChat(request.body as Record<string, unknown>))).toHaveLength(2);
  });
});
