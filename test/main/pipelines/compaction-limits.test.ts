// Behaviours 39, 40 (with D5 and D8) and 41 through the API: "Already compacted", "Nothing to
// compact", compacting again over a compaction with nothing new, and a one-message session.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import {
  chatBody,
  chatRequests,
  closeServedHarness,
  compactionFraming,
  conversationBlock,
  type Harness,
  promptText,
  SessionFile,
  sized,
  startServedHarness,
  userPrompt,
} from "./harness.ts";
import { plainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true }));
});

afterEach(() => closeServedHarness({ server, h }));

describe("behaviour 39", () => {
  it("a path ending in a compaction: Already compacted, as invalid_input, for preview and run", async () => {
    const sessionId = await h.importSession(
      new SessionFile()
        .user("u1", "hello")
        .assistant("a1", "hi")
        .compaction("c1", { summary: "Earlier work.", firstKeptEntryId: "u1" }),
    );
    const before = await h.snapshot(sessionId);
    const expected = { code: "invalid_input", message: "Already compacted" };
    expect(await h.fail("compaction:preview", { sessionId })).toEqual(expected);
    expect(await h.fail("compaction:run", { sessionId })).toEqual(expected);
    expect(server.requests).toHaveLength(0);
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("right after a Canopy compaction the view leaf is the compaction: Already compacted", async () => {
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 1500 });
    const sessionId = await h.importSession(plainSession());
    await h.call("compaction:run", { sessionId });
    const requests = server.requests.length;
    expect(await h.fail("compaction:run", { sessionId })).toEqual({
      code: "invalid_input",
      message: "Already compacted",
    });
    expect(server.requests).toHaveLength(requests);
  });

  it("an empty path (view leaf before the first entry): Nothing to compact (session too small)", async () => {
    const sessionId = await h.importSession(new SessionFile().user("u1", "hello").assistant("a1", "hi"));
    await h.call("session:set-view-leaf", { sessionId, leafId: null });
    const before = await h.snapshot(sessionId);
    const expected = { code: "invalid_input", message: "Nothing to compact (session too small)" };
    expect(await h.fail("compaction:preview", { sessionId })).toEqual(expected);
    expect(await h.fail("compaction:run", { sessionId })).toEqual(expected);
    expect(server.requests).toHaveLength(0);
    expect(await h.snapshot(sessionId)).toEqual(before);
  });
});

describe("behaviour 40 with D5 and D8", () => {
  const oldSummary = "Old summary.\n\n<read-files>\nsrc/x.ts\n</read-files>";
  function compactedSession(firstKeptEntryId: string) {
    return new SessionFile()
      .user("u1", "Look at src/x.ts")
      .assistant("a1", "Looked.")
      .compaction("c1", {
        summary: oldSummary,
        firstKeptEntryId,
        details: { readFiles: ["src/x.ts"], modifiedFiles: [] },
      })
      .add("l1", "label", { targetId: "u1", label: "start" });
  }

  it("[u, a, C(first kept u), label]: the kept messages stay, the old summary is reused once", async () => {
    const sessionId = await h.importSession(compactedSession("u1"));
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan).toMatchObject({
      firstKeptEntryId: "u1",
      summarizeEntryIds: [],
      keptEntryIds: ["u1", "a1"],
      previousSummary: true,
    });
    server.enqueue({ type: "reply", text: "Looked at x." });
    const result = await h.call("compaction:run", { sessionId });
    // No history call: only the short summary went to the model.
    const requests = chatRequests(server);
    expect(requests).toHaveLength(1);
    expect(chatBody(requests[0]).max_tokens).toBe(512);
    expect(userPrompt(requests[0])).toBe(
      `${conversationBlock("[User]: Look at src/x.ts\n\n[Assistant]: Looked.")}<previous-summary>\nOld summary.\n</previous-summary>\n\n${promptText("compaction-short-summary")}`,
    );
    // D8: the previous summary's tags are not doubled.
    expect(result.summary).toBe(oldSummary);
    expect(result.firstKeptEntryId).toBe("u1");
    const after = await h.call("context:get", { sessionId });
    expect(after.messageEntryIds).toEqual([result.entryId, "u1", "a1"]);
    expect(after.messages[0]).toMatchObject({
      content: [{ type: "text", text: compactionFraming(oldSummary) }],
    });
  });

  it("[u, a, C(first kept not on the path), label]: kept from the label, context is the summary only", async () => {
    const sessionId = await h.importSession(compactedSession("gone1234"));
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan).toMatchObject({ firstKeptEntryId: "l1", summarizeEntryIds: [], keptEntryIds: [] });
    const result = await h.call("compaction:run", { sessionId });
    expect(chatRequests(server)).toHaveLength(1);
    expect(result.summary).toBe(oldSummary);
    expect(result.firstKeptEntryId).toBe("l1");
    const after = await h.call("context:get", { sessionId });
    expect(after.messageEntryIds).toEqual([result.entryId]);
  });
});

describe("behaviour 41", () => {
  it("a single user message: No prior history. and exactly one model call (the short summary)", async () => {
    const sessionId = await h.importSession(new SessionFile().user("u1", "Please set up the project."));
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan).toMatchObject({ firstKeptEntryId: "u1", summarizeEntryIds: [], keptEntryIds: ["u1"] });
    server.enqueue({ type: "reply", text: "Nothing done yet." });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.summary).toBe("No prior history.");
    expect(result.shortSummary).toBe("Nothing done yet.");
    const requests = chatRequests(server);
    expect(requests).toHaveLength(1);
    expect(chatBody(requests[0]).max_tokens).toBe(512);
    expect(userPrompt(requests[0])).toBe(
      `${conversationBlock("[User]: Please set up the project.")}<previous-summary>\nNo prior history.\n</previous-summary>\n\n${promptText("compaction-short-summary")}`,
    );
    const entry = (await h.call("session:get", { sessionId })).entries.at(-1)?.entry;
    expect(entry).toMatchObject({
      type: "compaction",
      id: result.entryId,
      parentId: "u1",
      summary: "No prior history.",
      firstKeptEntryId: "u1",
    });
  });
});

describe("E4 in the plan's notes (SPEC §13.7)", () => {
  it("a newest tool result larger than the keep budget: the note says why nothing can be summarized", async () => {
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 2000 });
    const sessionId = await h.importSession(
      new SessionFile()
        .user("u1", sized("request", 100))
        .assistant("a1", sized("reply", 100), { calls: [{ name: "bash", args: { command: "ls" }, id: "c1" }] })
        .toolResult("t1", sized("output", 3000), "bash", "c1"),
    );
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan).toMatchObject({ firstKeptEntryId: "u1", summarizeEntryIds: [], keepRecentTokens: 2000 });
    expect(plan.keptTokens).toBeGreaterThan(3000);
    expect(plan.notes).toHaveLength(1);
    expect(plan.notes[0]).toMatch(/^Nothing can be summarized: the newest messages alone exceed the keep budget/);
    expect(plan.notes[0]).not.toMatch(/fits/);
  });

  it("when everything really fits, the note says so", async () => {
    const sessionId = await h.importSession(new SessionFile().user("u1", "hello").assistant("a1", "hi"));
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.notes).toEqual(["Nothing to summarize yet: everything fits in the keep budget."]);
  });
});
