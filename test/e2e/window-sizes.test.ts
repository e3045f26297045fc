// The app's layout at real window sizes and browser zoom levels (a zoom Z on a W×H window is a
// W/Z × H/Z page at device scale Z), on a session with a long title:
// - the session's title keeps room to be read (at least ~200 px, or its whole text) beside its
//   buttons: between 1000 and 1280 px it was cut to 120–150 px ("Refactor the …") because
//   Compact… and Prune… stayed on its line;
// - at 200% zoom on a 1280×800 window (a 640 px page) the middle column was 130 px wide: the title
//   vanished (0 px) and Export…, the label box and the filter ran under the LLM view. A page that
//   narrow now puts the LLM view below the tree, each as wide as the sidebar leaves;
// - nothing of the middle column sticks out of it, the canvas keeps a usable size, and the title's
//   whole text is its tooltip; Compact… and Prune… wrap together (Prune… went alone to a line).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, demoSessionId, openPage, startE2eApp } from "../helpers/e2e-app.ts";

const LONG_TITLE =
  "Refactor the authentication middleware so that session tokens are rotated on every privileged request";

let app: E2eApp;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp("window-sizes");
  sessionId = await demoSessionId(app.mode, "Session store tree");
  await apiCall(app.mode, "edits:rename", { sessionId, title: LONG_TITLE });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}

interface Layout {
  center: Box;
  right: Box;
  canvas: Box;
  title: Box;
  titleText: string;
  titleTooltip: string;
  titleCut: boolean;
  headerButtons: Box[];
  /** Compact… and Prune…: on one line, whichever line that is. */
  jobButtonTops: number[];
  /** Controls of the middle column that stick out of it (tag and text). */
  outside: string[];
}

/** Opens the session in a page of `width`×`height` at browser zoom `zoom` and measures it. */
async function layoutAt(width: number, height: number, zoom: number): Promise<Layout> {
  const page: Page = await openPage(app, {
    viewport: { width: Math.round(width / zoom), height: Math.round(height / zoom) },
    deviceScaleFactor: zoom,
  });
  try {
    await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
    await page.getByTestId("tree-canvas").waitFor();
    // Attached, not visible: a title squeezed to nothing is what the test is to find.
    await page.locator(".session-heading", { hasText: "Refactor" }).waitFor({ state: "attached" });
    await page.getByTestId("llm-view").waitFor();
    return await page.evaluate(() => {
      const box = (el: Element | null): Box => {
        if (el === null) throw new Error("missing element");
        const { left, right, top, bottom, width, height } = el.getBoundingClientRect();
        return { left, right, top, bottom, width, height };
      };
      const center = document.querySelector(".app > .center");
      const centerBox = box(center);
      const title = document.querySelector<HTMLElement>(".session-heading");
      const controls = [...(center?.querySelectorAll("button, input, select, textarea, h2") ?? [])];
      const outside = controls
        .filter((el) => {
          const b = el.getBoundingClientRect();
          return b.width > 0 && (b.right > centerBox.right + 0.5 || b.left < centerBox.left - 0.5);
        })
        .map((el) => `${el.tagName} ${(el.textContent ?? "").slice(0, 20)}`);
      const header = document.querySelector(".compaction-panel > .row");
      const buttons = header?.querySelectorAll("button") ?? [];
      return {
        center: centerBox,
        right: box(document.querySelector(".app > .right")),
        canvas: box(document.querySelector('[data-testid="tree-canvas"]')),
        title: box(title),
        titleText: title?.textContent ?? "",
        titleTooltip: title?.title ?? "",
        titleCut: title !== null && title.scrollWidth > title.clientWidth,
        headerButtons: [...buttons].map(box),
        jobButtonTops: [...buttons]
          .filter((button) => ["Compact…", "Prune…"].includes(button.textContent ?? ""))
          .map((button) => box(button).top),
        outside,
      };
    });
  } finally {
    await page.close();
  }
}

const overlap = (a: Box, b: Box) =>
  a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

const SIZES: [width: number, height: number, zoom: number][] = [
  [800, 600, 1],
  [1024, 768, 1],
  [1100, 800, 1],
  [1280, 800, 1],
  [1440, 900, 1],
  [1920, 1080, 1],
  [2560, 1440, 1],
  [1280, 800, 1.5],
  [1280, 800, 2],
];

describe("the layout at window sizes and zoom levels", () => {
  for (const [width, height, zoom] of SIZES) {
    it(`${width}×${height} at ${zoom * 100}%: a readable title, nothing cut off or overlapping`, async () => {
      const layout = await layoutAt(width, height, zoom);
      expect(layout.outside, "controls sticking out of the middle column").toEqual([]);
      expect(overlap(layout.center, layout.right), "the middle column and the LLM view overlap").toBe(false);
      expect(layout.center.width).toBeGreaterThanOrEqual(320);
      expect(layout.right.width).toBeGreaterThanOrEqual(280);
      // The canvas keeps a usable size.
      expect(layout.canvas.width).toBeGreaterThanOrEqual(300);
      expect(layout.canvas.height).toBeGreaterThanOrEqual(200);
      // The title: its whole text is its tooltip; cut, it still shows a good part of itself.
      expect(layout.titleText).toBe(LONG_TITLE);
      expect(layout.titleTooltip.split("\n")[0]).toBe(LONG_TITLE);
      if (layout.titleCut) expect(layout.title.width).toBeGreaterThanOrEqual(200);
      for (const button of layout.headerButtons) expect(overlap(button, layout.title)).toBe(false);
      expect(layout.jobButtonTops).toHaveLength(2);
      expect(layout.jobButtonTops[0]).toBe(layout.jobButtonTops[1]);
    }, 60_000);
  }
});

describe("a dialog at 200% zoom (the LLM view below the tree)", () => {
  it("is drawn over the tree, not under it", async () => {
    const page = await openPage(app, { viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 });
    try {
      await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
      await page.getByTestId("tree-canvas").waitFor();
      await page.getByRole("button", { name: "Keyboard shortcuts" }).click();
      const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
      await dialog.waitFor();
      // Points across the dialog, over the middle column: each one hits the dialog itself. The
      // sidebar that holds it was a stacking context of its own (sticky), so the tree's toolbar
      // showed through the dialog.
      const covered = await dialog.evaluate((element) => {
        const box = element.getBoundingClientRect();
        const misses: string[] = [];
        for (let x = box.left + 10; x < box.right - 10; x += 40) {
          for (let y = box.top + 10; y < box.bottom - 10; y += 40) {
            const hit = document.elementFromPoint(x, y);
            if (hit !== null && !element.contains(hit)) misses.push(`${hit.tagName}.${hit.className}`);
          }
        }
        return misses;
      });
      expect(covered).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe("renaming at 150% zoom (a 1280 px window: the title on a line of its own)", () => {
  it("gives the title's box the line, not a few letters of it", async () => {
    const page = await openPage(app, { viewport: { width: 853, height: 533 }, deviceScaleFactor: 1.5 });
    try {
      await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
      await page.getByTestId("tree-canvas").waitFor();
      await page.getByRole("button", { name: "Rename" }).click();
      const input = page.getByTestId("session-header").locator("input");
      await input.waitFor();
      const width = await input.evaluate((element) => element.getBoundingClientRect().width);
      expect(width).toBeGreaterThanOrEqual(250);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe("selecting on the tree with the LLM view below it (200% zoom)", () => {
  it("leaves the window where it is: the LLM view scrolls within itself", async () => {
    const page = await openPage(app, { viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 });
    try {
      await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
      await page.getByTestId("tree-canvas").waitFor();
      await page.getByTestId("llm-view").locator(".message").first().waitFor();
      // A node on screen: the canvas is in the window's first screen, the LLM view below it.
      const nodes = page.locator(".tree-node");
      await nodes.first().waitFor();
      const onScreen = await nodes.evaluateAll((elements) =>
        elements
          .map((element) => ({
            id: element.getAttribute("data-entry-id"),
            box: element.getBoundingClientRect(),
          }))
          .filter(({ box }) => box.top >= 0 && box.bottom <= window.innerHeight && box.width > 0)
          .map(({ id }) => id),
      );
      const target = onScreen.find((id) => id !== null);
      if (!target) throw new Error("no tree node on screen");
      await page.locator(`.tree-node[data-entry-id="${target}"]`).click();
      const current = page.getByTestId("llm-view").locator('[aria-current="true"]');
      // The LLM view scrolls to the selection once the view of the selected entry has come (the
      // message can be marked before, in the view it replaces): wait for that view, then for it.
      await expect.poll(() => page.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(target);
      const inPane = () =>
        current.evaluate((element) => {
          const pane = document.querySelector(".app > .right")?.getBoundingClientRect();
          const box = element.getBoundingClientRect();
          return pane !== undefined && box.top >= pane.top - 1 && box.top < pane.bottom;
        });
      await expect
        .poll(inPane, { message: "the selected message is in the LLM view's visible part" })
        .toBe(true);
      // It came into view in the LLM view's own scroll; the window stayed.
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe("the tree toolbar's checkboxes", () => {
  it("sit alike: Show archived as Collapse long chains (a gap before the text, centred on it)", async () => {
    const page = await openPage(app);
    try {
      await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
      await page.getByTestId("tree-canvas").waitFor();
      const measure = (name: string) =>
        page
          .getByRole("toolbar", { name: "Tree view" })
          .getByText(name)
          .evaluate((label) => {
            const input = label.querySelector("input");
            const text = [...label.childNodes].find(
              (node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim(),
            );
            if (!input || !text) throw new Error("no checkbox or text");
            const range = document.createRange();
            range.selectNodeContents(text);
            const words = range.getBoundingClientRect();
            const box = input.getBoundingClientRect();
            return {
              gap: Math.round(words.left - box.right),
              offCentre: Math.round(Math.abs(words.top + words.height / 2 - (box.top + box.height / 2))),
            };
          });
      const collapse = await measure("Collapse long chains");
      const archived = await measure("Show archived");
      expect(archived).toEqual(collapse);
    } finally {
      await page.close();
    }
  }, 60_000);
});
