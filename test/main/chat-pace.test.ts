// A long chat reply streamed in many small chunks (real HTTP from the fake model on 127.0.0.1):
// its chat:progressed events come at a pace, not one per chunk — each carries the whole reply so
// far, so one per chunk sent 2,500 events and 50 MB to every window for a 40,000-character reply —
// yet windows still hear the first chunk at once, the text only growing, and the whole text of
// each attempt (before a retry starts over), never anything after the turn ended.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventName, Events } from "../../core/api/contract.ts";
import type { MessageEntry } from "../../core/session/entries.ts";
import { loadSessionEntries } from "../../main/library/load.ts";
import {
  type FakeServer,
  type RequestMatcher,
  startFakeOpenAiServer,
} from "../helpers/fake-openai-server.ts";
import { createHarness, type Harness, removeDir, SessionFile, until } from "./pipelines/harness.ts";

const isChat: RequestMatcher = (body) => !("max_tokens" in body);

let h: Harness;
let fake: FakeServer;
let events: { name: EventName; payload: unknown }[];
let sessionId: string;

beforeEach(async () => {
  h = createHarness();
  fake = await startFakeOpenAiServer({ defaultText: "## Goal\nSummary." });
  await h.configureFakeModel(fake, { stream: true });
  await h.call("settings:set", { key: "retry.baseDelayMs", value: 1 });
  sessionId = await h.importSession(
    new SessionFile({ id: "pace-1" })
      .user("u1", "Fix the parser.")
      .assistant("a1", "Which file?", { usage: { input: 500, output: 20 } }),
  );
  events = [];
  h.api.ctx.events.subscribe((name, payload) => events.push({ name, payload }));
});
afterEach(async () => {
  h.close();
  await fake.close();
  removeDir(h.dir);
});

/** The reply texts chat:progressed told, among `list` (all events by default). */
const texts = (list = events) =>
  list.filter((e) => e.name === "chat:progressed").map((e) => (e.payload as Events["chat:progressed"]).text);
const bytes = (list: string[]) => list.reduce((sum, text) => sum + text.length, 0);

/** 2,500 chunks of 16 characters: a 40,000-character reply (about 10,000 tokens). */
const chunks = Array.from({ length: 2500 }, (_, i) => `tok${i} `.padEnd(16, "."));
const reply = chunks.join("");

/** Each text extends the one before it and is a start of `whole`. */
function expectGrowing(list: string[], whole: string): void {
  for (const [index, text] of list.entries()) {
    expect(whole.startsWith(text)).toBe(true);
    if (index > 0) expect(text.length).toBeGreaterThan(list[index - 1]?.length ?? 0);
  }
}

describe("a long chat reply streamed in small chunks", () => {
  it("is told at a pace: the first chunk at once, a growing text and the whole reply", async () => {
    fake.enqueue({
      type: "reply",
      chunks,
      reasoning: "Think first.",
      toolCalls: [{ id: "call1", name: "bash", arguments: '{"command":"ls"}' }],
      match: isChat,
    });
    const result = await h.call("chat:send", { sessionId, text: "Explain it all." });
    const told = texts();
    expect(told[0]).toBe(chunks[0]);
    expect(told.at(-1)).toBe(reply);
    expectGrowing(told, reply);
    // One event per chunk sent 2,500 events and 50 MB; paced, a few per second of streaming.
    expect(told.length).toBeLessThan(100);
    expect(bytes(told)).toBeLessThan(2_000_000);
    // The whole reply, its thinking and its tool calls are appended as they came.
    const entry = loadSessionEntries(h.api.ctx.db, sessionId).find((e) => e.id === result.assistantEntryId);
    expect((entry as MessageEntry).message).toMatchObject({
      content: [
        { type: "thinking", thinking: "Think first." },
        { type: "text", text: reply },
        { type: "toolCall", id: "call1", name: "bash" },
      ],
    });
    // Nothing is told after the turn ended.
    const ended = events.findIndex((e) => e.name === "job:ended");
    expect(events.slice(ended).some((e) => e.name === "chat:progressed")).toBe(false);
  });

  it("a retried reply: the first attempt's whole text goes out before the retry starts over", async () => {
    const cut = chunks.slice(0, 1500).join("");
    fake.enqueue(
      { type: "reply", chunks, endAfterChunks: 1500, match: isChat },
      { type: "reply", chunks: ["Again", " whole."], match: isChat },
    );
    const result = await h.call("chat:send", { sessionId, text: "Explain it all." });
    expect(result.stopReason).toBe("stop");
    const retry = events.findIndex((e) => e.name === "chat:retry-started");
    expect(retry).toBeGreaterThan(-1);
    expect(texts(events.slice(0, retry)).at(-1)).toBe(cut);
    const after = texts(events.slice(retry));
    expect(after[0]).toBe("Again");
    expect(after.at(-1)).toBe("Again whole.");
    expect(texts().length).toBeLessThan(100);
  });

  it("a cancelled reply: windows heard the text so far, and nothing once the turn ended", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({ type: "reply", chunks, holdRest: held, chunkDelayMs: 1, match: isChat });
    const running = h.api.call("chat:send", { sessionId, text: "Explain it all." });
    await until(() => texts().length > 0, 5000, "the first chunk");
    expect(texts()).toEqual([chunks[0]]);
    release();
    await until(() => texts().length > 1, 5000, "a later text");
    expect((await h.call("chat:abort", { sessionId })).aborted).toBe(true);
    expect((await running).ok).toBe(false);
    expectGrowing(texts(), reply);
    const ended = events.findIndex((e) => e.name === "job:ended");
    expect(ended).toBeGreaterThan(-1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(events.slice(ended).some((e) => e.name === "chat:progressed")).toBe(false);
  });
});
