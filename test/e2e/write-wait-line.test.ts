// In Debian's Chromium through browser mode: another process (a child node process on the library
// file, as a CLI import is) holds the library's write lock while a label is set and while a chat
// reply is saved. After a second, the page says what the edit or reply waits for; once the other
// process lets go, the line goes and the label or reply is saved.
// Screenshots: test-artifacts/write-wait-line/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionDetail, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import { holdLockElsewhere, type LockHolder } from "../helpers/lock-holder.ts";

const shots = path.join(artifactsDir(), "write-wait-line");
const WAITING = "Waiting for another Canopy process writing the library (a CLI import?) before saving";

let app: E2eChatApp;
let page: Page;
let holder: LockHolder | undefined;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("write-wait", { model: { id: "fake-chat", contextWindow: 1_000_000 } });
  ({ page } = app);
}, 120_000);

afterEach(() => {
  holder?.stop();
  holder = undefined;
});

afterAll(async () => {
  await app?.stop();
});


const waitLine = () => page.getByTestId("write-wait");

async function firstSession(): Promise<{ sessionId: string; userId: string }> {
  const [session] = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
  if (!session) throw new Error("no demo session");
  const detail = await apiCall<SessionDetail>(app.mode, "session:get", { sessionId: session.id });
  const user = detail.entries.find(
    (stored) => stored.entry.type === "message" && (stored.entry as { message: { role: string } }).message.role === "user",
  );
  if (!user) throw new Error("no user message");
  return { sessionId: session.id, userId: user.entry.id };
}

describe("another process holds the library's write lock", () => {
  it("a label waiting for it says so, then is set once it is free", async () => {
    const { sessionId, userId } = await firstSession();
    await openSessionShowingAll(page, app.mode, sessionId, userId);
    holder = await holdLockElsewhere(app.dbPath);
    const release = holder.release;
    await page.getByLabel("Label", { exact: true }).fill("while-locked");
    await page.getByRole("button", { name: "Set label" }).click();
    await poll(() => textOf(waitLine())).toContain(WAITING);
    await page.screenshot({ path: path.join(shots, "01-label-waiting.png") });
    // Reads go on meanwhile.
    const detail = await apiCall<SessionDetail>(app.mode, "session:get", { sessionId });
    expect(JSON.stringify(detail.entries)).not.toContain("while-locked");
    release();
    await waitLine().waitFor({ state: "detached" });
    await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/label/i);
    const after = await apiCall<SessionDetail>(app.mode, "session:get", { sessionId });
    expect(JSON.stringify(after.entries)).toContain("while-locked");
  });

  it("a chat reply that came while it is held says it waits to save, then is saved", async () => {
    const { sessionId } = await firstSession();
    await openSessionShowingAll(page, app.mode, sessionId);
    let letReplyEnd = () => {};
    const replyHeld = new Promise<void>((resolve) => {
      letReplyEnd = resolve;
    });
    const asked = app.fake.requests.length;
    app.fake.enqueue({ type: "reply", chunks: ["Saved ", "after the lock."], holdRest: replyHeld });
    await page.locator("#composer").fill("Anything new?");
    await page.locator("#composer").press("Control+Enter");
    await expect.poll(() => app.fake.requests.length, { timeout: 15_000 }).toBe(asked + 1);
    holder = await holdLockElsewhere(app.dbPath);
    const release = holder.release;
    letReplyEnd();
    await poll(() => textOf(waitLine())).toContain(WAITING);
    await page.screenshot({ path: path.join(shots, "02-reply-waiting.png") });
    release();
    await waitLine().waitFor({ state: "detached" });
    await expect
      .poll(async () => JSON.stringify((await apiCall<SessionDetail>(app.mode, "session:get", { sessionId })).entries), {
        timeout: 15_000,
      })
      .toContain("after the lock.");
  });
});
