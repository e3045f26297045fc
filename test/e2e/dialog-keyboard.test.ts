// Keyboard-only use in Chromium: Tab and Shift+Tab cycle through the modal export dialog's own
// controls and never reach the page it covers (so Escape still closes it and Enter never acts
// behind it); Tab from a compaction node does not drop the focus into its hover summary; closing
// a dialog, the compaction plan or the title field gives the focus back to its button; Tab
// through the canvas stops only on named controls, never on the minimap.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;

beforeAll(async () => {
  app = await startE2eApp("dialog-keyboard");
  ({ mode, page } = app);
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

/** Whether the focused element is inside the export dialog. */
const focusInDialog = async () =>
  (await page.locator('[role="dialog"][aria-labelledby="export-dialog-title"] :focus').count()) === 1;

describe("the export dialog with the keyboard only", () => {
  it("keeps Tab and Shift+Tab inside the dialog, so Escape closes it after any number of Tabs", async () => {
    await page.goto(mode.url);
    await page.getByTestId("tree-canvas").waitFor();
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    await dialog.waitFor();
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Tab");
      expect(await focusInDialog()).toBe(true);
    }
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Shift+Tab");
      expect(await focusInDialog()).toBe(true);
    }
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
  });

  it("keeps the focus on Save when the export is refused, so Escape still closes the dialog", async () => {
    await page.goto(mode.url);
    await page.getByTestId("tree-canvas").waitFor();
    await page.getByRole("button", { name: "Export…" }).click();
    const dialog = page.getByRole("dialog", { name: "Export session" });
    // A folder is refused ("… is a folder; give the file to write").
    await dialog.getByLabel(/Save to path/).fill(app.work);
    await dialog.getByRole("button", { name: "Save" }).click();
    await poll(() => dialog.getByRole("alert").textContent()).toContain("is a folder");
    expect(await focusInDialog()).toBe(true);
    await page.keyboard.press("Escape");
    await poll(() => dialog.count()).toBe(0);
  });
});

describe("the tree with the keyboard only", () => {
  it("Tab from a compaction node with a long summary moves on instead of losing the focus", async () => {
    const report = await apiCall<{ files: { sessionId?: string }[] }>(mode, "library:import", {
      path: fixturePath("real-before-compaction.v1.jsonl"),
    });
    const sessionId = report.files[0]?.sessionId ?? "";
    const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
    const compaction = tree.nodes.find(
      // The tree sends a long summary's first 2,000 characters (still a scrolling popup).
      (node) => node.type === "compaction" && (node.summaryChars ?? node.summary?.length ?? 0) > 3000,
    );
    if (!compaction) throw new Error("the fixture has no compaction with a long summary");
    // The compaction is the view leaf (focusable, not selected): its summary shows while it has the focus.
    await apiCall(mode, "navigation:navigate", { sessionId, targetId: compaction.id, summarize: false });
    await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}`);
    const node = page.locator(`.tree-node[data-entry-id="${compaction.id}"]`);
    await node.waitFor();
    await node.focus();
    await page.keyboard.press("Tab");
    expect(await page.locator(":focus").count()).toBe(1);
    expect(await page.locator(".summary-pop:focus").count()).toBe(0);
  });
});

describe("the canvas with the keyboard only", () => {
  it("Tab through the canvas reaches only named stops, never the minimap (which has no keyboard use)", async () => {
    await page.goto(mode.url);
    await page.getByTestId("tree-canvas").waitFor();
    const minimap = page.getByRole("img", { name: "Minimap of the session tree" });
    await minimap.waitFor();
    const cdp = await page.context().newCDPSession(page);
    /** The focused element: where it is and the name a screen reader announces for it. */
    const focused = async () => {
      const { result } = await cdp.send("Runtime.evaluate", { expression: "document.activeElement" });
      const { nodes } = await cdp.send("Accessibility.getPartialAXTree", {
        objectId: result.objectId,
        fetchRelatives: false,
      });
      const where = await page.locator(":focus").evaluate((element) => ({
        inCanvas: element.closest('[data-testid="tree-canvas"]') !== null,
        inMinimap: element.closest(".react-flow__minimap") !== null,
        tag: element.outerHTML.slice(0, 120),
      }));
      return { ...where, name: String(nodes[0]?.name?.value ?? "") };
    };
    await page.getByRole("tree", { name: "Session tree" }).focus();
    const stops: { tag: string; name: string; inMinimap: boolean }[] = [];
    for (let i = 0; i < 40; i++) {
      const stop = await focused();
      if (!stop.inCanvas) break;
      stops.push(stop);
      await page.keyboard.press("Tab");
    }
    // The canvas's own stops were all visited (Fit View is the last control before the minimap).
    expect(stops.map((stop) => stop.name)).toContain("Fit View");
    expect(stops.filter((stop) => stop.inMinimap)).toEqual([]);
    expect(stops.filter((stop) => stop.name.trim() === "")).toEqual([]);
    // Still named for screen readers, as a picture.
    expect(await minimap.count()).toBe(1);
    await cdp.detach();
  });
});

describe("the edit-as-new-branch box with the keyboard only", () => {
  it("opens with the focus in the box, and Escape closes it without saving, back on its button", async () => {
    const sessions = await apiCall<{ id: string }[]>(mode, "library:list", {});
    let target: { sessionId: string; userId: string } | undefined;
    for (const session of sessions) {
      const tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId: session.id });
      const user = tree.nodes.find((node) => node.kind === "user" && node.parentId !== null);
      if (user) target = { sessionId: session.id, userId: user.id };
      if (target) break;
    }
    if (!target) throw new Error("no session with a user message");
    const before = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId: target.sessionId });
    await page.goto(
      `${mode.url}#/session/${encodeURIComponent(target.sessionId)}?leaf=${encodeURIComponent(target.userId)}`,
    );
    const open = page.getByRole("button", { name: "Edit as new branch" });
    await open.click();
    const box = page.getByLabel("Edited message");
    await poll(() => page.locator('textarea[aria-label="Edited message"]:focus').count()).toBe(1);
    // The caret at the end of the text, where a change is usually typed (as in a chat's edit box).
    const caret = () =>
      box.evaluate((area: HTMLTextAreaElement) => [area.selectionStart, area.selectionEnd, area.value.length]);
    const [start, end, length] = await caret();
    expect([start, end]).toEqual([length, length]);
    await page.keyboard.type(" more");
    expect(await box.inputValue()).toMatch(/ more$/);
    await page.keyboard.press("Escape");
    await poll(() => box.count()).toBe(0);
    await poll(() => page.locator("button:focus").textContent()).toBe("Edit as new branch");
    const after = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId: target.sessionId });
    expect(after.nodes.length).toBe(before.nodes.length);
  });
});

describe("closing a dialog, the compaction plan or the title field with the keyboard", () => {
  /** The focused button's name (null when the focus is not on a button, e.g. on the page's body). */
  const focusedButton = () =>
    page
      .locator("button:focus")
      .evaluateAll((buttons) =>
        buttons.map((button) => button.getAttribute("aria-label") ?? button.textContent),
      )
      .then((names) => names[0] ?? null);

  it("gives the focus back to the button that opened it instead of dropping it on the page", async () => {
    // A session with something to compact (the tests before import one whose leaf is a
    // compaction, and it comes first in the list), on a fresh page.
    const sessions = await apiCall<SessionSummary[]>(mode, "library:list", {});
    let compactable: string | undefined;
    for (const session of sessions) {
      const plan = await apiCall<{ summarizeEntryIds: string[] }>(mode, "compaction:preview", {
        sessionId: session.id,
      }).catch(() => null);
      if (plan && plan.summarizeEntryIds.length > 0) {
        compactable = session.id;
        break;
      }
    }
    if (!compactable) throw new Error("no session of the library has anything to compact");
    await page.goto(`${mode.url}#/session/${encodeURIComponent(compactable)}`);
    await page.reload();
    await page.getByTestId("tree-canvas").waitFor();

    await page.getByRole("button", { name: "Export…" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Export session" }).waitFor();
    await page.keyboard.press("Escape");
    await poll(focusedButton).toBe("Export…");

    await page.getByRole("button", { name: "Rename" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.locator('input[aria-label="Session title"]:focus').count()).toBe(1);
    await page.keyboard.press("Escape");
    await poll(focusedButton).toBe("Rename");

    const remove = page.locator("button.session-delete").first();
    const removeName = await remove.getAttribute("aria-label");
    await remove.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("alertdialog").waitFor();
    await page.keyboard.press("Escape");
    await poll(focusedButton).toBe(removeName);

    await page.getByRole("button", { name: "Compact…" }).focus();
    await page.keyboard.press("Enter");
    await page.getByTestId("compaction-plan").waitFor();
    await page.getByRole("button", { name: "Close", exact: true }).focus();
    await page.keyboard.press("Enter");
    await poll(focusedButton).toBe("Compact…");

    await page.keyboard.press("Enter");
    await page.getByTestId("compaction-plan").waitFor();
    await page.getByRole("button", { name: "Run compaction" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByText(/Compaction \S+ added/).count()).toBe(1);
    await poll(focusedButton).toBe("Compact…");
  });
});

describe("deleting a session with the keyboard", () => {
  it("leaves the focus on the first session of the list, not on the page, once the open session is gone", async () => {
    await page.goto(mode.url);
    await page.getByTestId("tree-canvas").waitFor();
    const open = await page.getByTestId("tree-canvas").getAttribute("data-tree-session");
    const remove = page.locator(`.session-item:has(button.session[data-session-id="${open}"]) button.session-delete`);
    const removeName = (await remove.getAttribute("aria-label")) ?? "";
    await remove.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("alertdialog").waitFor();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("notice").textContent()).toContain("Deleted");
    await poll(() => page.getByRole("button", { name: removeName, exact: true }).count()).toBe(0);
    await poll(() => page.locator(".session-groups button.session:focus").count()).toBe(1);
  });
});
