// Who the running line waits for, with a remote summary endpoint and no model (Debian's Chromium,
// browser mode, the endpoint on the local fake server): a compaction waits for the endpoint's
// answer and says so; a branch summary, which never goes to the endpoint, is written by the
// built-in offline summarizer — neither says it waits for a model's first token (they used to).
import type { Page } from "playwright-core";
import type { SessionSummary } from "../../core/api/dto.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import { openMoveDialog, recordRunningTexts, runningTexts } from "../helpers/job-page.ts";

let app: E2eChatApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eChatApp("summary-writer", {});
  ({ page } = app);
  await apiCall(app.mode, "settings:set", { key: "compaction.remoteEndpoint", value: `${app.fake.url}/remote` });
  await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: true });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("a remote summary endpoint and no model", () => {
  it("a compaction says it waits for the endpoint's answer, counting, never for a model", async () => {
    // A plan without a split turn: no turn prefix (written offline at once) streams meanwhile.
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    const plain = sessions.find((session) => session.cwd.endsWith("project-0"));
    await openSessionShowingAll(page, app.mode, plain?.id as string);
    app.fake.enqueue({ type: "hang", route: "remote" });
    // The context bar says where summaries go.
    await poll(() => textOf(page.getByTestId("no-model-note"))).toBe(
      " — no model configured; compaction summaries go to the remote summary endpoint, the rest to the built-in offline summarizer",
    );
    await page.getByRole("button", { name: "Compact…" }).click();
    await page.getByTestId("compaction-plan").waitFor();
    await recordRunningTexts(page);
    await page.getByRole("button", { name: "Run compaction" }).click();
    await poll(() => textOf(page.locator(".compaction-panel .running"))).toContain(
      "Waiting for the remote summary endpoint's answer… 1 s",
    );
    await page.keyboard.press("Escape");
    await poll(() => textOf(page.getByTestId("job-message"))).toBe("Compaction cancelled; nothing changed.");
    for (const text of await runningTexts(page)) expect(text).not.toContain("model's first token");
  });

  it("a branch summary says the offline summarizer writes it, never that it waits for a model", async () => {
    await openSessionShowingAll(page, app.mode, await demoSessionId(app.mode, "Refactor the parser"));
    await recordRunningTexts(page);
    const dialog = await openMoveDialog(page, "1088b732");
    await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
    await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/^Moved to 1088b732's branch with branch summary \S+\./);
    const texts = await runningTexts(page);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).not.toContain("model's first token");
    expect(texts.some((text) => text.includes("The built-in offline summarizer is writing the summary…"))).toBe(true);
    expect(app.fake.requests.filter((request) => request.path !== "/remote")).toEqual([]);
  });
});
