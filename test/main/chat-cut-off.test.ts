// A chat turn whose streamed reply stops part-way (the server closes the stream cleanly without a
// finish_reason, or the connection is lost), against the fake server on 127.0.0.1 through the
// real SDK: it is retried like any connection error; when retries run out the reply is appended
// as an error that keeps the text that came and says it was cut off — never as a finished reply.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventName, Events } from "../../core/api/contract.ts";
import type { MessageEntry } from "../../core/session/entries.ts";
import { loadSessionEntries } from "../../main/library/load.ts";
import { CUT_OFF_NOTE } from "../../main/llm/chat-client.ts";
import { STREAM_ENDED_EARLY } from "../../main/llm/openai-client.ts";
import type { FakeBehaviour, FakeServer } from "../helpers/fake-openai-server.ts";
import { writeChainSession } from "./auto/session-builder.ts";
import { closeServedHarness, type Harness, startServedHarness } from "./pipelines/harness.ts";

let fake: FakeServer;
let h: Harness;
let events: { name: EventName; payload: unknown }[];

const payloads = <E extends EventName>(name: E) =>
  events.filter((e) => e.name === name).map((e) => e.payload as Events[E]);
const messageOf = (sessionId: string, id: string) =>
  (loadSessionEntries(h.api.ctx.db, sessionId).find((entry) => entry.id === id) as MessageEntry).message;

async function session(): Promise<string> {
  const file = writeChainSession(h.dir, "s", [
    { role: "user", text: "Fix the parser." },
    { role: "assistant", text: "Which file?", usage: { input: 900, output: 100 } },
  ]);
  const report = await h.call("library:import", { path: file });
  return report.files[0]?.sessionId as string;
}

const chunks = ["The parser ", "reads both ", "dialects and ", "keeps raw lines."];
const endedCleanly: FakeBehaviour = { type: "reply", chunks, endAfterChunks: 2, chunkDelayMs: 30 };
const CUT_CLEANLY = `${STREAM_ENDED_EARLY}${CUT_OFF_NOTE}`;

beforeEach(async () => {
  ({ server: fake, h } = await startServedHarness({ model: true, stream: true }));
  events = [];
  h.api.ctx.events.subscribe((name, payload) => events.push({ name, payload }));
  await h.call("settings:set", { key: "retry.baseDelayMs", value: 1 });
});

afterEach(() => closeServedHarness({ server: fake, h }));

describe("a streamed reply cut off part-way", () => {
  it.each([
    ["closed cleanly without a finish_reason", endedCleanly, CUT_CLEANLY],
    [
      "with the connection lost",
      { type: "reply", chunks, dropAfterChunks: 2, chunkDelayMs: 30 } as FakeBehaviour,
      "Connection error: the connection closed before the response was complete (other side closed)",
    ],
  ])("%s is retried; only the reply that finished is appended", async (_name, cut, message) => {
    const sessionId = await session();
    fake.enqueue(cut, { type: "reply", text: "The parser reads both dialects." });
    const result = await h.call("chat:send", { sessionId, text: "What does it do?" });
    expect(result).toMatchObject({
      stopReason: "stop",
      appendedEntryIds: [result.userEntryId, result.assistantEntryId],
    });
    expect(messageOf(sessionId, result.assistantEntryId)).toMatchObject({
      content: [{ type: "text", text: "The parser reads both dialects." }],
      stopReason: "stop",
    });
    expect(fake.requests).toHaveLength(2);
    const [retry] = payloads("chat:retry-started");
    expect(retry).toMatchObject({ sessionId, attempt: 1, maxAttempts: 3 });
    expect(retry?.errorMessage.startsWith(message)).toBe(true);
    expect(retry?.errorMessage).toContain("the reply was cut off");
    expect(payloads("chat:retry-ended")).toEqual([{ sessionId, success: true, attempt: 1 }]);
  });

  it("when retries run out: an error reply keeping the last attempt's text and saying it was cut off", async () => {
    await h.call("settings:set", { key: "retry.maxRetries", value: 1 });
    const sessionId = await session();
    fake.enqueue({ ...endedCleanly, chunks: ["First ", "try ", "lost."] }, endedCleanly);
    const result = await h.call("chat:send", { sessionId, text: "What does it do?" });
    expect(result).toMatchObject({ stopReason: "error", errorMessage: CUT_CLEANLY });
    expect(messageOf(sessionId, result.assistantEntryId)).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "The parser reads both " }],
      stopReason: "error",
      errorMessage: CUT_CLEANLY,
    });
    expect(payloads("chat:retry-ended")).toEqual([
      { sessionId, success: false, attempt: 1, finalError: CUT_CLEANLY },
    ]);
    // The windows' live text followed the last attempt, not a mix of both.
    expect(payloads("chat:progressed").at(-1)?.text).toBe("The parser reads both ");
  });

  it("with retries off: appended at once as that error reply", async () => {
    await h.call("settings:set", { key: "retry.enabled", value: false });
    const sessionId = await session();
    fake.enqueue(endedCleanly);
    const result = await h.call("chat:send", { sessionId, text: "What does it do?" });
    expect(result).toMatchObject({ stopReason: "error", errorMessage: CUT_CLEANLY });
    expect(fake.requests).toHaveLength(1);
    expect(messageOf(sessionId, result.assistantEntryId)).toMatchObject({
      content: [{ type: "text", text: "The parser reads both " }],
      stopReason: "error",
    });
  });
});
