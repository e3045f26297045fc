// Deleting a session whose title is a long first message, in Chromium (browser mode): the
// confirmation and the notice after it name the session by the start of it (up to 120
// characters, then …), not the whole message — a pasted 2,000-character prompt made the
// confirmation taller than the window (859 px in an 800 px one), its question scrolled out of sight.
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { sessionLines } from "../helpers/entry-lines.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("delete-long-title");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("deleting a session with a long first message", () => {
  it("names it by the start of the message in the confirmation and the notice", async () => {
    const prompt = `longprompt ${"please refactor this module carefully ".repeat(55)}`.trim();
    const session = sessionLines("long-title-1");
    session.add("m1", null, "message", { message: { role: "user", content: prompt, timestamp: 1 } });
    const file = session.write(path.join(app.work, "long.jsonl"));
    await page.locator("#import-path").fill(file);
    await page.locator("#import-path").press("Enter");
    await poll(() => page.locator(".import-report").textContent()).toContain("1 imported");
    const cut = `${prompt.slice(0, 120)}…`;

    await page.locator('button.session-delete[aria-label^="Delete “longprompt"]').click();
    const confirm = page.getByRole("alertdialog", { name: "Delete this session from the library?" });
    await poll(() => confirm.textContent()).toContain(`Delete “${cut}” from the library?`);
    expect((await confirm.boundingBox())?.height).toBeLessThan(300);
    const deleteButton = confirm.getByRole("button", { name: "Delete", exact: true });

    await deleteButton.click();
    await poll(() => page.locator(".notice").textContent()).toContain(`Deleted “${cut}” from the library`);
  });
});
