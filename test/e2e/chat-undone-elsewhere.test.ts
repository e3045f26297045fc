// In Debian's Chromium through browser mode, against the local fake OpenAI-compatible server: while
// a reply to an edited message streams in this window, another Canopy on the same library (a
// second app context on the library file, as the CLI is) undoes the edit. The reply is not lost:
// the composer says where it was saved, and the message does not come back into the composer.
// Screenshots: test-artifacts/chat-undone-elsewhere/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EditResultDto, SessionDetail, SessionSummary } from "../../core/api/dto.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openFromSidebar } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, openLibrary, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";

const shots = path.join(artifactsDir(), "chat-undone-elsewhere");

let app: E2eChatApp;
let mode: BrowserMode;
let page: Page;
let fake: FakeServer;
let other: Api;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("undone-elsewhere", { model: { id: "fake-chat", contextWindow: 1_000_000 } });
  ({ mode, page, fake } = app);
  other = createApi(createAppContext({ dbPath: app.dbPath, seedDemo: false, loadUserHooks: false }));
  await openLibrary(app);
});

afterAll(async () => {
  if (other?.ctx.db.open) other.ctx.db.close();
  await app?.stop();
});

describe("another Canopy undoes the edited message a reply streams below", () => {
  it("the composer says where the reply was saved and stays empty", async () => {
    const [session] = await api<SessionSummary[]>("library:list", {});
    if (!session) throw new Error("no demo session");
    const detail = await api<SessionDetail>("session:get", { sessionId: session.id });
    const user = detail.entries.find(
      (stored) =>
        stored.entry.type === "message" &&
        (stored.entry as { message: { role: string } }).message.role === "user",
    );
    if (!user) throw new Error("no user message");
    const edit = await api<EditResultDto>("edits:edit-message", {
      sessionId: session.id,
      entryId: user.entry.id,
      text: "Edited question.",
    });
    await openFromSidebar(page, mode, session.id);
    const llm = page.getByTestId("llm-view");
    await expect.poll(() => llm.getAttribute("data-leaf-id")).toBe(edit.entryId);

    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({ type: "reply", chunks: ["The lexer ", "is fixed."], holdRest: held });
    await page.locator("#composer").fill("Which tokens changed?");
    await page.locator("#composer").press("Control+Enter");
    await expect.poll(() => fake.requests.length, { timeout: 15_000 }).toBe(1);
    const undone = await other.call("edits:undo", { sessionId: session.id });
    expect(undone.ok && undone.value.operation).toBe("edit-message");
    release();

    const message = page.getByTestId("chat-message");
    await expect
      .poll(() => message.textContent(), { timeout: 15_000 })
      .toContain("it is saved below that edit");
    expect(await page.locator("#composer").inputValue()).toBe("");
    await page.screenshot({ path: path.join(shots, "01-saved-below-undone-edit.png") });
    const after = await api<SessionDetail>("session:get", { sessionId: session.id });
    expect(after.entries.some((stored) => JSON.stringify(stored.entry).includes("The lexer is fixed."))).toBe(
      true,
    );
  });
});
