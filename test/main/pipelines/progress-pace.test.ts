// A long summary streamed in many small chunks (real HTTP from the fake model on 127.0.0.1): its
// job:progressed events come at a pace, not one per chunk — each carries the whole text so far,
// so one per chunk was O(n²) bytes for every window (50 MB for a 40,000-character summary) — yet
// a window still sees the first chunk at once, the text only ever growing, and the whole text.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import { closeServedHarness, type Harness, startServedHarness } from "./harness.ts";
import { plainSession, SPLIT_SEPARATOR, splitSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;
let sessionId: string;
let texts: string[];

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
  await h.configureFakeModel(server, { stream: true });
  sessionId = await h.importSession(plainSession());
  texts = [];
  h.api.ctx.events.subscribe((name, payload) => {
    if (name === "job:progressed" && "text" in payload && typeof payload.text === "string")
      texts.push(payload.text);
  });
});
afterEach(() => closeServedHarness({ server, h }));

/** 2,500 chunks of 16 characters: a 40,000-character summary (about 10,000 tokens). */
const chunks = Array.from({ length: 2500 }, (_, i) => `tok${i} `.padEnd(16, "."));
const summary = chunks.join("");

/** The summary's own events (a compaction's short summary streams through the same job after it). */
function expectPaced(): void {
  const bytes = texts.reduce((sum, text) => sum + text.length, 0);
  const own = texts.filter((text) => text.startsWith(chunks[0] ?? ""));
  expect(texts[0]).toBe(chunks[0]);
  expect(own.at(-1)).toBe(summary);
  for (const [index, text] of own.entries()) {
    expect(summary.startsWith(text)).toBe(true);
    if (index > 0) expect(text.length).toBeGreaterThan(own[index - 1]?.length ?? 0);
  }
  // One event per chunk sent 2,500 events and 50 MB; paced, a few per second of streaming.
  expect(texts.length).toBeLessThan(100);
  expect(bytes).toBeLessThan(2_000_000);
}

describe("a long summary streamed in small chunks", () => {
  it("compaction: paced progress events with the first chunk, a growing text and the whole text", async () => {
    server.enqueue({ type: "reply", chunks }, { type: "reply", text: "Short summary of the recent turn." });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.summary.startsWith(summary)).toBe(true);
    expectPaced();
    // The whole history text went out before the short summary, which then streamed to its end.
    expect(texts.indexOf(summary)).toBe(texts.findIndex((text) => !text.startsWith(chunks[0] ?? "")) - 1);
    expect(texts.at(-1)).toBe("Short summary of the recent turn.");
  });

  it("compaction: a history that ends within the interval still goes out whole before the short summary", async () => {
    const history = ["## Goal", "\nFix", " the parser."];
    server.enqueue({ type: "reply", chunks: history }, { type: "reply", chunks: ["Short", " summary."] });
    await h.call("compaction:run", { sessionId });
    const short = texts.findIndex((text) => text.startsWith("Short"));
    expect(texts[0]).toBe("## Goal");
    expect(texts[short - 1]).toBe("## Goal\nFix the parser.");
    expect(texts.at(-1)).toBe("Short summary.");
  });

  it("compaction of a split turn: the history and the turn prefix streaming side by side show together, as the summary will read", async () => {
    const split = await h.importSession(splitSession({ id: "0195f0c2-1111-7000-8000-0000000005f1" }), "split");
    // Both stream at once, their chunks interleaved: each window used to show whichever had
    // sent last, the text jumping between the two summaries every chunk.
    const history = ["## Goal", "\nFix", " the off-by-one", " in src/c.ts."];
    const prefix = ["## Original Request", "\nRead src/c.ts", " and fix", " the bug."];
    server.enqueue(
      // Which request is which: their output limits (0.8 and 0.5 × the reserve).
      { type: "reply", chunks: history, chunkDelayMs: 150, match: (body) => body.max_tokens === 13107 },
      { type: "reply", chunks: prefix, chunkDelayMs: 170, match: (body) => body.max_tokens === 8192 },
      { type: "reply", chunks: ["Short", " summary."] },
    );
    const result = await h.call("compaction:run", { sessionId: split });
    const whole = `${history.join("")}${SPLIT_SEPARATOR}${prefix.join("")}`;
    expect(result.summary.startsWith(whole)).toBe(true);
    const short = texts.findIndex((text) => text.startsWith("Short"));
    const summaryTexts = texts.slice(0, short);
    // Never the turn prefix alone in place of the history that was on screen.
    const historyShown = summaryTexts.findIndex((text) => text.startsWith("## Goal"));
    expect(historyShown).toBeGreaterThanOrEqual(0);
    for (const text of summaryTexts.slice(historyShown)) expect(text.startsWith("## Goal")).toBe(true);
    expect(summaryTexts.at(-1)).toBe(whole);
    expect(texts.at(-1)).toBe("Short summary.");
  });

  it("branch summary: paced progress events with the first chunk, a growing text and the whole text", async () => {
    server.enqueue({ type: "reply", chunks });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a2", summarize: true });
    expect(result.summaryEntryId).not.toBeNull();
    expectPaced();
  });
});
