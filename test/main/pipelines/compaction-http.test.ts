// Manual compaction end to end over real HTTP (fake OpenAI-compatible server, JSON and SSE): the
// plan without a model call, the exact requests, the appended entry, the LLM view after it, D8, D10.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CompactionEntry } from "../../../core/session/entries.ts";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import {
  chatBody,
  chatRequests,
  closeServedHarness,
  compactionFraming,
  conversationBlock,
  createHarness,
  FAKE_KEY,
  type Harness,
  promptText,
  removeDir,
  startServedHarness,
  systemPrompt,
  until,
  userPrompt,
} from "./harness.ts";
import {
  plain,
  plainEstimate,
  plainFileTags,
  plainHistorySerialized,
  plainPlan,
  plainRecentSerialized,
  plainSession,
  secondCompactionSession,
  secondHistorySerialized,
  split,
  splitHistorySerialized,
  splitPrefixSerialized,
  SPLIT_SEPARATOR,
  splitRecentSerialized,
  splitSession,
} from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ keepRecentTokens: 1500 }));
});

afterEach(() => closeServedHarness({ server, h }));

async function storedCompaction(sessionId: string, entryId: string): Promise<CompactionEntry> {
  const detail = await h.call("session:get", { sessionId });
  const stored = detail.entries.find((e) => e.entry.id === entryId)?.entry;
  if (stored?.type !== "compaction") throw new Error(`no compaction entry ${entryId}`);
  return stored as CompactionEntry;
}

describe("compaction:preview", () => {
  it("plans without any model call and reports the plan keys", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    const plan = await h.call("compaction:preview", { sessionId });
    expect(server.requests).toHaveLength(0);
    expect(plan).toMatchObject({
      ...plainPlan,
      leafId: "a4",
      maxSummaryTokens: 13107,
    });
  });

  it("reports a split turn with its start", async () => {
    const sessionId = await h.importSession(splitSession());
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan).toMatchObject({
      firstKeptEntryId: "a3",
      isSplitTurn: true,
      turnStartEntryId: "u2",
      summarizeEntryIds: ["u1", "a1"],
      turnPrefixEntryIds: ["u2", "a2", "t2"],
      keptEntryIds: ["a3"],
      readFiles: ["src/c.ts"],
      modifiedFiles: [],
    });
  });
});

describe("compaction:run over HTTP", () => {
  for (const stream of [false, true]) {
    it(`${stream ? "streaming" : "non-streaming"}: two requests with the exact prompts, entry appended, view moved`, async () => {
      await h.configureFakeModel(server, { stream });
      const sessionId = await h.importSession(plainSession());
      const before = await h.call("context:get", { sessionId });
      const progress: string[] = [];
      const changed: (string | null)[] = [];
      h.api.ctx.events.subscribe((name, payload) => {
        if (name === "job:progressed" && "text" in payload && payload.text) progress.push(payload.text);
        if (name === "session:changed" && "viewLeafId" in payload) changed.push(payload.viewLeafId);
      });
      server.enqueue(
        { type: "reply", text: "## Goal\nFix the parser." },
        { type: "reply", text: "I fixed the parser and added tests." },
      );

      const result = await h.call("compaction:run", { sessionId });

      const requests = chatRequests(server);
      expect(requests).toHaveLength(2);
      expect(server.requests).toHaveLength(2);
      for (const request of requests) {
        expect(request.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
        expect(systemPrompt(request)).toBe(promptText("summarization-system"));
        expect(chatBody(request).model).toBe("fake-model");
        expect(chatBody(request).messages).toHaveLength(2);
        expect(chatBody(request).stream ?? false).toBe(stream);
        expect(chatBody(request).reasoning_effort).toBeUndefined();
      }
      expect(userPrompt(requests[0])).toBe(
        conversationBlock(plainHistorySerialized) + promptText("compaction-summary"),
      );
      expect(chatBody(requests[0]).max_tokens).toBe(13107);
      expect(userPrompt(requests[1])).toBe(
        `${conversationBlock(plainRecentSerialized)}<previous-summary>\n## Goal\nFix the parser.\n</previous-summary>\n\n${promptText("compaction-short-summary")}`,
      );
      expect(chatBody(requests[1]).max_tokens).toBe(512);
      if (!stream) {
        expect(requests[0]?.body).toEqual({
          model: "fake-model",
          messages: [
            { role: "system", content: promptText("summarization-system") },
            { role: "user", content: userPrompt(requests[0]) },
          ],
          max_tokens: 13107,
        });
      } else {
        // The streamed text reached the job's progress events as it grew: the first chunk at
        // once, then (paced, progress-pace.ts) the whole text.
        expect(progress[0]?.length).toBeLessThan("## Goal\nFix the parser.".length);
        expect(progress).toContain("## Goal\nFix the parser.");
      }

      const summary = `## Goal\nFix the parser.${plainFileTags}`;
      expect(result).toMatchObject({
        sessionId,
        summary,
        shortSummary: "I fixed the parser and added tests.",
        firstKeptEntryId: "u2",
        tokensBefore: plainEstimate,
        fromExtension: false,
        viewLeafId: result.entryId,
      });
      const entry = await storedCompaction(sessionId, result.entryId);
      expect(entry).toMatchObject({
        type: "compaction",
        parentId: "a4",
        summary,
        shortSummary: "I fixed the parser and added tests.",
        firstKeptEntryId: "u2",
        tokensBefore: plainEstimate,
        details: { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] },
      });
      expect(entry.fromExtension).toBeUndefined();
      expect(entry.fromHook).toBeUndefined();

      expect(changed).toEqual([result.entryId]);
      const snapshot = await h.snapshot(sessionId);
      expect(snapshot.viewLeafId).toBe(result.entryId);
      expect(snapshot.ids.at(-1)).toBe(result.entryId);

      const after = await h.call("context:get", { sessionId });
      expect(after.leafId).toBe(result.entryId);
      expect(after.compactionId).toBe(result.entryId);
      expect(after.firstKeptEntryId).toBe("u2");
      expect(after.messages[0]).toMatchObject({
        role: "user",
        content: [{ type: "text", text: compactionFraming(summary) }],
      });
      const keptFrom = before.messageEntryIds.indexOf("u2");
      expect(after.messages.slice(1)).toEqual(before.messages.slice(keptFrom));
      expect(after.messageEntryIds).toEqual([result.entryId, "u2", "a4"]);
    });
  }

  it("split turn: history and turn prefix run in parallel, then the short summary", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(splitSession());
    // Both first replies wait a second: the second request arriving well before that proves the
    // two calls were in flight together.
    server.enqueue(
      { type: "reply", text: "First reply.", headersDelayMs: 1000 },
      { type: "reply", text: "Second reply.", headersDelayMs: 1000 },
      { type: "reply", text: "Short reply." },
    );
    const running = h.call("compaction:run", { sessionId });
    await until(() => server.requests.length >= 1, 5000, "the first request");
    await until(() => server.requests.length >= 2, 600, "the second request while the first is pending");
    const result = await running;

    const requests = chatRequests(server);
    expect(requests).toHaveLength(3);
    const replies = ["First reply.", "Second reply.", "Short reply."];
    const historyAt = requests.findIndex((r) => chatBody(r).max_tokens === 13107);
    const prefixAt = requests.findIndex((r) => chatBody(r).max_tokens === 8192);
    expect([historyAt, prefixAt].sort((a, b) => a - b)).toEqual([0, 1]);
    expect(chatBody(requests[2]).max_tokens).toBe(512);
    expect(userPrompt(requests[historyAt])).toBe(
      conversationBlock(splitHistorySerialized) + promptText("compaction-summary"),
    );
    expect(userPrompt(requests[prefixAt])).toBe(
      conversationBlock(splitPrefixSerialized) + promptText("compaction-turn-prefix"),
    );
    for (const request of requests) expect(systemPrompt(request)).toBe(promptText("summarization-system"));

    const history = `${replies[historyAt]}${SPLIT_SEPARATOR}${replies[prefixAt]}`;
    expect(userPrompt(requests[2])).toBe(
      `${conversationBlock(splitRecentSerialized)}<previous-summary>\n${history}\n</previous-summary>\n\n${promptText("compaction-short-summary")}`,
    );
    const summary = `${history}\n\n<read-files>\nsrc/c.ts\n</read-files>`;
    expect(result.summary).toBe(summary);
    expect(result.shortSummary).toBe("Short reply.");
    expect(result.firstKeptEntryId).toBe("a3");
    const entry = await storedCompaction(sessionId, result.entryId);
    expect(entry).toMatchObject({
      parentId: "a3",
      summary,
      details: { readFiles: ["src/c.ts"], modifiedFiles: [] },
    });
    const after = await h.call("context:get", { sessionId });
    expect(after.messages).toHaveLength(2);
    expect(after.messages[1]).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: split.a3 }],
    });
  });

  it("behaviour 43: custom instructions end the main prompt as Additional focus, not the short one", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    await h.call("compaction:run", { sessionId, customInstructions: "Keep the parser's error messages" });
    const requests = chatRequests(server);
    expect(requests).toHaveLength(2);
    expect(userPrompt(requests[0])).toBe(
      `${conversationBlock(plainHistorySerialized)}${promptText("compaction-summary")}\n\nAdditional focus: Keep the parser's error messages`,
    );
    expect(userPrompt(requests[1])).not.toContain("Additional focus");
  });

  it("behaviour 42 with D5: a previous compaction gives the update prompt over the kept region", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(secondCompactionSession());
    server.enqueue({ type: "reply", text: "Merged summary." }, { type: "reply", text: "Short." });
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan).toMatchObject({
      firstKeptEntryId: "u4",
      previousSummary: true,
      previousCompactionId: "c1",
      summarizeEntryIds: ["u2", "a2", "u3", "a3"],
      readFiles: ["docs/notes.md"],
      modifiedFiles: ["src/old.ts"],
    });
    // D10: the estimate is that of the current LLM view (previous summary + kept region).
    const view = await h.call("context:get", { sessionId });
    expect(view.messageEntryIds).toEqual(["c1", "u2", "a2", "u3", "a3", "u4", "a4"]);
    expect(plan.tokensBeforeEstimated).toBe(view.estimatedTokens);
    expect(plan.tokensBefore).toBe(view.estimatedTokens);
    const result = await h.call("compaction:run", { sessionId });
    const requests = chatRequests(server);
    expect(requests).toHaveLength(2);
    expect(userPrompt(requests[0])).toBe(
      `${conversationBlock(secondHistorySerialized)}<previous-summary>\nS1: the earlier work on the importer.\n</previous-summary>\n\n${promptText("compaction-update-summary")}`,
    );
    expect(result.summary).toBe(
      "Merged summary.\n\n<read-files>\ndocs/notes.md\n</read-files>\n\n<modified-files>\nsrc/old.ts\n</modified-files>",
    );
    const entry = await storedCompaction(sessionId, result.entryId);
    expect(entry.parentId).toBe("a4");
    expect(entry.details).toEqual({ readFiles: ["docs/notes.md"], modifiedFiles: ["src/old.ts"] });
  });
});

describe("tokensBefore (D10)", () => {
  it("is the estimate of the current LLM view when no assistant usage was measured", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    // Every assistant's usage is all zeros: nothing was measured.
    const view = await h.call("context:get", { sessionId });
    expect(view.estimatedTokens).toBe(plainEstimate);
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.tokensBeforeMeasured).toBeNull();
    expect(plan.tokensBeforeEstimated).toBe(plainEstimate);
    const result = await h.call("compaction:run", { sessionId });
    expect(result.tokensBefore).toBe(plainEstimate);
    expect((await storedCompaction(sessionId, result.entryId)).tokensBefore).toBe(plainEstimate);
  });

  it("is the measured context of the last assistant usage when present", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession({ lastUsage: { input: 5000, output: 200 } }));
    const view = await h.call("context:get", { sessionId });
    expect(view.measuredTokens).toBe(5200);
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.tokensBeforeMeasured).toBe(5200);
    expect(plan.tokensBeforeEstimated).toBe(plainEstimate);
    // §5.1 step 5: keep = floor(1500 / (5000 / estimate)).
    expect(plan.keepRecentTokens).toBe(Math.floor(1500 / (5000 / plainEstimate)));
    expect(plan.firstKeptEntryId).toBe("u2");
    const result = await h.call("compaction:run", { sessionId });
    expect(result.tokensBefore).toBe(5200);
    expect((await storedCompaction(sessionId, result.entryId)).tokensBefore).toBe(5200);
  });
});

describe("offline summarizer", () => {
  it("compacts with no model configured and no HTTP at all", async () => {
    const sessionId = await h.importSession(plainSession());
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.summarizer).toMatch(/offline/i);
    const result = await h.call("compaction:run", { sessionId });
    expect(server.requests).toHaveLength(0);
    expect(result.summary.endsWith(plainFileTags)).toBe(true);
    expect(result.summary.length).toBeGreaterThan(plainFileTags.length);
    expect(result.shortSummary).toBeTruthy();
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(result.entryId);
    const after = await h.call("context:get", { sessionId });
    expect(after.messageEntryIds).toEqual([result.entryId, "u2", "a4"]);
    expect(after.messages[0]).toMatchObject({
      content: [{ type: "text", text: compactionFraming(result.summary) }],
    });
    expect(plain.u1.length).toBe(4000);
  });
});

describe("prompt overrides in <data folder>/prompts", () => {
  it("an override reaches the request; one lacking its variable is reported and the default is used", async () => {
    h.close();
    removeDir(h.dir);
    h = createHarness({
      prepare: (dir) => {
        fs.mkdirSync(path.join(dir, "prompts"));
        fs.writeFileSync(
          path.join(dir, "prompts", "summarization-system.md"),
          "You only write summaries.\r\n",
        );
        fs.writeFileSync(
          path.join(dir, "prompts", "compaction-summary-context.md"),
          "No placeholder here.\n",
        );
        // A typo in the name: overrides nothing, and the panel says so.
        fs.writeFileSync(path.join(dir, "prompts", "compaction_summary.md"), "Summarize.\n");
      },
    });
    await h.configureFakeModel(server);
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 1500 });
    const templates = await h.call("settings:prompts", {});
    const byName = new Map(templates.map((t) => [t.name, t]));
    expect(byName.get("summarization-system")).toMatchObject({ source: "override", warning: null });
    expect(byName.get("compaction-summary-context")?.source).toBe("default");
    expect(byName.get("compaction-summary-context")?.warning).toContain("{{summary}}");
    expect(byName.get("compaction_summary.md")).toMatchObject({
      source: "unused",
      path: path.join(h.dir, "prompts", "compaction_summary.md"),
    });
    expect(byName.get("compaction_summary.md")?.warning).toMatch(/is named after no prompt/);

    const sessionId = await h.importSession(plainSession());
    const result = await h.call("compaction:run", { sessionId });
    const requests = chatRequests(server);
    expect(requests.map(systemPrompt)).toEqual(["You only write summaries.", "You only write summaries."]);
    const after = await h.call("context:get", { sessionId });
    expect(after.messages[0]).toMatchObject({
      content: [{ type: "text", text: compactionFraming(result.summary) }],
    });
  });
});
