// Paths typed or pasted into the import form and the agent folders list in Chromium (browser
// mode), as a file manager or a terminal hands them over: in quotes ('…' or "…") or as a file://
// URL, the file is imported; a relative path is refused in words instead of being taken
// relative to the app's own folder.
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("import-form-paths");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** Types `text` in the import field and presses Enter; resolves to the report or error line shown. */
async function importTyped(text: string, expected: RegExp): Promise<string> {
  const form = page.locator(".import-form");
  await page.locator("#import-path").fill(text);
  await page.locator("#import-path").press("Enter");
  await poll(async () =>
    expected.test((await form.locator(".import-report, [role=alert]").allTextContents()).join(" ")),
  ).toBe(true);
  return (await form.locator(".import-report, [role=alert]").allTextContents()).join(" ");
}

describe("the import form takes a path as it is pasted", () => {
  it("in single or double quotes", async () => {
    const file = fixturePath("tree-00.jsonl");
    expect(await importTyped(`'${file}'`, /imported|No such/)).toContain("1 imported");
    expect(await importTyped(` "${file}" `, /unchanged|No such/)).toContain("1 unchanged");
  });

  it("as a file:// URL, spaces and all", async () => {
    const file = path.join(app.work, "my sessions", "tree 01.jsonl");
    mkdirSync(path.dirname(file));
    copyFileSync(fixturePath("tree-01.jsonl"), file);
    const url = `file://${file.split("/").map(encodeURIComponent).join("/")}`;
    expect(await importTyped(url, /imported|No such/)).toContain("1 imported");
  });

  it("refuses a relative path in words instead of looking for it in the app's own folder", async () => {
    const shown = await importTyped("sessions/today.jsonl", /whole path|No such/);
    expect(shown).toContain("not a whole path");
    expect(shown).not.toContain(process.cwd());
  });
});

describe("the agent folders list keeps what is typed", () => {
  it("when the folders arrive after the user started typing (a slow first answer)", async () => {
    await page.reload();
    await page.getByText("Settings and prompts").waitFor();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const isGetFolders = (url: URL) => decodeURIComponent(url.pathname) === "/api/library:get-folders";
    await page.route(isGetFolders, async (route) => {
      await held;
      await route.continue().catch(() => undefined);
      answered();
    });
    try {
      await page.getByText("Settings and prompts").click();
      const box = page.getByTestId("agent-folders").getByLabel("Agent session folders");
      await box.fill("/typed/before/the/answer");
      release();
      await arrived;
      // The answer is in: what was typed is still there.
      await poll(() => page.getByTestId("folders-missing").count()).toBe(1);
      expect(await box.inputValue()).toBe("/typed/before/the/answer");
    } finally {
      release();
      await page.unroute(isGetFolders);
      await page.getByText("Settings and prompts").click();
    }
  });
});

describe("the agent folders list takes folders as they are pasted", () => {
  it("quoted or as file:// URLs, and refuses a relative folder instead of saving it under the app's folder", async () => {
    await page.getByText("Settings and prompts").click();
    const section = page.getByTestId("agent-folders");
    const box = section.getByLabel("Agent session folders");
    await box.fill("relative/sessions");
    await section.getByRole("button", { name: "Save folders" }).click();
    await poll(() => section.getByRole("alert").count()).toBe(1);
    expect(await section.getByRole("alert").textContent()).toContain("not a whole path");
    expect(await box.inputValue()).toBe("relative/sessions");

    const folder = path.join(app.work, "my sessions");
    await box.fill(`'${app.work}'\nfile://${folder.split("/").map(encodeURIComponent).join("/")}`);
    await section.getByRole("button", { name: "Save folders" }).click();
    await poll(() => section.getByText("Folders saved.").count()).toBe(1);
    expect(await box.inputValue()).toBe(`${app.work}\n${folder}`);
  });
});
