// The notice an export leaves ("Exported N lines … as <path>") belongs to the session exported,
// in Debian's Chromium (browser mode, bundled demo sessions): opening another session drops it,
// so it never reads as if it were about the session now open, and coming back does not revive it.
// While the export runs, its button says "Exporting…".
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExportResult, SessionSummary } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("export-notice");
  ({ mode, page } = app);
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

/** Opens a session from the sidebar, as a user does, and waits for its canvas. */
async function openFromSidebar(sessionId: string): Promise<void> {
  await page.locator(`button.session[data-session-id="${sessionId}"]`).click();
  await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
}

describe("the export notice", () => {
  it("goes away when another session is opened and does not come back with the exported one", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const [exported, other] = sessions;
    if (!exported || !other) throw new Error("the demo library has fewer than two sessions");
    await page.goto(`${mode.url}#/session/${encodeURIComponent(exported.id)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(exported.id);

    const out = path.join(app.work, "exported.jsonl");
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.getByLabel(/Save to path/).fill(out);
    await dialog.getByRole("button", { name: "Save" }).click();
    const notice = page.getByTestId("notice");
    await poll(() => notice.textContent()).toContain(`as ${out}`);

    await openFromSidebar(other.id);
    expect(await notice.count()).toBe(0);

    await openFromSidebar(exported.id);
    expect(await notice.count()).toBe(0);
  });

  it("downloads the file itself, not the JSONL inside a JSON answer, and says how many lines", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    await page.goto(`${mode.url}#/session/${encodeURIComponent(session.id)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    const types: string[] = [];
    page.on("response", (response) => {
      if (response.url().includes("session%3Aexport")) types.push(response.headers()["content-type"] ?? "");
    });
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.getByLabel(/Resume at/).uncheck();
    await dialog.getByLabel(/Save to path/).fill("");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      dialog.getByRole("button", { name: "Download" }).click(),
    ]);
    const text = readFileSync(await download.path(), "utf8");
    const expected = await apiCall<ExportResult>(mode, "session:export", { sessionId: session.id });
    expect(text).toBe(expected.text);
    expect(types).toEqual(["application/jsonl"]);
    await poll(() => page.getByTestId("notice").textContent()).toContain(`Exported ${expected.lines} lines`);
  });

  it("names the view leaf the resume marker hangs from, as the dialog does, not the marker's own id", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    await page.goto(`${mode.url}#/session/${encodeURIComponent(session.id)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    const viewLeafId = session.viewLeafId;
    if (viewLeafId === null) throw new Error("the demo session has no view leaf");
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.getByLabel(/Resume at the view leaf/).check();
    expect(await dialog.getByText(/Resume at the view leaf/).textContent()).toContain(viewLeafId);
    const out = path.join(app.work, "resumed.jsonl");
    await dialog.getByLabel(/Save to path/).fill(out);
    await dialog.getByRole("button", { name: "Save" }).click();
    await poll(() => page.getByTestId("notice").textContent()).toContain(`as ${out}`);
    const marker = JSON.parse(readFileSync(out, "utf8").trimEnd().split("\n").at(-1) as string) as {
      id: string;
      parentId: string;
    };
    expect(marker.parentId).toBe(viewLeafId);
    const notice = (await page.getByTestId("notice").textContent()) ?? "";
    expect(notice).toContain(`with a resume marker at the view leaf (${viewLeafId})`);
    expect(notice).not.toContain(marker.id);
  });

  it("wraps a long path inside the middle column, not past it into the LLM view", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    await page.goto(`${mode.url}#/session/${encodeURIComponent(session.id)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    const out = path.join(app.work, `${"exportedsessionfile".repeat(6)}.jsonl`);
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.getByLabel(/Save to path/).fill(out);
    await dialog.getByRole("button", { name: "Save" }).click();
    const notice = page.getByTestId("notice");
    await poll(() => notice.textContent()).toContain(out);
    const fits = await notice.evaluate((element) => {
      const column = element.closest(".center") ?? element.parentElement;
      const right = column?.getBoundingClientRect().right ?? 0;
      return element.scrollWidth <= element.clientWidth && element.getBoundingClientRect().right <= right;
    });
    expect(fits).toBe(true);
  });

  it("says it is exporting while the export runs, on the button that started it", async () => {
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    const session = sessions[0] as SessionSummary;
    await page.goto(`${mode.url}#/session/${encodeURIComponent(session.id)}`);
    await poll(() => page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(session.id);
    // The export's request is held on its way, as a long session's export takes a while.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const isExport = (url: URL) => decodeURIComponent(url.pathname) === "/api/session:export";
    await page.route(isExport, async (route) => {
      await held;
      await route.continue().catch(() => undefined); // unrouted meanwhile (a failed test)
    });
    try {
      await page.getByRole("button", { name: "Export…" }).click();
      const dialog = page.getByRole("dialog", { name: "Export session" });
      await dialog.getByLabel(/Save to path/).fill(path.join(app.work, "held.jsonl"));
      await dialog.getByRole("button", { name: "Save" }).click();
      await poll(() => dialog.getByRole("button", { name: "Exporting…" }).count()).toBe(1);
      release();
      await poll(() => page.getByTestId("notice").textContent()).toContain("held.jsonl");
    } finally {
      release();
      await page.unroute(isExport);
    }
  });
});
