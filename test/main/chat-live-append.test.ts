// A chat turn (D17) sent from a view leaf that follows the session's file while its agent appends
// lines to that file: the agent's lines are imported as they come, the reply is appended below the
// leaf the message was sent from, and the view leaf goes to the reply (the user did not move it;
// the agent's append did), so the reply is in the LLM view and the automatic check runs on it.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getSessionSummary, loadSessionEntries } from "../../main/library/load.ts";
import type { FakeServer, RequestMatcher } from "../helpers/fake-openai-server.ts";
import { textOf, writeChainSession } from "./auto/session-builder.ts";
import { closeServedHarness, type Harness, startServedHarness } from "./pipelines/harness.ts";

const isChat: RequestMatcher = (body) => !("max_tokens" in body);
const isSummary: RequestMatcher = (body) => "max_tokens" in body;

/** The agent writes its next turn below `parentId`; the watcher (here: an import) stores it. */
async function agentAppends(file: string, id: string, parentId: string): Promise<void> {
  const line = {
    type: "message",
    id,
    parentId,
    timestamp: "2026-11-01T10:05:00.000Z",
    message: { role: "user", content: [{ type: "text", text: "next task" }], timestamp: 0 },
  };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  expect((await h.call("library:import", { path: file })).entriesAdded).toBe(1);
}

let fake: FakeServer;
let h: Harness;
let progressed: number;

async function until(check: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeEach(async () => {
  ({ server: fake, h } = await startServedHarness({
    server: { defaultText: "## Goal\nKeep going." },
    model: true,
    stream: true,
  }));
  progressed = 0;
  h.api.ctx.events.subscribe((name) => {
    if (name === "chat:progressed") progressed++;
  });
});

afterEach(() => closeServedHarness({ server: fake, h }));

describe("a chat turn while the session's agent appends", () => {
  it("appends the reply below the leaf it was sent from and moves the view leaf to it", async () => {
    const file = writeChainSession(h.dir, "live", [
      { role: "user", text: "Fix the parser." },
      { role: "assistant", text: "Which file?", usage: { input: 9000, output: 1000, totalTokens: 10_000 } },
    ]);
    const sessionId = (await h.call("library:import", { path: file })).files[0]?.sessionId as string;
    const sentFrom = getSessionSummary(h.api.ctx.db, sessionId).viewLeafId as string;

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({
      type: "reply",
      chunks: ["It ", "is ", "done."],
      holdRest: held,
      chunkDelayMs: 1,
      match: isChat,
    });
    const running = h.call("chat:send", { sessionId, text: "Go on" });
    await until(() => progressed > 0, "the reply's first chunk");

    await agentAppends(file, "agent001", sentFrom);
    release();
    const result = await running;

    const entries = loadSessionEntries(h.api.ctx.db, sessionId);
    expect(entries.find((e) => e.id === "agent001")).toBeDefined();
    expect(entries.find((e) => e.id === result.userEntryId)?.parentId).toBe(sentFrom);
    expect(getSessionSummary(h.api.ctx.db, sessionId).viewLeafId).toBe(result.assistantEntryId);
    expect((await h.call("context:get", { sessionId })).leafId).toBe(result.assistantEntryId);
  });

  it("a compaction run at a chosen leaf becomes the view leaf, as when the agent wrote nothing meanwhile", async () => {
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 4000 });
    const file = writeChainSession(h.dir, "compact", [
      { role: "user", text: textOf(3000, "first") },
      { role: "assistant", text: textOf(3000, "answer") },
      { role: "user", text: textOf(3000, "second") },
      {
        role: "assistant",
        text: textOf(3000, "reply"),
        usage: { input: 12_000, output: 1000, totalTokens: 13_000 },
      },
    ]);
    const sessionId = (await h.call("library:import", { path: file })).files[0]?.sessionId as string;
    const leafId = getSessionSummary(h.api.ctx.db, sessionId).viewLeafId as string;

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({
      type: "reply",
      chunks: ["## Goal", "\nKeep going."],
      holdRest: held,
      chunkDelayMs: 1,
      match: isSummary,
    });
    const running = h.call("compaction:run", { sessionId, leafId });
    await until(() => fake.requests.length > 0, "the summary request");
    await agentAppends(file, "agent002", leafId);
    release();
    const result = await running;

    expect(loadSessionEntries(h.api.ctx.db, sessionId).find((e) => e.id === result.entryId)?.parentId).toBe(
      leafId,
    );
    expect(getSessionSummary(h.api.ctx.db, sessionId).viewLeafId).toBe(result.entryId);
  });
});
