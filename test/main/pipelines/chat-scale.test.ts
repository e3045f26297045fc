// A chat turn on a long session builds what it sends from the view leaf's context (as context:get
// does), not from every entry: only pruning, which looks at every tool output on the path, reads
// the whole path (once before the prompt's check and once after the reply). The request carries
// exactly the LLM view at the leaf plus the new prompt.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeServer, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "./harness.ts";

let h: Harness;
let server: FakeServer;
beforeEach(async () => {
  h = createHarness();
  server = await startFakeOpenAiServer({ defaultText: "fine" });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
  h.close();
  removeDir(h.dir);
});

const TURNS = 600;

/** u0/a0 … u599/a599 with a compaction before the last ten turns (keeping from u585). */
function longSession(): SessionFile {
  const file = new SessionFile();
  for (let i = 0; i < TURNS; i++) {
    if (i === TURNS - 10) file.compaction("c1", { summary: "earlier work", firstKeptEntryId: `u${i - 5}` });
    file.user(`u${i}`, `question ${i}`).assistant(`a${i}`, `answer ${i}`);
  }
  return file;
}

describe("chat on a long session", () => {
  it("reads the session about twice (pruning's path scans), not once per step of the turn", async () => {
    const sessionId = await h.importSession(longSession());
    await h.configureFakeModel(server);
    const view = await h.call("context:get", { sessionId });
    const spy = vi.spyOn(JSON, "parse");
    const result = await h.call("chat:send", { sessionId, text: "and now?" });
    const parsed = spy.mock.calls.length;
    spy.mockRestore();
    expect(result.stopReason).toBe("stop");
    // Pruning's two scans of the 1,201-entry path, and little else (it was six whole reads).
    expect(parsed).toBeLessThan(3 * 2 * TURNS);
    const sent = server.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages).toHaveLength(view.messages.length + 1);
    expect(sent.messages.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(sent.messages.at(-1))).toContain("and now?");
    expect((await h.call("session:tree", { sessionId })).viewLeafId).toBe(result.assistantEntryId);
  });
});
