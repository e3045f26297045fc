// Two tabs on one browser-mode server (Debian's Chromium, bundled demo data, a slow local fake
// OpenAI-compatible server): a compaction started in page A shows as running in page B (the
// same status, streamed text and Cancel), page B cancels it and both pages clear; page A reloaded
// while one runs still shows it with the summary streamed so far and can cancel it; one that
// finishes shows its result in page B. (Chat replies: chat-across-tabs.test.ts.)
// Screenshots: test-artifacts/jobs-across-tabs/.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { twoTabsSuite } from "../helpers/two-tabs-suite.ts";

const shots = path.join(artifactsDir(), "jobs-across-tabs");
const COMPACTION_PROMPT = "about to be removed from the assistant's working context";
/** The demo session's cut splits a turn: its prefix is summarized by a second call in parallel. */
const TURN_PREFIX_PROMPT = "only the first part of a single turn";
const SUMMARY_TEXT = "## Goal\nE2E-JOBS-SUMMARY: keep refactoring the parser.";
/** The two slow summaries' first chunks, shown together as the summary will read. */
const STREAMED = "## Goal\n\n---\n\n**Turn Context (split turn):**\n\n## Goal";

const suite = twoTabsSuite("jobs", shots, "compaction:abort", { defaultText: SUMMARY_TEXT });
const { api, shot, treeIds } = suite;
/** The running compaction's status line in the compaction panel (absent when none runs). */
const runningLine = (page: Page) => page.locator(".compaction-panel .running");
const runningText = (page: Page) => textOf(runningLine(page));
/** The outcome line of the last compaction or navigation. */
const outcome = (page: Page) => textOf(page.getByTestId("job-message"));

const asks = (prompt: string) => (body: Record<string, unknown>) => JSON.stringify(body).includes(prompt);

/** The summary requests never finish by themselves: their first chunk comes, then a long pause. */
function enqueueSlowSummary(): void {
  for (const prompt of [COMPACTION_PROMPT, TURN_PREFIX_PROMPT]) {
    suite.fake.enqueue({
      type: "reply",
      chunks: ["## Goal", "\nToo late."],
      chunkDelayMs: 60_000,
      match: asks(prompt),
    });
  }
}

async function startCompaction(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Compact…" }).click();
  await page.getByTestId("compaction-plan").waitFor();
  await page.getByRole("button", { name: "Run compaction" }).click();
  await poll(() => runningText(page)).toContain("Compacting…");
}

describe("a compaction seen from two tabs", () => {
  it("started in page A, page B shows it running with its text and cancels it; both pages clear", async () => {
    const { pageA, pageB, fake } = suite;
    const before = await treeIds();
    const requestsBefore = fake.requests.length;
    enqueueSlowSummary();
    await startCompaction(pageA);

    // Page B never asked for it: it shows the same status, the text streamed so far and Cancel.
    await poll(() => runningText(pageB)).toContain("Compacting… Press Escape to cancel.");
    await poll(() => textOf(runningLine(pageB).locator(".stream"))).toBe(STREAMED);
    expect(await pageB.getByRole("button", { name: "Compact…" }).getAttribute("aria-disabled")).toBe("true");
    expect(await pageB.getByRole("button", { name: "Cancel (Esc)" }).isVisible()).toBe(true);
    await shot(pageB, "01-page-b-sees-it-running");

    await pageB.keyboard.press("Escape");
    for (const page of [pageA, pageB]) {
      await poll(() => runningText(page)).toBeNull();
      await poll(() => outcome(page)).toBe("Compaction cancelled; nothing changed.");
      expect(await page.getByRole("button", { name: "Compact…" }).getAttribute("aria-disabled")).toBe("false");
    }
    await poll(() => fake.requests[requestsBefore]?.clientClosed).toBe(true);
    await shot(pageA, "02-page-a-after-page-b-cancelled");
    expect(await treeIds()).toEqual(before);
    expect(await api("job:list", {})).toEqual([]);
  });

  it("page A reloaded while it runs still shows it, and cancels it from there; page B clears too", async () => {
    const { pageA, pageB, fake, sessionId } = suite;
    const before = await treeIds();
    const requestsBefore = fake.requests.length;
    enqueueSlowSummary();
    await startCompaction(pageA);
    await poll(() => runningText(pageB)).toContain("Compacting…");

    await pageA.reload();
    await pageA.getByTestId("tree-canvas").waitFor();
    await poll(() => pageA.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
    await poll(() => runningText(pageA)).toContain("Compacting… Press Escape to cancel.");
    // The summary streamed before the reload (job:list), although its next chunk is far off.
    await poll(() => textOf(runningLine(pageA).locator(".stream"))).toBe(STREAMED);
    expect(await pageA.getByRole("button", { name: "Compact…" }).getAttribute("aria-disabled")).toBe("true");
    await shot(pageA, "03-page-a-reloaded-still-running");

    const t0 = Date.now();
    await pageA.getByRole("button", { name: "Cancel (Esc)" }).click();
    for (const page of [pageA, pageB]) {
      try {
        await poll(() => runningText(page)).toBeNull();
      } catch (error) {
        const state = { page: page === pageA ? "A" : "B", msAfterCancel: Date.now() - t0, running: await api("job:list", {}), a: await runningText(pageA), b: await runningText(pageB), outA: await outcome(pageA) };
        throw new Error(`job still shown after Cancel: ${JSON.stringify(state)}`, { cause: error });
      }
      await poll(() => outcome(page)).toBe("Compaction cancelled; nothing changed.");
    }
    await poll(() => fake.requests[requestsBefore]?.clientClosed).toBe(true);
    expect(await treeIds()).toEqual(before);
  });

  it("one that finishes in page A shows its compaction in page B, without a reload", async () => {
    const { pageA, pageB, fake, sessionId } = suite;
    fake.enqueue({
      type: "reply",
      text: SUMMARY_TEXT,
      headersDelayMs: 1500,
      match: asks(COMPACTION_PROMPT),
    });
    await startCompaction(pageA);
    await poll(() => runningText(pageB)).toContain("Compacting…");
    await poll(() => outcome(pageB)).toMatch(
      /^Compaction \S+ added; the LLM view now starts with its summary\.$/,
    );
    expect(await runningText(pageB)).toBeNull();
    const tree = await api<SessionTreeDto>("session:tree", { sessionId });
    const compaction = tree.nodes.find((node) => node.id === tree.viewLeafId);
    expect(compaction?.type).toBe("compaction");
    expect(await outcome(pageB)).toContain(`Compaction ${compaction?.id} added`);
    // Page B's canvas and LLM view moved to the new compaction.
    await poll(() => pageB.getByTestId("llm-view").getAttribute("data-leaf-id")).toBe(compaction?.id);
    const first = pageB.getByTestId("llm-view").locator("[data-role]").first();
    await poll(() => textOf(first)).toContain("E2E-JOBS-SUMMARY");
    const node = pageB.locator(`.tree-node[data-entry-id="${compaction?.id}"]`);
    await poll(async () => ((await node.count()) === 0 ? null : await node.getAttribute("data-kind"))).toBe(
      "compaction",
    );
    await shot(pageB, "04-page-b-shows-the-result");
  });
});
