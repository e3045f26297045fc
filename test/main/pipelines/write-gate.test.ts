// A chat turn or compaction whose model reply arrives while the import runner's thread re-imports
// a rewritten live file (its write lock held for seconds: write-gate.ts) stores what it got once
// that import is over, instead of waiting for SQLite's lock on the serving thread. The gate is
// held here by a re-import that the test ends; everything else is real (fake model server on
// 127.0.0.1, real library).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import { closeServedHarness, type Harness, startServedHarness, until } from "./harness.ts";
import { plainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
});
afterEach(() => closeServedHarness({ server, h }));

/** Holds the library's writes (as reimportLive does while the runner imports); `end` lets them pass. */
function holdWrites(): { end: () => void } {
  let end = () => {};
  h.api.ctx.writes.hold(new Promise<void>((resolve) => (end = resolve)));
  return { end };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe("a job's write while the runner re-imports a rewritten file", () => {
  it("chat: the reply is stored once the re-import is over", async () => {
    const sessionId = await h.importSession(plainSession());
    const before = (await h.snapshot(sessionId)).entryCount;
    // Held once the request is out (the turn's pruning before it writes too), before the reply is in.
    server.enqueue({ type: "reply", text: "Done.", headersDelayMs: 300 });
    const running = h.call("chat:send", { sessionId, text: "Go on" });
    await until(() => server.requests.length === 1, 5000, "the chat request");
    const held = holdWrites();
    await settle();
    await settle();
    expect((await h.snapshot(sessionId)).entryCount).toBe(before);
    held.end();
    const turn = await running;
    const after = await h.snapshot(sessionId);
    expect(after.entryCount).toBe(before + 2);
    expect(after.ids.at(-1)).toBe(turn.assistantEntryId);
  });

  it("compaction: the summary is stored once the re-import is over", async () => {
    const sessionId = await h.importSession(plainSession());
    const before = (await h.snapshot(sessionId)).entryCount;
    const held = holdWrites();
    server.enqueue({ type: "reply", text: "History." }, { type: "reply", text: "Short." });
    const running = h.call("compaction:run", { sessionId });
    await until(() => server.pending() === 0, 5000, "the summary requests");
    await settle();
    expect((await h.snapshot(sessionId)).entryCount).toBe(before);
    held.end();
    const result = await running;
    const after = await h.snapshot(sessionId);
    expect(after.entryCount).toBe(before + 1);
    expect(after.ids).toContain(result.entryId);
  });
});
