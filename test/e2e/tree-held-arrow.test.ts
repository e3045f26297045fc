// A held arrow key on the canvas (Debian's Chromium, browser mode, a generated session without
// compactions): key repeats come faster than the page renders. Keydowns that come before the
// focus reached the entry the last one selected go on from that entry (they all went from the
// still-focused node and selected the same entry again); a key's own repeats that come before
// the last move is drawn are let go (handled, they starved the frames and ran on after the key
// was up); and the LLM view asks for the final entry's context once the keys stop, not for
// every entry passed over, and is sent only the messages the view on screen does not have.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSession } from "../../bench/generate-session.ts";
import type { ContextView, SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;
let sessionId: string;
let tree: SessionTreeDto;
/** The entries five single ArrowUp presses from the view leaf select, in turn. */
const steps: string[] = [];

beforeAll(async () => {
  app = await startE2eApp("held-arrow", { serve: { seedDemo: false } });
  page = app.page;
  const file = path.join(app.work, "long.jsonl");
  writeFileSync(file, generateSession(600, { compactAtTokens: 1e12 }).text);
  await apiCall(app.mode, "library:import", { path: file });
  sessionId = ((await apiCall<SessionSummary[]>(app.mode, "library:list", {}))[0] as SessionSummary).id;
  tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

const selected = () =>
  page.evaluate(`document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`) as Promise<
    string | null
  >;
const focusedEntry = () =>
  page.evaluate(`document.activeElement?.getAttribute("data-entry-id") ?? null`) as Promise<string | null>;
const viewLeaf = () => page.getByTestId("llm-view").getAttribute("data-leaf-id");

/** Selects the view leaf (a click, else End: its branch's tip); waits for its focus and LLM view. */
async function startAtViewLeaf(first: boolean): Promise<void> {
  if (first) await page.locator(`.tree-node[data-entry-id="${tree.viewLeafId}"]`).click();
  else await page.keyboard.press("End");
  await poll(selected).toBe(tree.viewLeafId);
  await poll(focusedEntry).toBe(tree.viewLeafId);
  await poll(viewLeaf).toBe(tree.viewLeafId);
  await poll(() => page.getByTestId("llm-view").getAttribute("aria-busy")).toBe("false");
}

describe("holding an arrow key on the canvas", () => {
  it("moves one entry per keydown, and the LLM view fetches the final entry's context", async () => {
    await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
    await page.locator(`.tree-node[data-entry-id="${tree.viewLeafId}"]`).waitFor({ timeout: 60_000 });

    // Where five single ArrowUp presses lead, each waited for.
    await startAtViewLeaf(true);
    for (let i = 0; i < 5; i++) {
      const before = await selected();
      await page.keyboard.press("ArrowUp");
      await poll(async () => ((await selected()) ?? before) !== before).toBe(true);
      await poll(focusedEntry).toBe(await selected());
      steps.push((await selected()) ?? "");
    }
    const fiveUp = await selected();
    expect(fiveUp).not.toBe(tree.viewLeafId);

    // The same five as repeats that all arrive before the page renders: one task, five keydowns
    // on the focused node, as a held key's repeats queue up behind a busy page.
    await startAtViewLeaf(false);
    const asked: string[] = [];
    page.on("request", (request) => {
      if (decodeURIComponent(request.url()).includes("/api/context:get")) {
        asked.push((JSON.parse(request.postData() ?? "{}") as { leafId?: string }).leafId ?? "");
      }
    });
    await page.evaluate(`(() => {
      const node = document.activeElement;
      for (let i = 0; i < 5; i++) {
        node.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true, cancelable: true }));
      }
    })()`);
    await poll(selected).toBe(fiveUp);
    await poll(viewLeaf).toBe(fiveUp);
    await poll(focusedEntry).toBe(fiveUp);
    // The first repeat's context (asked at once), then the final entry's: none in between.
    expect(asked.at(-1)).toBe(fiveUp);
    expect(asked.length).toBeLessThanOrEqual(2);
    // Sent only the messages past those it shares with the view on screen, the view is whole.
    const whole = await apiCall<ContextView>(app.mode, "context:get", { sessionId, leafId: fiveUp });
    expect(await page.getByTestId("llm-view").getAttribute("data-message-count")).toBe(String(whole.messages.length));
    const last = page.locator("[data-testid=llm-view] li.message").last();
    expect(await last.getAttribute("data-entry-id")).toBe(whole.messageEntryIds.at(-1));
  }, 120_000);

  it("keys pressed while the canvas still pans to the last selection leave the final entry on screen", async () => {
    // From five up, End selects the view leaf and the canvas pans there (an animation); the five
    // ArrowUp come before that pan ends, while five up still looks on screen mid-pan.
    await startAtViewLeaf(false);
    for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowUp");
    await poll(selected).toBe(steps[4]);
    await page.keyboard.press("End");
    await poll(focusedEntry).toBe(tree.viewLeafId);
    await page.evaluate(`(() => {
      const node = document.activeElement;
      for (let i = 0; i < 5; i++) {
        node.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true, cancelable: true }));
      }
    })()`);
    await poll(selected).toBe(steps[4]);
    await poll(focusedEntry).toBe(steps[4]);
  }, 60_000);

  it("lets go of the key's own repeats that come before the last move is drawn", async () => {
    await startAtViewLeaf(false);
    // A press and four auto-repeats queued behind it: the repeats come before a frame is drawn.
    await page.evaluate(`(() => {
      const node = document.activeElement;
      for (let i = 0; i < 5; i++) {
        node.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", repeat: i > 0, bubbles: true, cancelable: true }));
      }
    })()`);
    await poll(selected).toBe(steps[0]);
    await poll(focusedEntry).toBe(steps[0]);
    // Drawn: the next repeat moves on, from there.
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))");
    await page.evaluate(`document.activeElement.dispatchEvent(
      new KeyboardEvent("keydown", { key: "ArrowUp", repeat: true, bubbles: true, cancelable: true }))`);
    await poll(selected).toBe(steps[1]);
    expect(await selected()).toBe(steps[1]);
  }, 60_000);
});
