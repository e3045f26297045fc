// A model that accepts the request and never sends a token, in Debian's Chromium through browser
// mode against the local fake OpenAI-compatible server (headers and a role chunk, then silence):
// the compaction panel and the composer say they wait for the model's first token and for how
// long, counting; at model.timeoutSeconds the job ends with an error saying it timed out.
// Screenshots: test-artifacts/model-hang/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Settings } from "../../core/settings/schema.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { demoSessionId, type E2eChatApp, openLibrary, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeBehaviour, FakeServer } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "model-hang");
const TIMEOUT_S = 4;
const TIMED_OUT = `Request timed out: the model sent nothing for ${TIMEOUT_S} s (setting model.timeoutSeconds)`;
const silent: FakeBehaviour = { type: "reply", chunks: ["never"], stallAfterChunks: 0 };

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

/** The seconds a "Waiting for the model's first token… N s" line shows (-1: no such line). */
const waitedSeconds = async () => {
  const line = page.getByTestId("waiting-for-model");
  if ((await line.count()) === 0) return -1;
  const match = /^Waiting for the model's first token… (\d+) s$/.exec((await textOf(line)) ?? "");
  return match ? Number(match[1]) : -1;
};

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("model-hang", { model: { id: "fake-hang", contextWindow: 1_000_000 } });
  ({ page, fake } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a model that never sends a token", () => {
  it("is given a short timeout in the Settings panel's model form", async () => {
    await openLibrary(app);
    await page.getByText("Settings and prompts").click();
    const form = page.getByTestId("settings-form");
    await form.getByLabel("Timeout without a token (s)").fill(String(TIMEOUT_S));
    await form.getByRole("button", { name: "Save model" }).click();
    await expect
      .poll(async () => (await apiCall<Settings>(app.mode, "settings:get", {})).model?.timeoutSeconds)
      .toBe(TIMEOUT_S);
    await page.getByText("Settings and prompts").click();
  });

  it("the compaction says how long it has waited, then fails as timed out", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    // The demo's cut splits a turn: two summary requests, both left without an answer.
    fake.enqueue(silent, silent);
    await page.getByRole("button", { name: "Compact…" }).click();
    await page.getByTestId("compaction-plan").waitFor();
    await page.getByRole("button", { name: "Run compaction" }).click();
    await poll(waitedSeconds).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: path.join(shots, "01-compaction-waiting.png") });
    await expect.poll(() => textOf(page.getByTestId("job-message")), { timeout: 20_000 }).toBe(
      `Compaction failed: ${TIMED_OUT}`,
    );
    await page.screenshot({ path: path.join(shots, "02-compaction-timed-out.png") });
  });

  it("the chat turn says how long it has waited, then fails as timed out", async () => {
    fake.enqueue(silent);
    await page.locator("#composer").fill("Still there?");
    await page.locator("#composer").press("Control+Enter");
    await poll(waitedSeconds).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: path.join(shots, "03-chat-waiting.png") });
    await expect.poll(() => textOf(page.getByTestId("chat-message")), { timeout: 20_000 }).toBe(
      `The reply failed: ${TIMED_OUT}`,
    );
    await page.screenshot({ path: path.join(shots, "04-chat-timed-out.png") });
  });

  // The line said "retrying in 2 s" for as long as the retried request then waited.
  it("a rate-limited reply counts down to its retry, then counts the wait for the retried request", async () => {
    fake.enqueue(
      {
        type: "error",
        status: 429,
        body: { error: { message: "Rate limit reached for fake-hang" } },
        headers: { "retry-after": "3" },
      },
      silent,
    );
    await page.locator("#composer").fill("And now?");
    await page.locator("#composer").press("Control+Enter");
    const failed =
      "The reply failed (The model's server is rate-limiting requests (429: Rate limit reached for fake-hang); it asked to wait 3 s), retry 1/3";
    const line = () => textOf(page.getByTestId("waiting-for-model"));
    await poll(line).toMatch(new RegExp(`^${literal(failed)}; retrying in [1-3] s…$`));
    await page.screenshot({ path: path.join(shots, "05-chat-retry-countdown.png") });
    await poll(line).toMatch(new RegExp(`^${literal(failed)}; sent again\\. Waiting for the model's first token… [1-9] s$`));
    await page.screenshot({ path: path.join(shots, "06-chat-retry-waiting.png") });
    await expect.poll(() => textOf(page.getByTestId("chat-message")), { timeout: 20_000 }).toBe(
      `The reply failed: ${TIMED_OUT}`,
    );
  });
});

/** `text` as a literal in a RegExp. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
