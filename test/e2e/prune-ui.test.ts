// Pruning old tool output from the app, in Debian's Chromium through browser mode, on a session
// made here with five 15,000-token bash outputs (SPEC §7.1's first worked example): Prune… at an
// entry selected four outputs in says plainly that there is nothing to prune (14,991 tokens, under
// the 20,000 minimum) and offers no button to apply; at the view leaf it shows 2 outputs and
// ~29,982 tokens, prunes them from the keyboard, and the tree's `pruned` badges and the LLM view's
// notices show; Restore pruned outputs puts the originals back. While a compaction (another
// window's, on a slow fake model) runs on the session, Prune… and the plan's button are
// unavailable and say why, and pressing them prunes nothing. Screenshots: test-artifacts/prune-ui/.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { holdRequests } from "../helpers/held-requests.ts";

const shots = path.join(artifactsDir(), "prune-ui");

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

/** Tool output n: 750 lines of 80 characters (60,000: 15,000 tokens), each starting ORIGINAL-r<n>. */
const output = (n: number) => `${`ORIGINAL-r${n} ${"x".repeat(67)}\n`.repeat(750)}`;

/** u1, then five turns a<n> (a bash call) → r<n> (its 15,000-token output), then a6's answer. */
function sessionLines(): string[] {
  const t0 = Date.parse("2026-05-01T09:00:00.000Z");
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "prune-ui-1",
      timestamp: at(0),
      cwd: "/home/dev/prune",
    }),
  ];
  const message = (id: string, parentId: string | null, s: number, body: object) =>
    lines.push(
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: at(s),
        message: { ...body, timestamp: t0 + s * 1000 },
      }),
    );
  message("u1", null, 1, { role: "user", content: [{ type: "text", text: "Look at the logs." }] });
  let parent = "u1";
  for (let n = 1; n <= 5; n++) {
    const call = { type: "toolCall", id: `c${n}`, name: "bash", arguments: { command: `cat log${n}` } };
    message(`a${n}`, parent, 2 * n, { role: "assistant", content: [call], stopReason: "toolUse" });
    const result = { role: "toolResult", toolCallId: `c${n}`, toolName: "bash", isError: false };
    message(`r${n}`, `a${n}`, 2 * n + 1, { ...result, content: [{ type: "text", text: output(n) }] });
    parent = `r${n}`;
  }
  message("a6", parent, 20, {
    role: "assistant",
    content: [{ type: "text", text: "The logs are fine." }],
    stopReason: "stop",
  });
  return lines;
}

const planText = () => textOf(page.getByTestId("prune-plan-text"));
const outcome = () => textOf(page.getByTestId("job-message"));
const pruneButton = () => page.getByRole("button", { name: "Prune…" });
/** The focused element's own text, or "body" when nothing has the focus. */
const focused = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active === null || active === document.body ? "body" : (active.textContent ?? "").trim();
  });
/** The entries whose tree node carries the `pruned` badge. */
const badged = () =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll(".tree-node"))
      .filter((node) =>
        Array.from(node.querySelectorAll(".tree-badge")).some((badge) => badge.textContent === "pruned"),
      )
      .map((node) => node.getAttribute("data-entry-id")),
  );
/** The start of what the LLM view shows for entry `id`. */
const shown = (id: string) =>
  page.evaluate(
    (id) =>
      document.querySelector(`[data-testid=llm-view] [data-entry-id="${id}"]`)?.textContent?.slice(0, 400) ??
      null,
    id,
  );

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eChatApp("prune-ui", {
    key: { env: "CANOPY_E2E_PRUNE_UI_KEY", value: "sk-e2e-prune-ui" },
    model: { id: "fake-prune-ui", contextWindow: 128000 },
  });
  ({ page, fake } = app);
  const file = path.join(app.work, "logs.jsonl");
  writeFileSync(file, `${sessionLines().join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("pruning old tool output from the app", () => {
  it("says plainly when there is nothing to prune, and offers nothing to apply", async () => {
    // Four outputs on the path to r4: only r1 is old enough, and it saves under the minimum.
    await openSessionShowingAll(page, app.mode, sessionId, "r4");
    await pruneButton().click();
    await poll(planText).toBe(
      "At the selected entry r4: Nothing to prune: the 1 old tool output it could replace would save only ~14,991 tokens, under the 20,000-token minimum.",
    );
    // Another entry selected: the plan stays the one for r4, and says so.
    await page.locator('.tree-node[data-entry-id="r3"]').click();
    await poll(planText).toMatch(/^At entry r4: Nothing to prune: /);
    const buttons = await page.getByTestId("prune-plan").getByRole("button").allTextContents();
    expect(buttons).toEqual(["Close"]);
    await page.screenshot({ path: path.join(shots, "01-nothing-to-prune.png") });
    // Escape closes the plan; the focus goes back to Prune….
    await page.getByTestId("prune-plan").getByRole("button", { name: "Close" }).focus();
    await page.keyboard.press("Escape");
    await poll(() => page.getByTestId("prune-plan").count()).toBe(0);
    await poll(focused).toBe("Prune…");
    expect(await badged()).toEqual([]);
  });

  it("Escape on Prune… or Compact… (where the focus stays once the plan opens) closes that plan", async () => {
    await openSessionShowingAll(page, app.mode, sessionId, "r4");
    await pruneButton().focus();
    await page.keyboard.press("Enter");
    await poll(() => page.getByTestId("prune-plan").count()).toBe(1);
    expect(await focused()).toBe("Prune…");
    await page.keyboard.press("Escape");
    await poll(() => page.getByTestId("prune-plan").count()).toBe(0);
    expect(await focused()).toBe("Prune…");

    const compact = page.getByRole("button", { name: "Compact…" });
    const compactionPlan = page.getByTestId("compaction-plan");
    await compact.focus();
    await page.keyboard.press("Enter");
    await poll(() => compactionPlan.count()).toBe(1);
    expect(await focused()).toBe("Compact…");
    await page.keyboard.press("Escape");
    await poll(() => compactionPlan.count()).toBe(0);
    expect(await focused()).toBe("Compact…");
  });

  it("shows the plan at the view leaf, prunes from the keyboard, and restores the originals", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    expect(await shown("r1")).toContain("ORIGINAL-r1");
    await pruneButton().focus();
    await page.keyboard.press("Enter");
    await poll(planText).toBe(
      "At the view leaf a6: Replaces 2 old tool outputs (2 bash) with a one-line notice, saving ~29,982 tokens (estimated). The originals stay in the library.",
    );
    await page.screenshot({ path: path.join(shots, "02-plan.png") });
    await page.keyboard.press("Tab");
    await poll(focused).toBe("Prune 2 outputs");
    await page.keyboard.press("Enter");

    await poll(outcome).toBe(
      "Pruned 2 tool outputs, ~29,982 tokens saved; the LLM view shows their notices.",
    );
    await poll(badged).toEqual(["r1", "r2"]);
    await poll(() => shown("r1")).toContain("[Output truncated - 15000 tokens]");
    expect(await shown("r2")).toContain("[Output truncated - 15000 tokens]");
    expect(await shown("r3")).toContain("ORIGINAL-r3");
    // Made again: nothing is left to prune there, and the originals can come back (it has the focus).
    await poll(planText).toBe(
      "At the view leaf a6: Nothing more to prune: 2 old tool outputs on this path are pruned already (Restore pruned outputs puts them back); the newest 40,000 tokens of tool output, and skill and read outputs, are kept.",
    );
    await poll(focused).toBe("Restore pruned outputs");
    await page.screenshot({ path: path.join(shots, "03-pruned.png") });
    const pruned = await apiCall<ContextView>(app.mode, "context:get", { sessionId });
    expect(JSON.stringify(pruned)).not.toContain("ORIGINAL-r1");

    await page.keyboard.press("Enter");
    await poll(outcome).toBe("Restored 2 pruned tool outputs; the LLM view shows them as they were.");
    await poll(badged).toEqual([]);
    await poll(() => shown("r1")).toContain("ORIGINAL-r1");
    expect(await shown("r2")).toContain("ORIGINAL-r2");
    await poll(() => page.getByTestId("prune-plan").getByRole("button").allTextContents()).toEqual([
      "Prune 2 outputs",
      "Close",
    ]);
    // Restoring took its own button: the focus goes on to what the plan offers now, as after pruning.
    await poll(focused).toBe("Prune 2 outputs");
    await page.screenshot({ path: path.join(shots, "04-restored.png") });
    const restored = await apiCall<ContextView>(app.mode, "context:get", { sessionId });
    expect(JSON.stringify(restored)).toContain("ORIGINAL-r1");
  });

  it("the plan's Close, held while pruning or restoring, says why (its tooltip, and a click's line)", async () => {
    // Before, it was greyed (aria-disabled) with no tooltip, and a click did nothing without a word.
    await openSessionShowingAll(page, app.mode, sessionId);
    await pruneButton().click();
    await poll(planText).toContain("Replaces 2 old tool outputs");
    const plan = page.getByTestId("prune-plan");
    const close = plan.getByRole("button", { name: "Close", exact: true });
    // The plan may be open from the case before: Prune… asks it again (Close held meanwhile too).
    await poll(() => close.getAttribute("aria-disabled")).toBe("false");
    expect(await close.getAttribute("title")).toBeNull();
    for (const [endpoint, press, why, done] of [
      [
        "pruning:apply",
        "Prune 2 outputs",
        "Pruning is being applied; Close is available again once it is done.",
        "Pruned 2 tool outputs",
      ],
      [
        "pruning:restore",
        "Restore pruned outputs",
        "The pruned outputs are being restored; Close is available again once it is done.",
        "Restored 2 pruned tool outputs",
      ],
    ] as const) {
      const release = await holdRequests(page, endpoint);
      try {
        await plan.getByRole("button", { name: press, exact: true }).click();
        await poll(() => close.getAttribute("aria-disabled")).toBe("true");
        expect(await close.getAttribute("title")).toBe(why);
        await close.click({ force: true }); // aria-disabled: a real click still lands
        await poll(outcome).toBe(
          `The pruning plan's Close did nothing: ${why.charAt(0).toLowerCase()}${why.slice(1)}`,
        );
        expect(await plan.count()).toBe(1);
      } finally {
        await release();
      }
      await poll(outcome).toContain(done);
      await poll(() => close.getAttribute("aria-disabled")).toBe("false");
      expect(await close.getAttribute("title")).toBeNull();
    }
    await close.click();
    await poll(() => plan.count()).toBe(0);
  });

  it("is unavailable, with the reason, while a compaction runs on the session", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await pruneButton().click();
    await poll(planText).toContain("Replaces 2 old tool outputs");
    const apply = page.getByTestId("prune-plan").getByRole("button", { name: "Prune 2 outputs" });
    // Another window compacts the session; its summary never comes before Escape cancels it.
    const slow = { type: "reply" as const, chunks: ["## Goal", "\nToo late."], chunkDelayMs: 60_000 };
    fake.enqueue(slow, slow);
    const elsewhere = apiCall(app.mode, "compaction:run", { sessionId }).catch(() => undefined);
    const reason = "A compaction is running on this session; wait for it or cancel it first (Escape).";
    await poll(() => pruneButton().getAttribute("aria-disabled")).toBe("true");
    expect(await pruneButton().getAttribute("title")).toBe(reason);
    expect(await apply.getAttribute("aria-disabled")).toBe("true");
    expect(await textOf(page.getByTestId("prune-plan").locator(".note"))).toBe(reason);
    await page.screenshot({ path: path.join(shots, "05-busy.png") });
    // Pressed (Playwright's click waits for an enabled button: Enter), it prunes nothing.
    await apply.focus();
    await page.keyboard.press("Enter");
    expect(await apiCall<{ willPrune: boolean }>(app.mode, "pruning:preview", { sessionId })).toMatchObject({
      willPrune: true,
    });
    expect(await badged()).toEqual([]);
    // Escape (from the plan's own buttons too) cancels the compaction, as anywhere; then it can run.
    await page.keyboard.press("Escape");
    await elsewhere;
    await poll(() => apply.getAttribute("aria-disabled")).toBe("false");
    expect(await pruneButton().getAttribute("aria-disabled")).toBe("false");
    expect(await page.getByTestId("prune-plan").count()).toBe(1);
    const plan = await apiCall<{ willPrune: boolean }>(app.mode, "pruning:preview", { sessionId });
    expect(plan.willPrune).toBe(true);
  });

  it("leaves the title readable in the desktop app's 1000 px window: Compact… and Prune… wrap below instead", async () => {
    await page.setViewportSize({ width: 1000, height: 700 });
    try {
      await openSessionShowingAll(page, app.mode, sessionId);
      const box = async (name: string) => (await page.getByRole("button", { name }).boundingBox())?.y ?? -1;
      // The title's room beside Rename and Export… (54 px, "Loo…", before Prune… could wrap; ~130 px
      // while Compact… stayed beside it).
      const heading = await page.locator(".session-heading").evaluate((element) => element.clientWidth);
      expect(heading).toBeGreaterThanOrEqual(200);
      expect(await box("Compact…")).toBeGreaterThan(await box("Rename"));
      expect(await box("Prune…")).toBe(await box("Compact…"));
      await page.screenshot({ path: path.join(shots, "06-narrow.png") });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
