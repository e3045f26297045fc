// The tree canvas stays inside the window when a line shows above it, in Debian's Chromium through
// browser mode, at the desktop app's smallest window (900×600) and the tests' 1280×800, light and
// dark: the write-wait line (another process holds the library's write lock while a label is set)
// and a long outcome line (the label refused after the wait: page.route gives the server's answer).
// At 900×600 the middle column scrolled as one and the canvas already reached the window's bottom,
// so such a line pushed the canvas's bottom, its zoom controls and the lowest entries, out of the
// window (33 px with the write-wait line). The canvas now gives up room to the line (down to 96 px
// high) and the composer goes below instead; under an open compaction plan (plan and tree do not fit
// together at 900×600) it keeps its 210 px. Screenshots: test-artifacts/small-window-canvas/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionDetail, SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, openPage, startE2eApp } from "../helpers/e2e-app.ts";
import { holdLockElsewhere, type LockHolder } from "../helpers/lock-holder.ts";

const shots = path.join(artifactsDir(), "small-window-canvas");
/** What the server answers an edit after 30 seconds of another process writing (main/api/dispatch.ts). */
const REFUSED =
  "The library is busy: another Canopy process on the same library file (a CLI command such as an import or prune, or another Canopy app) has been writing to it for more than 30 seconds. Nothing was changed; try again when it is done.";

let app: E2eApp;
let holder: LockHolder | undefined;
let sessionId: string;
let entryId: string;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eApp("small-window-canvas");
  const [session] = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
  if (!session) throw new Error("no demo session");
  sessionId = session.id;
  const detail = await apiCall<SessionDetail>(app.mode, "session:get", { sessionId });
  const user = detail.entries.find(
    (stored) =>
      stored.entry.type === "message" &&
      (stored.entry as { message: { role: string } }).message.role === "user",
  );
  if (!user) throw new Error("no user message");
  entryId = user.entry.id;
}, 120_000);

afterEach(() => {
  holder?.stop();
  holder = undefined;
});

afterAll(async () => {
  await app?.stop();
});


/** Where the canvas, its frame and zoom controls, and the composer are, against the window. */
function measure(page: Page) {
  return page.evaluate(() => {
    const box = (selector: string) => {
      const element = document.querySelector(selector);
      if (element === null) throw new Error(`no ${selector}`);
      const { top, bottom, height } = element.getBoundingClientRect();
      return { top: Math.round(top), bottom: Math.round(bottom), height: Math.round(height) };
    };
    return {
      window: window.innerHeight,
      canvas: box('[data-testid="tree-canvas"]'),
      frame: box(".tree-frame"),
      controls: box(".react-flow__controls"),
      composer: box(".composer"),
    };
  });
}

/** The whole canvas, its zoom controls included, is in the window, not under the composer, and usable. */
async function expectCanvasInWindow(page: Page, what: string, shot: string): Promise<void> {
  // A layout change lands within a frame or two; the canvas's compact switch (ResizeObserver) after it.
  // (On a timeout, the assertions below say where everything was.)
  await poll(async () => {
    const at = await measure(page);
    return at.canvas.bottom <= at.window && at.controls.bottom <= at.frame.bottom;
  })
    .toBe(true)
    .catch(() => undefined);
  await page.screenshot({ path: shot });
  const at = await measure(page);
  const where = `${what}: ${JSON.stringify(at)}`;
  expect(at.canvas.bottom, where).toBeLessThanOrEqual(at.window);
  expect(at.controls.bottom, where).toBeLessThanOrEqual(at.frame.bottom);
  expect(at.frame.height, where).toBeGreaterThanOrEqual(96);
  expect(at.composer.top, where).toBeGreaterThanOrEqual(at.canvas.bottom);
}

const CASES = [
  { width: 900, height: 600, scheme: "light" },
  { width: 900, height: 600, scheme: "dark" },
  { width: 1280, height: 800, scheme: "light" },
  { width: 1280, height: 800, scheme: "dark" },
] as const;

describe("a line above the tree in a small window", () => {
  for (const { width, height, scheme } of CASES) {
    it(`${width}×${height}, ${scheme}: the canvas stays in the window with the write-wait line or a long outcome`, async () => {
      const page = await openPage(app, { viewport: { width, height }, colorScheme: scheme });
      const name = `${width}x${height}-${scheme}`;
      try {
        await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}?leaf=${entryId}`);
        await page.getByTestId("tree-canvas").waitFor();
        await page.locator(".react-flow .tree-node").first().waitFor();
        await expectCanvasInWindow(page, "no line", path.join(shots, `${name}-1-no-line.png`));

        holder = await holdLockElsewhere(app.dbPath);
        const release = holder.release;
        await page.getByLabel("Label", { exact: true }).fill(`${name}-waited`);
        await page.getByRole("button", { name: "Set label" }).click();
        await poll(() => textOf(page.getByTestId("write-wait"))).toContain(
          "Waiting for another Canopy process",
        );
        await expectCanvasInWindow(page, "the write-wait line", path.join(shots, `${name}-2-write-wait.png`));
        release();
        await page.getByTestId("write-wait").waitFor({ state: "detached" });
        await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/label/i);

        // The answer the label gets when the other process writes on for 30 seconds.
        await page.route(
          (url) => decodeURIComponent(url.pathname) === "/api/edits:label",
          (route) =>
            route.fulfill({
              contentType: "application/json",
              body: JSON.stringify({ ok: false, error: { code: "conflict", message: REFUSED } }),
            }),
        );
        await page.getByLabel("Label", { exact: true }).fill(`${name}-refused`);
        await page.getByRole("button", { name: "Set label" }).click();
        await poll(() => textOf(page.getByTestId("job-message"))).toContain(
          "has been writing to it for more than 30 seconds",
        );
        await expectCanvasInWindow(page, "a long outcome line", path.join(shots, `${name}-3-refused.png`));
      } finally {
        await page.close();
      }
    }, 60_000);
  }
});

describe("an open compaction plan above the tree at 900×600", () => {
  it("leaves the canvas its 210 px: plan and tree do not fit together, the column scrolls to it", async () => {
    const page = await openPage(app, { viewport: { width: 900, height: 600 } });
    try {
      await page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
      await page.locator(".react-flow .tree-node").first().waitFor();
      await page.getByRole("button", { name: "Compact…" }).click();
      await page.getByRole("button", { name: "Run compaction", exact: true }).waitFor();
      await poll(async () => (await measure(page)).frame.height).toBe(210);
      const at = await measure(page);
      expect(at.composer.top, JSON.stringify(at)).toBeGreaterThanOrEqual(at.canvas.bottom);
    } finally {
      await page.close();
    }
  }, 60_000);
});
