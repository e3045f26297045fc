// Two tabs on one browser-mode server, and the real CLI on its library: a setting saved in one
// tab, or set by `canopy settings set`, shows in the other tab's open settings form without a
// reload; a field being edited keeps what is typed and says what the value became; leaving a
// field untouched never writes its (older) value back over the change; the model form keeps
// the context window the CLI set while its user edited the model id. Prints how long each took.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Settings } from "../../core/settings/schema.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openPage, startE2eApp } from "../helpers/e2e-app.ts";
import { cliOn } from "../helpers/outside-writer.ts";

let app: E2eApp;
let pageB: Page;

/** The real CLI in a process of its own, on the tabs' library; resolves when it has exited. */
async function cli(...args: string[]): Promise<number> {
  await cliOn(app.dbPath, ...args);
  return Date.now();
}

const stored = () => apiCall<Settings>(app.mode, "settings:get", {});
const field = (page: Page, key: string) => page.locator(`#setting-${key.replace(/\./g, "-")}`);
const value = (page: Page, key: string) => () => field(page, key).inputValue();

async function openSettings(page: Page): Promise<void> {
  await page.goto(app.mode.url);
  await page.getByTestId("llm-view").waitFor();
  await page.getByText("Settings and prompts").click();
  await page.getByTestId("settings-form").waitFor();
  // Set once on the page: still there afterwards means it was never reloaded.
  await page.evaluate(() => {
    (globalThis as { settingsMarker?: number }).settingsMarker = 1;
  });
}
const notReloaded = (page: Page) =>
  page.evaluate(() => (globalThis as { settingsMarker?: number }).settingsMarker === 1);

beforeAll(async () => {
  app = await startE2eApp("settings-follow");
  pageB = await openPage(app);
  await openSettings(app.page);
  await openSettings(pageB);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("an open settings form follows changes made elsewhere", () => {
  it("shows a value saved in another tab and one set by the CLI", async () => {
    const pageA = app.page;
    const started = Date.now();
    await field(pageB, "compaction.reserveTokens").fill("9000");
    await field(pageB, "compaction.reserveTokens").press("Enter");
    await poll(value(pageA, "compaction.reserveTokens")).toBe("9000");
    const tabMs = Date.now() - started;

    const set = await cli("settings", "set", "retry.maxRetries", "7");
    await poll(value(pageA, "retry.maxRetries")).toBe("7");
    await poll(value(pageB, "retry.maxRetries")).toBe("7");
    const cliMs = Date.now() - set;
    await cli("settings", "set", "images.blockImages", "true");
    await poll(() => field(pageA, "images.blockImages").isChecked()).toBe(true);

    expect(await notReloaded(pageA)).toBe(true);
    expect(await notReloaded(pageB)).toBe(true);
    console.log(`shown in the other tab after ${tabMs} ms; after the CLI exited, ${cliMs} ms`);
    expect(cliMs).toBeLessThan(5000);
  }, 60_000);

  it("never writes an untouched field's older value back over the change", async () => {
    const pageA = app.page;
    await cli("settings", "set", "compaction.keepRecentTokens", "3000");
    await poll(value(pageA, "compaction.keepRecentTokens")).toBe("3000");
    // Into the field and out again, changing nothing: nothing is saved.
    await field(pageA, "compaction.keepRecentTokens").click();
    await field(pageA, "retry.baseDelayMs").click();
    await cli("settings", "set", "compaction.keepRecentTokens", "3500");
    await field(pageA, "compaction.keepRecentTokens").click();
    await field(pageA, "retry.baseDelayMs").click();
    await poll(value(pageA, "compaction.keepRecentTokens")).toBe("3500");
    expect((await stored()).compaction.keepRecentTokens).toBe(3500);
  }, 60_000);

  it("keeps what the user is typing, says what the value became, and saves the typed value on Enter", async () => {
    const pageA = app.page;
    const keep = field(pageA, "compaction.keepRecentTokens");
    await keep.fill("12345");
    await keep.focus();
    // Changed in the other tab while this one is being edited.
    await field(pageB, "compaction.keepRecentTokens").fill("4000");
    await field(pageB, "compaction.keepRecentTokens").press("Enter");
    const note = pageA.locator(
      '[data-setting="compaction.keepRecentTokens"] [data-testid="changed-elsewhere"]',
    );
    await poll(() => note.count()).toBe(1);
    expect(await note.textContent()).toBe(
      "Changed elsewhere to 4000 while you were editing: Enter saves yours, Escape takes 4000.",
    );
    expect(await keep.inputValue()).toBe("12345");
    await keep.press("Enter");
    await poll(async () => (await stored()).compaction.keepRecentTokens).toBe(12345);
    await poll(value(pageB, "compaction.keepRecentTokens")).toBe("12345");
    // The other tab hears the change from the server; this tab's note goes when its own save's
    // answer arrives, which may be a moment later.
    await poll(() => note.count()).toBe(0);

    // Escape takes the value set elsewhere instead.
    await keep.fill("777");
    await cli("settings", "set", "compaction.keepRecentTokens", "5000");
    await poll(() => note.count()).toBe(1);
    await keep.press("Escape");
    expect(await keep.inputValue()).toBe("5000");
    await keep.blur();
    expect((await stored()).compaction.keepRecentTokens).toBe(5000);
  }, 60_000);

  it("keeps the model's context window the CLI set while the model id was being edited", async () => {
    const pageA = app.page;
    await cli(
      "settings",
      "set",
      "model",
      '{"baseUrl":"http://127.0.0.1:9/v1","id":"first","contextWindow":32768}',
    );
    await poll(() => pageA.getByLabel("Model id").inputValue()).toBe("first");
    await pageA.getByLabel("Model id").fill("second");
    await cli("settings", "set", "model.contextWindow", "65536");
    await poll(() => pageA.getByLabel("Context window (tokens)").inputValue()).toBe("65536");
    expect(await pageA.getByLabel("Model id").inputValue()).toBe("second");
    await pageA.getByRole("button", { name: "Save model" }).click();
    await poll(async () => (await stored()).model?.id).toBe("second");
    expect((await stored()).model?.contextWindow).toBe(65536);
    await poll(() => pageB.getByLabel("Model id").inputValue()).toBe("second");
  }, 60_000);
});
