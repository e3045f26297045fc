// Two tabs on one browser-mode server, and the real CLI on its library: what follows a change
// made elsewhere besides the settings form. The agent folders list (saved in the other tab, or
// `canopy folders set|reset`) shows the new folders, or keeps what is being typed and says what
// they became.
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfiguredFolders } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openPage, startE2eApp } from "../helpers/e2e-app.ts";
import { cliOn } from "../helpers/outside-writer.ts";

let app: E2eApp;
let pageB: Page;

const cli = async (...args: string[]) => {
  await cliOn(app.dbPath, ...args);
  return Date.now();
};
const folderBox = (page: Page) => page.getByLabel("Agent session folders");

async function openSettings(page: Page): Promise<void> {
  await page.goto(app.mode.url);
  await page.getByTestId("llm-view").waitFor();
  await page.getByText("Settings and prompts").click();
  await folderBox(page).waitFor();
  // Set once on the page: still there afterwards means it was never reloaded.
  await page.evaluate(() => {
    (globalThis as { pageMarker?: number }).pageMarker = 1;
  });
}
const notReloaded = (page: Page) =>
  page.evaluate(() => (globalThis as { pageMarker?: number }).pageMarker === 1);

beforeAll(async () => {
  app = await startE2eApp("settings-elsewhere");
  pageB = await openPage(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("what follows a change made elsewhere", () => {
  it("the agent folders: saved in another tab, set and reset by the CLI, and while being edited", async () => {
    const pageA = app.page;
    await openSettings(pageA);
    await openSettings(pageB);
    const one = path.join(app.work, "agents-one");
    const two = path.join(app.work, "agents-two");

    await folderBox(pageB).fill(one);
    await pageB.getByRole("button", { name: "Save folders" }).click();
    await poll(() => folderBox(pageA).inputValue()).toBe(one);

    const set = await cli("folders", "set", two);
    await poll(() => folderBox(pageA).inputValue()).toBe(two);
    await poll(() => folderBox(pageB).inputValue()).toBe(two);
    const cliMs = Date.now() - set;

    // Being edited in tab A: what is typed stays, a line says what the folders became.
    await folderBox(pageA).fill(`${two}\n${one}`);
    await cli("folders", "reset");
    const defaults = (await apiCall<ConfiguredFolders>(app.mode, "library:get-folders", {})).folders;
    expect(defaults).toEqual([
      path.join(os.homedir(), ".pi", "agent", "sessions"),
      path.join(os.homedir(), ".omp", "agent", "sessions"),
    ]);
    await poll(() => folderBox(pageB).inputValue()).toBe(defaults.join("\n"));
    const note = pageA.getByTestId("folders-changed-elsewhere");
    await poll(() => note.count()).toBe(1);
    expect(await note.textContent()).toBe(
      "Changed elsewhere to the defaults while you were editing: Save folders saves yours, Escape takes those.",
    );
    expect(await folderBox(pageA).inputValue()).toBe(`${two}\n${one}`);
    await folderBox(pageA).press("Escape");
    expect(await folderBox(pageA).inputValue()).toBe(defaults.join("\n"));
    expect(await note.count()).toBe(0);

    expect(await notReloaded(pageA)).toBe(true);
    expect(await notReloaded(pageB)).toBe(true);
    console.log(`folders set by the CLI shown in both tabs ${cliMs} ms after it exited`);
    expect(cliMs).toBeLessThan(5000);
  }, 60_000);
});
