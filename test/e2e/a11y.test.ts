// An accessibility audit with axe-core in Chromium through browser mode: the library list, every
// demo session open (tree canvas, LLM view, composer) in light and dark, the settings panel, an
// import's report, and each dialog (keyboard shortcuts, export, compaction and pruning plans, branch summary,
// delete confirmation, the edit-message box). Any violation fails the test, whatever its impact
// (minor and moderate too), except the rule + element pairs in IGNORED, each a false positive for
// this app with the reason. Also what a screen reader is told on the canvas (Chromium's own
// accessibility tree): treeitems with their level, the focused one selected.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { openMoveDialog } from "../helpers/job-page.ts";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** A rule that is a false positive on the elements `selector` matches (and only there). */
interface Ignored {
  rule: string;
  selector: string;
  why: string;
}

const IGNORED: Ignored[] = [
  {
    rule: "label-content-name-mismatch",
    selector: ".tree-node",
    why: 'axe joins the node\'s flex-laid-out spans with no space ("User~106 tok"), so no name can hold that text',
  },
  {
    rule: "scrollable-region-focusable",
    selector: "pre.tool-output",
    why: "Chromium (Electron, browser mode) puts a scroller with no focusable content in the Tab order itself; the test checks it",
  },
];

let app: E2eApp;
let page: Page;
let sessionId: string;

/** Runs axe on the whole page: the findings (any impact) not in IGNORED, one line each. */
async function audit(): Promise<string[]> {
  // Through the debugger protocol: the app's Content Security Policy blocks an inline <script>.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (ignored) => {
    interface AxeResults {
      violations: {
        id: string;
        impact?: string | null;
        help: string;
        nodes: { target: string[]; element?: Element }[];
      }[];
    }
    const axe = (
      window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }
    ).axe;
    // elementRef: each finding holds its element, for IGNORED's selectors (axe's own CSS paths
    // did not always lead back to it).
    const results = await axe.run(document, { resultTypes: ["violations"], elementRef: true });
    const lines: string[] = [];
    for (const violation of results.violations) {
      for (const node of violation.nodes) {
        const element = node.element;
        const skip = ignored.some((i) => i.rule === violation.id && element?.matches(i.selector) === true);
        if (!skip)
          lines.push(`${violation.id} (${violation.impact}): ${node.target.join(" ")} — ${violation.help}`);
      }
    }
    return lines;
  }, IGNORED);
}

/** `audit()` in light and then in dark (the page left in light), each finding naming its scheme. */
async function auditInBothSchemes(): Promise<string[]> {
  const found: string[] = [];
  try {
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const line of await audit()) found.push(`(${scheme}) ${line}`);
    }
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
  }
  return found;
}

/** A dialog a button of the open session opens, audited and closed again with Escape. */
interface DialogScreen {
  title: string;
  button: string | RegExp;
  dialog: { role: "dialog" | "alertdialog"; name: string };
}

const DIALOGS: DialogScreen[] = [
  {
    title: "the keyboard shortcuts dialog",
    button: "Keyboard shortcuts",
    dialog: { role: "dialog", name: "Keyboard shortcuts" },
  },
  { title: "the export dialog", button: "Export…", dialog: { role: "dialog", name: "Export session" } },
  {
    title: "the delete confirmation",
    button: /^Delete “Refactor the parser/,
    dialog: { role: "alertdialog", name: "Delete this session from the library?" },
  },
];

beforeAll(async () => {
  app = await startE2eApp("a11y");
  ({ page } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("no accessibility violations, whatever their impact", () => {
  // First: a fresh library has no session open yet.
  it("the library list, light and dark", async () => {
    await openLibrary(app);
    await page.locator(".session-groups button.session").first().waitFor();
    expect(await auditInBothSchemes()).toEqual([]);
  });

  // Every demo session: they differ in what they draw (compactions, branch summaries, <summary> tags).
  it("each demo session open (tree, LLM view, composer), light and dark", async () => {
    const sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
    expect(sessions.length).toBeGreaterThan(2);
    const found: string[] = [];
    for (const session of sessions) {
      await openSessionShowingAll(page, app.mode, session.id);
      for (const line of await auditInBothSchemes()) found.push(`${session.title} ${line}`);
    }
    expect(found).toEqual([]);
  }, 120_000);

  it("the tool outputs that scroll take the keyboard focus (why scrollable-region-focusable is ignored)", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    const focusable = await page.evaluate(() => {
      const scrollers = [...document.querySelectorAll<HTMLElement>("pre.tool-output")].filter(
        (pre) => pre.scrollHeight > pre.clientHeight,
      );
      return scrollers.map((pre) => {
        pre.focus();
        return document.activeElement === pre;
      });
    });
    expect(focusable.length).toBeGreaterThan(0);
    expect(focusable.every(Boolean)).toBe(true);
  });

  it.each(DIALOGS)("$title", async ({ button, dialog }) => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: button }).click();
    await page.getByRole(dialog.role, { name: dialog.name }).waitFor();
    try {
      expect(await audit()).toEqual([]);
    } finally {
      await page.keyboard.press("Escape");
    }
  });

  it("the compaction plan", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Compact…" }).click();
    await page.getByTestId("compaction-plan").waitFor();
    expect(await audit()).toEqual([]);
  });

  it("the pruning plan", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Prune…" }).click();
    await page.getByTestId("prune-plan").waitFor();
    expect(await audit()).toEqual([]);
  });

  it("the edit-message box", async () => {
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const user = tree.nodes.find((node) => node.kind === "user" && node.parentId !== null);
    if (!user) throw new Error("no user message in the demo session");
    await openSessionShowingAll(page, app.mode, sessionId, user.id);
    await page.getByRole("button", { name: "Edit as new branch" }).click();
    await page.getByLabel("Edited message").waitFor();
    expect(await audit()).toEqual([]);
  });

  it("the settings panel, light and dark", async () => {
    await page.goto(app.mode.url);
    await page.getByTestId("llm-view").waitFor();
    await page.getByText("Settings and prompts").click();
    await page.getByTestId("settings-form").waitFor();
    expect(await auditInBothSchemes()).toEqual([]);
  });
  it("an import's report", async () => {
    await openLibrary(app);
    await page.locator("#import-path").fill(fixturePath("tree-00.jsonl"));
    await page.locator("#import-path").press("Enter");
    await poll(() => page.locator(".import-report").textContent()).toMatch(/imported|unchanged/);
    expect(await audit()).toEqual([]);
  });

  it("the branch summary dialog", async () => {
    await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: true });
    try {
      const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
      const other = tree.nodes.find((node) => node.kind === "assistant" && node.id !== tree.viewLeafId);
      if (!other) throw new Error("no other entry in the demo session");
      await openSessionShowingAll(page, app.mode, sessionId, other.id);
      const dialog = await openMoveDialog(page, other.id);
      await poll(() => dialog.getByTestId("branch-summary-count").textContent()).not.toContain("Working out");
      expect(await audit()).toEqual([]);
      await page.keyboard.press("Escape");
    } finally {
      await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: false });
    }
  });
});

describe("what a screen reader is told on the session canvas", () => {
  interface AxNode {
    nodeId: string;
    childIds?: string[];
    role?: { value: string };
    name?: { value: string };
    ignored?: boolean;
    properties?: { name: string; value: { value: unknown } }[];
  }
  const property = (node: AxNode, name: string) => node.properties?.find((p) => p.name === name)?.value.value;

  it("the entries are treeitems of the tree, the focused one selected, each with its level", async () => {
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    const leaf = tree.viewLeafId ?? "";
    await openSessionShowingAll(page, app.mode, sessionId, leaf);
    await page.locator(`.tree-node[data-entry-id="${leaf}"]`).focus();
    await page.keyboard.press("ArrowUp");
    const parent = tree.nodes.find((node) => node.id === leaf)?.parentId ?? "";
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-entry-id"))).toBe(parent);

    // Chromium's own accessibility tree, as a screen reader reads it.
    const cdp = await page.context().newCDPSession(page);
    try {
      const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: AxNode[] };
      const shown = nodes.filter((node) => !node.ignored);
      // The page itself is focused too: the element with the focus is the other one.
      const focused = shown.find(
        (node) => property(node, "focused") === true && node.role?.value !== "RootWebArea",
      );
      expect(focused?.role?.value).toBe("treeitem");
      expect(property(focused as AxNode, "selected")).toBe(true);
      expect(Number(property(focused as AxNode, "level"))).toBeGreaterThan(1);
      expect(focused?.name?.value).toMatch(/\S/);
      // Nothing of React Flow's between the tree and its items, and no edges read out.
      expect(shown.some((node) => node.role?.value === "application")).toBe(false);
      expect(shown.some((node) => /^Edge from/.test(node.name?.value ?? ""))).toBe(false);
      // What the tree holds, as read out: its items, and no unnamed picture (an edge's <svg>).
      const byId = new Map(nodes.map((node) => [node.nodeId, node]));
      const treeNode = shown.find((node) => node.role?.value === "tree");
      const inside: AxNode[] = [];
      const stack = [...(treeNode?.childIds ?? [])];
      while (stack.length > 0) {
        const node = byId.get(stack.pop() as string);
        if (!node) continue;
        if (!node.ignored) inside.push(node);
        stack.push(...(node.childIds ?? []));
      }
      expect(inside.filter((node) => node.role?.value === "treeitem").length).toBeGreaterThan(3);
      expect(inside.filter((node) => node.role?.value === "image" && !node.name?.value).length).toBe(0);
    } finally {
      await cdp.detach();
    }
  });
});
