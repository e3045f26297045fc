// The LLM view on a long path (Debian's Chromium, browser mode, a generated linear session of
// over 3,000 messages): only the messages near the visible part of the panel are in the page, yet
// selecting a deep entry scrolls its message into view, scrolling the panel brings the messages
// there, a "Show which" number goes to a message far away, and "Expand all" holds for messages
// rendered later.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSession } from "../../bench/generate-session.ts";
import type { ContextView, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;
let sessionId: string;
let view: ContextView;

beforeAll(async () => {
  app = await startE2eApp("llm-long", { serve: { seedDemo: false } });
  page = app.page;
  // No compaction: every message of the path is in the view.
  const generated = generateSession(3300, { compactAtTokens: 1e12 });
  const file = path.join(app.work, "long.jsonl");
  writeFileSync(file, generated.text);
  await apiCall(app.mode, "library:import", { path: file });
  // A model set: the request is Canopy's own, which sends no thinking (a note every reply shares).
  await apiCall(app.mode, "settings:set", {
    key: "model",
    value: { baseUrl: "http://127.0.0.1:9/v1", id: "local-model" },
  });
  sessionId = ((await apiCall<SessionSummary[]>(app.mode, "library:list", {}))[0] as SessionSummary).id;
  view = await apiCall<ContextView>(app.mode, "context:get", { sessionId, agentMessages: false });
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

const panel = () => page.locator("section.right");
const messagesInPage = () => page.locator("[data-testid=llm-view] li.message").count();
const elementsInView = () => page.locator("[data-testid=llm-view] *").count();

/** Whether the element is at least partly inside the panel's visible part. */
function inPanel(locator: Locator): Promise<boolean> {
  return locator.evaluate((node) => {
    // Runs in the page; the test's type-check has no DOM library, hence the structural type.
    type Box = { getBoundingClientRect(): { top: number; bottom: number } };
    const element = node as unknown as Box & { closest(selector: string): Box | null };
    const box = element.getBoundingClientRect();
    const pane = element.closest("section.right")?.getBoundingClientRect();
    return pane !== undefined && box.bottom > pane.top && box.top < pane.bottom;
  });
}

/** The indexes of the messages in the page that show in the panel. */
function shownIndexes(): Promise<number[]> {
  return page.evaluate(`(() => {
    const pane = document.querySelector("section.right").getBoundingClientRect();
    return [...document.querySelectorAll("[data-testid=llm-view] li.message")]
      .filter((li) => { const box = li.getBoundingClientRect(); return box.bottom > pane.top && box.top < pane.bottom; })
      .map((li) => Number(li.getAttribute("data-message-index")));
  })()`) as Promise<number[]>;
}

describe("the LLM view on a path of thousands of messages", () => {
  it("keeps the page small, scrolls to a deep entry's message and shows the messages scrolled to", async () => {
    expect(view.messages.length).toBeGreaterThan(3000);
    const count = view.messages.length;
    await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
    await poll(() => page.getByTestId("llm-view").getAttribute("data-message-count")).toBe(String(count));
    // Opened (no entry selected): the top of the list is in the page, the rest is not.
    await poll(async () => (await shownIndexes()).includes(0)).toBe(true);
    expect(await messagesInPage()).toBeLessThan(200);
    expect(await elementsInView()).toBeLessThan(8000);

    // A deep entry selected (as a link to it does): its message is scrolled to and shown.
    const deep = view.messageEntryIds[2600];
    if (!deep) throw new Error("no entry at message 2601");
    await page.evaluate(
      `window.location.hash = ${JSON.stringify(`#/session/${encodeURIComponent(sessionId)}?leaf=${deep}`)}`,
    );
    await poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(deep);
    const deepMessage = page.locator(
      `[data-testid=llm-view] li.message[data-entry-id="${deep}"][aria-current="true"]`,
    );
    await deepMessage.waitFor();
    await poll(() => inPanel(deepMessage)).toBe(true);
    expect(await messagesInPage()).toBeLessThan(200);

    // The diff with the view leaf opens and closes (the focus back on its button, in the header):
    // the list comes back small, the selected message in it.
    await page.getByRole("button", { name: "Diff with view leaf" }).click();
    await page.getByTestId("llm-diff").waitFor();
    await page.getByRole("button", { name: "Close diff" }).click();
    await poll(() => page.getByTestId("llm-view").getAttribute("data-mode")).toBe("messages");
    await deepMessage.waitFor();
    expect(await messagesInPage()).toBeLessThan(200);

    // Scrolling the panel to the middle brings the messages there into the page.
    await panel().evaluate((element) => element.scrollTo({ top: element.scrollHeight / 2 }));
    await poll(async () => {
      const shown = await shownIndexes();
      return shown.length > 0 && shown.every((index) => index > 300 && index < 2300);
    }).toBe(true);
    expect(await messagesInPage()).toBeLessThan(200);
    expect(await elementsInView()).toBeLessThan(8000);
  }, 120_000);

  it('goes to a far message from a "Show which" number', async () => {
    await panel().evaluate((element) => element.scrollTo({ top: 0 }));
    const groups = page.getByTestId("request-note-groups");
    await groups.getByRole("button", { name: "Show which" }).first().click();
    const numbers = page.locator(".request-which .request-group-messages button");
    // A number in the middle: its message is far from both the top and the selected entry.
    const number = numbers.nth(Math.floor((await numbers.count()) / 2));
    const name = (await number.getAttribute("aria-label")) ?? "";
    const index = Number(/Go to message (\d+)/.exec(name)?.[1]) - 1;
    expect(index).toBeGreaterThan(800);
    expect(index).toBeLessThan(2000);
    await number.click();
    const target = page.locator(`[data-testid=llm-view] li.message[data-message-index="${index}"]`);
    await target.waitFor();
    await poll(() => inPanel(target)).toBe(true);
    expect(await messagesInPage()).toBeLessThan(200);
  }, 60_000);

  it('opens the messages rendered later as "Expand all" said', async () => {
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Expand all" }).click();
    await panel().evaluate((element) => element.scrollTo({ top: element.scrollHeight / 3 }));
    const toggles = page.locator("[data-testid=llm-view] li.message .message-meta button.toggle");
    await poll(async () => {
      const shown = await shownIndexes();
      return shown.length > 0 && shown.every((index) => index > 300);
    }).toBe(true);
    await poll(() => toggles.count()).toBeGreaterThan(0);
    const states = await toggles.evaluateAll((buttons) =>
      buttons.map((button) =>
        (button as unknown as { getAttribute(name: string): string }).getAttribute("aria-expanded"),
      ),
    );
    expect(
      states.every((state) => state === "true"),
      JSON.stringify(states),
    ).toBe(true);
  }, 60_000);
  it("keeps the focused message in the page when scrolled away; Tab goes on to the next message", async () => {
    await panel().evaluate((element) => element.scrollTo({ top: element.scrollHeight / 2 }));
    await poll(async () => (await shownIndexes()).length > 1).toBe(true);
    const first = (await shownIndexes())[0] as number;
    await page
      .locator(`[data-testid=llm-view] li.message[data-message-index="${first}"] button.entry-link`)
      .focus();
    const focusedIndex = () =>
      page.evaluate(
        `Number(document.activeElement?.closest("li.message")?.getAttribute("data-message-index") ?? -1)`,
      ) as Promise<number>;
    for (let i = 0; i < 10 && (await focusedIndex()) === first; i++) await page.keyboard.press("Tab");
    expect(await focusedIndex()).toBe(first + 1);
    await panel().evaluate((element) => element.scrollTo({ top: 0 }));
    await poll(async () => (await shownIndexes()).includes(0)).toBe(true);
    // Scrolled far away, the focused message is still in the page, the focus on it.
    expect(await focusedIndex()).toBe(first + 1);
    expect(await messagesInPage()).toBeLessThan(200);
  }, 60_000);
});
