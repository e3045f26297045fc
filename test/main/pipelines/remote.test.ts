// Remote compaction endpoint (behaviour 45, SPEC §6.3): main and short summaries POST
// {systemPrompt, prompt} to it, the turn prefix still goes to the model, shortSummary is ignored.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import {
  chatBody,
  chatRequests,
  closeServedHarness,
  conversationBlock,
  type Harness,
  promptText,
  startServedHarness,
  until,
  userPrompt,
} from "./harness.ts";
import {
  plainFileTags,
  plainHistorySerialized,
  plainRecentSerialized,
  plainSession,
  splitHistorySerialized,
  SPLIT_SEPARATOR,
  splitPrefixSerialized,
  splitRecentSerialized,
  splitSession,
} from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ keepRecentTokens: 1500 }));
  await h.call("settings:set", { key: "compaction.remoteEndpoint", value: `${server.url}/remote` });
});

afterEach(() => closeServedHarness({ server, h }));

function remoteRequests() {
  return server.requests.filter((request) => request.path === "/remote");
}

describe("remote endpoint", () => {
  it("split turn: history and short summary go to the endpoint, the turn prefix to the model", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(splitSession());
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.summarizer).toContain(`${server.url}/remote`);
    server.enqueue(
      { type: "remote", payload: { summary: "Remote history.", shortSummary: "ignored one" } },
      { type: "remote", payload: { summary: "Remote short.", shortSummary: "ignored two" } },
      { type: "reply", text: "Prefix from the model." },
    );
    const result = await h.call("compaction:run", { sessionId });

    const remote = remoteRequests();
    expect(remote).toHaveLength(2);
    for (const request of remote) {
      expect(request.method).toBe("POST");
      expect(request.headers["content-type"]).toBe("application/json");
      expect(Object.keys(request.body as object).sort()).toEqual(["prompt", "systemPrompt"]);
    }
    const history = `Remote history.${SPLIT_SEPARATOR}Prefix from the model.`;
    expect(remote[0]?.body).toEqual({
      systemPrompt: promptText("summarization-system"),
      prompt: conversationBlock(splitHistorySerialized) + promptText("compaction-summary"),
    });
    expect(remote[1]?.body).toEqual({
      systemPrompt: promptText("summarization-system"),
      prompt: `${conversationBlock(splitRecentSerialized)}<previous-summary>\n${history}\n</previous-summary>\n\n${promptText("compaction-short-summary")}`,
    });

    const chat = chatRequests(server);
    expect(chat).toHaveLength(1);
    expect(chatBody(chat[0]).max_tokens).toBe(8192);
    expect(userPrompt(chat[0])).toBe(
      conversationBlock(splitPrefixSerialized) + promptText("compaction-turn-prefix"),
    );

    expect(result.summary).toBe(`${history}\n\n<read-files>\nsrc/c.ts\n</read-files>`);
    expect(result.shortSummary).toBe("Remote short.");
    const entry = (await h.call("session:get", { sessionId })).entries.at(-1)?.entry;
    expect(entry).toMatchObject({ type: "compaction", id: result.entryId, shortSummary: "Remote short." });
  });

  it("no split turn: two POSTs to the endpoint and no model call at all", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    server.enqueue(
      { type: "remote", payload: { summary: "Remote history." } },
      { type: "remote", payload: { summary: "Remote short.", shortSummary: "ignored" } },
    );
    const result = await h.call("compaction:run", { sessionId });
    expect(chatRequests(server)).toHaveLength(0);
    const remote = remoteRequests();
    expect(remote.map((r) => (r.body as { prompt: string }).prompt)).toEqual([
      conversationBlock(plainHistorySerialized) + promptText("compaction-summary"),
      `${conversationBlock(plainRecentSerialized)}<previous-summary>\nRemote history.\n</previous-summary>\n\n${promptText("compaction-short-summary")}`,
    ]);
    expect(result.summary).toBe(`Remote history.${plainFileTags}`);
    expect(result.shortSummary).toBe("Remote short.");
  });

  it("without a model, the turn prefix comes from the offline summarizer (still no HTTP to a model)", async () => {
    const sessionId = await h.importSession(splitSession());
    server.enqueue(
      { type: "remote", payload: { summary: "Remote history." } },
      { type: "remote", payload: { summary: "Remote short." } },
    );
    const result = await h.call("compaction:run", { sessionId });
    expect(chatRequests(server)).toHaveLength(0);
    expect(remoteRequests()).toHaveLength(2);
    expect(result.summary.startsWith(`Remote history.${SPLIT_SEPARATOR}`)).toBe(true);
    expect(result.shortSummary).toBe("Remote short.");
  });

  it("a non-2xx answer or a reply without summary fails with the spec's texts, nothing appended", async () => {
    await h.configureFakeModel(server);
    const sessionId = await h.importSession(plainSession());
    const before = await h.snapshot(sessionId);
    server.enqueue({ type: "error", route: "remote", status: 502, body: "upstream down" });
    const failed = await h.fail("compaction:run", { sessionId });
    expect(failed.code).toBe("model_error");
    expect(failed.message).toContain("Remote compaction failed (502 Bad Gateway)");
    server.enqueue({ type: "remote", payload: { shortSummary: "only this" } });
    const missing = await h.fail("compaction:run", { sessionId });
    expect(missing.code).toBe("model_error");
    expect(missing.message).toContain("Remote compaction response missing summary");
    expect(chatRequests(server)).toHaveLength(0);
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("an endpoint that never answers ends as timed out after compaction.remoteTimeoutSeconds (default 600), nothing appended", async () => {
    expect((await h.call("settings:get", {})).compaction.remoteTimeoutSeconds).toBe(600);
    await h.call("settings:set", { key: "compaction.remoteTimeoutSeconds", value: 1 });
    const sessionId = await h.importSession(plainSession());
    const before = await h.snapshot(sessionId);
    server.enqueue({ type: "hang", route: "remote" });
    const started = performance.now();
    const failed = await h.fail("compaction:run", { sessionId });
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    expect(failed).toEqual({
      code: "model_error",
      message:
        "Remote compaction failed: Request timed out: the endpoint sent nothing for 1 s (setting compaction.remoteTimeoutSeconds)",
    });
    await until(() => remoteRequests()[0]?.clientClosed === true, 5000, "the hung request closed");
    expect(await h.snapshot(sessionId)).toEqual(before);
  });
});
