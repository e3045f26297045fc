// A compaction run from the keyboard alone, in Debian's Chromium through browser mode, against a
// slow local fake OpenAI-compatible server: Enter on "Run compaction" gives the focus to Cancel
// while it runs (the disabled Run button would leave it on the page's body), Enter there cancels
// it, and the focus goes back to "Run compaction", which runs it again after a failure.
// Screenshots: test-artifacts/compaction-keyboard/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { demoSessionId, type E2eChatApp, startE2eChatApp, treeIds } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "compaction-keyboard");

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

/** The focused element's accessible text (its own text), or "body" when nothing has the focus. */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active === null || active === document.body ? "body" : (active.textContent ?? "").trim();
  });
const outcome = () => textOf(page.getByTestId("job-message"));
const runningLine = () => textOf(page.locator(".compaction-panel .running"));

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("compaction-keyboard", {
    key: { env: "CANOPY_E2E_COMPACTION_KEYBOARD_KEY", value: "sk-e2e-keyboard" },
    model: { id: "fake-keyboard", contextWindow: 128000 },
  });
  ({ page, fake } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
});

afterAll(async () => {
  await app?.stop();
});

describe("compaction from the keyboard", () => {
  it("Cancel has the focus while it runs; Enter cancels; a failed run is run again with Enter", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const before = await treeIds(app.mode, sessionId);
    // The demo's cut splits a turn: two summary requests, each sending its first chunk, then a long pause.
    const slow = { type: "reply" as const, chunks: ["## Goal", "\nToo late."], chunkDelayMs: 60_000 };
    fake.enqueue(slow, slow);
    await page.getByRole("button", { name: "Compact…" }).focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("compaction-plan").waitFor();
    await page.getByRole("button", { name: "Run compaction" }).focus();
    await page.keyboard.press("Enter");
    await poll(runningLine).toContain("Compacting…");
    await poll(focused).toBe("Cancel (Esc)");
    await page.screenshot({ path: path.join(shots, "01-running-cancel-focused.png") });

    await page.keyboard.press("Enter");
    await poll(outcome).toBe("Compaction cancelled; nothing changed.");
    expect(await runningLine()).toBeNull();
    await poll(focused).toBe("Run compaction");
    expect(await treeIds(app.mode, sessionId)).toEqual(before);

    // A wrong key: one line, the plan stays, the focus on Run compaction; Enter runs it again.
    const unauthorized = {
      type: "error" as const,
      status: 401,
      body: { error: { message: "Incorrect API key provided.", code: "invalid_api_key" } },
    };
    fake.enqueue(unauthorized, unauthorized);
    await page.keyboard.press("Enter");
    await poll(outcome).toBe(
      "Compaction failed: 401 Incorrect API key provided. — check the API key found under CANOPY_E2E_COMPACTION_KEYBOARD_KEY",
    );
    await poll(focused).toBe("Run compaction");
    expect(await treeIds(app.mode, sessionId)).toEqual(before);
    await page.screenshot({ path: path.join(shots, "02-failed-run-focused.png") });

    await page.keyboard.press("Enter");
    await poll(outcome).toMatch(/^Compaction \S+ added; the LLM view now starts with its summary\.$/);
    const after = await treeIds(app.mode, sessionId);
    expect(after.length).toBe(before.length + 1);
    expect(await apiCall(app.mode, "job:list", {})).toEqual([]);
  });
});
