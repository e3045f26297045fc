// Controls off for want of something to act on, in Chromium (browser mode): Import with no path
// typed, Go to leaf and Export's "Resume at the view leaf" on a session without entries, and
// "Use the defaults" once the default folders are in use. They were greyed with no tooltip, so the
// user could not tell why; each now carries the reason as its title (its accessible description).
// Expand all and Collapse all, off while a diff replaces the messages, say so too.
// Test connection, held while its test runs (aria-disabled), says so in its tooltip too.
// Import and Scan agent folders while an import runs, and Export's Save and Export anyway while it
// exports, held the same way, say so too (before, only their label changed); a click on them says
// why in one line (the outcome line; in the dialog for Export's), where before nothing visible happened.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessibleDescription } from "../helpers/accessible-description.ts";
import { poll, textOf } from "../helpers/canvas-page.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { holdRequests } from "../helpers/held-requests.ts";

let app: E2eApp;
let page: Page;

const outcome = () => textOf(page.getByTestId("job-message"));

/** The control is disabled, and its tooltip and accessible description give `why`. */
async function expectSaysWhy(control: Locator, why: string): Promise<void> {
  await poll(() => control.isDisabled()).toBe(true);
  expect(await control.getAttribute("title")).toBe(why);
  expect(await accessibleDescription(control)).toBe(why);
}

beforeAll(async () => {
  app = await startE2eApp("disabled-why-idle");
  ({ page } = app);
  await openLibrary(app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("controls off for want of something to act on", () => {
  it("Import says a path is needed", async () => {
    await page.locator("#import-path").fill("");
    await expectSaysWhy(
      page.getByRole("button", { name: "Import", exact: true }),
      "Type the path of a .jsonl file or folder first.",
    );
  });

  it("Go to leaf and Resume at the view leaf say the session has no entries", async () => {
    const file = path.join(app.work, "header-only.jsonl");
    const header = {
      type: "session",
      version: 3,
      id: "header-only-why",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    };
    writeFileSync(file, `${JSON.stringify(header)}\n`);
    await page.locator("#import-path").fill(file);
    await page.locator("#import-path").press("Enter");
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(
      "header-only-why",
    );
    await expectSaysWhy(
      page.getByRole("button", { name: "Go to leaf", exact: true }),
      "The session has no entries: there is no view leaf to go to.",
    );
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await expectSaysWhy(
      dialog.getByRole("checkbox", { name: "Resume at the view leaf" }),
      "The session has no entries: there is no view leaf to resume at.",
    );
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  });

  it("Use the defaults says they are in use already", async () => {
    await page.getByText("Settings and prompts").click();
    const section = page.getByTestId("agent-folders");
    await section.waitFor();
    await expectSaysWhy(
      section.getByRole("button", { name: "Use the defaults" }),
      "The default folders are in use already.",
    );
  });

  it("Test connection says a test is running while it runs", async () => {
    // Settings are open from the test before. The test's request is held until checked.
    const release = await holdRequests(page, "settings:test-connection");
    const test = page.getByRole("button", { name: "Test connection" });
    try {
      await test.click();
      await page.getByTestId("connection-test-running").waitFor();
      const why = "A connection test is running: wait for its answer, or Cancel it (Escape).";
      expect(await test.getAttribute("aria-disabled")).toBe("true");
      expect(await test.getAttribute("title")).toBe(why);
      expect(await accessibleDescription(test)).toBe(why);
    } finally {
      await release();
    }
    await page.getByTestId("connection-test-running").waitFor({ state: "detached" });
    expect(await test.getAttribute("title")).toBeNull();
  });

  it("Expand all and Collapse all say a diff is shown instead of the messages", async () => {
    const file = path.join(app.work, "two-turns.jsonl");
    const at = (s: number) => new Date(Date.UTC(2026, 3, 1, 8, 0, s)).toISOString();
    const ask = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: at(1),
        message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
      });
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "two-turns-why", timestamp: at(0), cwd: "/x" }),
      ask("u1", null, "First question"),
      ask("u2", "u1", "Second question"),
    ];
    writeFileSync(file, `${lines.join("\n")}\n`);
    await page.locator("#import-path").fill(file);
    await page.locator("#import-path").press("Enter");
    await page.locator('[data-testid="llm-view"][data-leaf-id="u2"] li.message').last().waitFor();
    await page.getByRole("button", { name: "Diff two entries" }).click();
    await page.getByLabel("Before (leaf id)").fill("u1");
    await page.getByLabel("After (leaf id)").fill("u2");
    await page.getByLabel("After (leaf id)").press("Enter");
    await page.getByTestId("llm-diff").waitFor();
    for (const name of ["Expand all", "Collapse all"]) {
      await expectSaysWhy(
        page.getByRole("button", { name, exact: true }),
        "A diff is shown instead of the messages: Close diff first.",
      );
    }
    await page.getByRole("button", { name: "Close diff" }).click();
    await poll(() => page.getByTestId("llm-view").getAttribute("data-mode")).toBe("messages");
  });

  it("Import and Scan agent folders while an import runs, and Export's button while exporting, say why", async () => {
    // Before, their label changed ("Importing…", "Exporting…") but no tooltip said why they were held.
    const hold = (endpoint: string) => holdRequests(page, endpoint);
    const file = path.join(app.work, "busy-why.jsonl");
    const at = new Date(Date.UTC(2026, 3, 2, 8, 0, 0)).toISOString();
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "busy-why", timestamp: at, cwd: "/x" }),
      JSON.stringify({
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: at,
        message: { role: "user", content: [{ type: "text", text: "Hello" }], timestamp: 1 },
      }),
    ];
    writeFileSync(file, `${lines.join("\n")}\n`);
    const importing = "An import is running: wait for it, or Cancel it (Escape).";
    const importButton = page.locator('.import-form button[type="submit"]');
    const scan = page.getByRole("button", { name: "Scan agent folders" });
    let release = await hold("library:import");
    try {
      await page.locator("#import-path").fill(file);
      await page.locator("#import-path").press("Enter");
      await poll(() => importButton.textContent()).toBe("Importing…");
      for (const control of [importButton, scan]) {
        expect(await control.getAttribute("aria-disabled")).toBe("true");
        expect(await control.getAttribute("title")).toBe(importing);
        expect(await accessibleDescription(control)).toBe(importing);
      }
      // A click says why on the outcome line (before, nothing visible happened); a second leaves it.
      const said = "an import is running: wait for it, or Cancel it (Escape).";
      await importButton.click({ force: true }); // aria-disabled: a real click still lands
      await poll(outcome).toBe(`Import did nothing: ${said}`);
      await scan.click({ force: true });
      await poll(outcome).toBe(`Scan agent folders did nothing: ${said}`);
      await scan.click({ force: true });
      expect(await page.getByTestId("job-message").count()).toBe(1);
      expect(await outcome()).toBe(`Scan agent folders did nothing: ${said}`);
    } finally {
      await release();
    }
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe("busy-why");
    await poll(() => importButton.textContent()).toBe("Import");
    expect(await importButton.getAttribute("title")).toBeNull();
    expect(await scan.getAttribute("title")).not.toBe(importing);

    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.getByLabel(/^Save to path/).fill(path.join(app.work, "busy-why-out.jsonl"));
    const save = dialog.locator('button[type="submit"]');
    // Into the source's own folder, which was just written: the dialog asks first (Export anyway).
    await save.click();
    await dialog.getByTestId("export-warning").waitFor();
    const anyway = dialog.getByRole("button", { name: "Export anyway" });
    const exporting = "The session is being exported; available again once it is done.";
    release = await hold("session:export");
    try {
      await anyway.click();
      await poll(() => save.textContent()).toBe("Exporting…");
      for (const control of [save, anyway]) {
        expect(await control.getAttribute("aria-disabled")).toBe("true");
        expect(await control.getAttribute("title")).toBe(exporting);
        expect(await accessibleDescription(control)).toBe(exporting);
      }
      // A click says why in the dialog (the outcome line is behind it), once.
      const said = "the session is being exported; available again once it is done.";
      const line = dialog.getByRole("alert").filter({ hasText: "did nothing" });
      await save.click({ force: true });
      await poll(() => textOf(line)).toBe(`Save did nothing: ${said}`);
      await anyway.click({ force: true });
      await poll(() => textOf(line)).toBe(`Export anyway did nothing: ${said}`);
      await anyway.click({ force: true });
      expect(await line.count()).toBe(1);
    } finally {
      await release();
    }
    await dialog.waitFor({ state: "detached" });
  });
});
