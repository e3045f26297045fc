// The search box right after a large import, in Debian's Chromium (browser mode): the new
// entries are indexed in the background, so a search answers at once from what is indexed, says
// how far indexing is, and fills in by itself until the note goes away.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;
let work: string;
const FILLER = Array.from({ length: 160 }, (_, i) => `word${i % 97} token${(i * 7) % 89}`).join(" ");
const shots = path.join(artifactsDir(), "search-indexing");

/**
 * A folder of `files` sessions of `count` user messages of ~1 KB (enough words that indexing
 * takes seconds, not the blink it would for short lines); every 1000th says "wombat".
 */
function writeFolder(dir: string, files: number, count: number): void {
  mkdirSync(dir, { recursive: true });
  for (let f = 0; f < files; f++) {
    const id = `big-${f}`;
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id,
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/w/big",
      }),
    ];
    for (let i = 0; i < count; i++) {
      const content = `${i % 1000 === 0 ? "wombat" : "note"} ${f} ${i} ${FILLER}`;
      const entry = {
        type: "message",
        id: `${id}-${i}`,
        parentId: i === 0 ? null : `${id}-${i - 1}`,
        timestamp: "t",
      };
      lines.push(JSON.stringify({ ...entry, message: { role: "user", content, timestamp: i } }));
    }
    writeFileSync(path.join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`);
  }
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eApp("search", { serve: { seedDemo: false } });
  ({ mode, page, work } = app);
  await page.goto(mode.url);
  await page.locator("#library-search").waitFor();
});

afterAll(async () => {
  await app?.stop();
});

describe("searching right after a large import", () => {
  it("answers from what is indexed, says how far indexing is, and fills in until done", async () => {
    const folder = path.join(work, "sessions");
    writeFolder(folder, 40, 2500);
    const report = await apiCall<ImportReport>(mode, "library:import", { path: folder });
    expect(report.entriesAdded).toBe(100_000);
    await page.locator("#library-search").fill("wombat");
    const note = page.locator(".search-indexing");
    await note.waitFor({ timeout: 20_000 });
    expect(await note.textContent()).toMatch(
      /^Still indexing for search \(\d{1,2}% done\): these results cover only the messages indexed so far\.$/,
    );
    await page.screenshot({ path: path.join(shots, "01-still-indexing.png") });
    // Asked again by itself until everything is indexed: then no note, and 100 wombats to show.
    await note.waitFor({ state: "detached", timeout: 120_000 });
    await expect.poll(() => page.locator(".search-hit").count()).toBe(50);
    expect(await page.locator(".hit-count").textContent()).toBe("First 50 matches");
    await page.screenshot({ path: path.join(shots, "02-indexed.png") });
  }, 180_000);
});
