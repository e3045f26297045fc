// An accessibility audit with axe-core in Chromium through browser mode: the library with a
// session open (tree canvas, LLM view, composer) in light and dark, the settings panel, the
// keyboard shortcuts dialog, the export dialog, the compaction plan and the edit-message box. Any
// serious or critical violation fails the test, except the rule + element pairs in IGNORED, each
// a false positive for this app with the reason.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** A rule that is a false positive on the elements `selector` matches (and only there). */
interface Ignored {
  rule: string;
  selector: string;
  why: string;
}

const IGNORED: Ignored[] = [
  {
    rule: "aria-required-children",
    selector: ".tree-flow",
    why: "React Flow hard-codes role=application on its wrapper, which sits between our role=tree and its treeitems; no prop changes it",
  },
  {
    rule: "aria-required-parent",
    selector: ".tree-node",
    why: "the same React Flow wrapper (role=application) between the treeitems and the tree",
  },
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

/** Runs axe on the whole page: the serious and critical findings not in IGNORED, one line each. */
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
      if (violation.impact !== "serious" && violation.impact !== "critical") continue;
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

beforeAll(async () => {
  app = await startE2eApp("a11y");
  ({ page } = app);
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("no serious or critical accessibility violations", () => {
  for (const scheme of ["light", "dark"] as const) {
    it(`the library with a session open (tree, LLM view, composer), ${scheme}`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      try {
        await openSessionShowingAll(page, app.mode, sessionId);
        expect(await audit()).toEqual([]);
      } finally {
        await page.emulateMedia({ colorScheme: "light" });
      }
    });
  }

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

  it("the keyboard shortcuts dialog", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Keyboard shortcuts" }).click();
    await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    try {
      expect(await audit()).toEqual([]);
    } finally {
      await page.keyboard.press("Escape");
    }
  });

  it("the export dialog", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Export…" }).click();
    await page.getByRole("dialog", { name: "Export session" }).waitFor();
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
    expect(await audit()).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      expect(await audit()).toEqual([]);
    } finally {
      await page.emulateMedia({ colorScheme: "light" });
    }
  });
});
