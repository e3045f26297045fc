// A chat turn on a long session builds what it sends from the view leaf's context (as context:get
// does), not from every entry: only pruning, which looks at every tool output on the path, reads
// the whole path (once before the prompt's check and once after the reply). The request carries
// exactly the LLM view at the leaf plus the new prompt. The turn's first prune (SPEC §7.2: the
// whole path, before the prompt) reads none of the outputs it prunes into JS.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeServer, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { createHarness, type Harness, readsDuring, removeDir, SessionFile, sized } from "./harness.ts";

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

  it("the turn's first prune reads none of the outputs it prunes into JS", async () => {
    const file = new SessionFile();
    for (let i = 0; i < 120; i++) {
      file
        .user(`u${i}`, `question ${i}`)
        .assistant(`c${i}`, "", { calls: [{ name: "bash", args: { command: `ls ${i}` }, id: `call${i}` }] })
        .toolResult(`t${i}`, sized(`output ${i}`, 2000), "bash", `call${i}`)
        .assistant(`a${i}`, `answer ${i}`);
      if (i % 10 === 9) file.compaction(`k${i}`, { summary: `summary ${i}`, firstKeptEntryId: `u${i}` });
    }
    const sessionId = await h.importSession(file);
    await h.configureFakeModel(server);
    const reads = await readsDuring(h.api.ctx.db, () => h.call("chat:send", { sessionId, text: "and now?" }));
    const preview = await h.call("pruning:preview", { sessionId });
    expect(preview.reason).toMatch(/^Nothing more to prune: 100 tool outputs on this path are pruned already/);
    // 100 outputs of 8,000 characters were pruned; what is parsed is their entries without them,
    // the view after the last compaction (an output or two) and the reply: it was 900,000.
    expect(reads.parsedChars).toBeLessThan(100 * 1000 + 4 * 8000);
  });
});
