// `canopy chat <session> "text"` against the fake OpenAI server: the reply on stdout, automatic
// compaction on stderr (saying when its summary was cut off at the output limit), the endpoint's
// error as a one-line failure, and the no-model message.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliRun, runCliCaptured } from "../helpers/cli.ts";
import {
  type FakeServer,
  type RequestMatcher,
  startFakeOpenAiServer,
} from "../helpers/fake-openai-server.ts";
import { textOf, writeChainSession } from "./auto/session-builder.ts";

const isChat: RequestMatcher = (body) => !("max_tokens" in body);
const isSummary: RequestMatcher = (body) => "max_tokens" in body;

let fake: FakeServer;
let dir: string;
let db: string;

function cli(...args: string[]): Promise<CliRun> {
  return runCliCaptured([...args, "--db", db]);
}

beforeEach(async () => {
  process.env.CANOPY_NO_DEMO = "1";
  fake = await startFakeOpenAiServer({ defaultText: "## Goal\nSummary." });
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-chat-"));
  db = path.join(dir, "library.db");
});

afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("canopy chat", () => {
  it("prints the reply, and says when an automatic compaction ran", async () => {
    const file = writeChainSession(dir, "s", [
      { role: "user", text: textOf(3000, "first") },
      { role: "assistant", text: textOf(3000, "answer") },
      { role: "user", text: textOf(3000, "second") },
      { role: "assistant", text: "ok", usage: { input: 9000, output: 10 } },
    ]);
    // The CLI says how to set a model with a command (the app's wording points at its Settings).
    expect((await cli("chat", file, "hello")).err).toBe(
      `canopy: error: No model configured (the offline summarizer cannot chat): canopy settings set model '{"baseUrl":"…/v1","id":"…","contextWindow":…}' (README: Summaries: model setup)\n`,
    );
    const model = {
      baseUrl: fake.baseUrl,
      id: "fake-model",
      contextWindow: 200_000,
      apiKeyEnv: "CANOPY_CLI_TEST_KEY",
    };
    expect((await cli("settings", "set", "model", JSON.stringify(model))).code).toBe(0);
    expect((await cli("settings", "set", "compaction.keepRecentTokens", "4000")).code).toBe(0);

    fake.enqueue({ type: "reply", text: "Hello back.", match: isChat });
    expect(await cli("chat", file, "hello", "there")).toEqual({ code: 0, out: "Hello back.\n", err: "" });
    const body = fake.requests.at(-1)?.body as { messages?: { content: unknown }[] } | undefined;
    const sent = body?.messages?.at(-1);
    expect(sent).toEqual({ role: "user", content: "hello there" });

    fake.enqueue(
      {
        type: "reply",
        text: "Big reply.",
        usage: { prompt_tokens: 190_000, completion_tokens: 5 },
        match: isChat,
      },
      { type: "reply", text: "Continuing.", match: isChat },
    );
    const run = await cli("chat", file, "go on");
    expect(run.code).toBe(0);
    expect(run.out).toBe("Big reply.\nContinuing.\n");
    expect(run.err).toMatch(
      /^automatic compaction \(threshold\)…\n\[compaction \w+: .*\]\n\[automatic prompt\] Continue if you have next steps/,
    );
    // The automatic prompt is shown as its text, not as JSON.
    expect(run.err).not.toContain('[{"type"');
  });

  it("says so when a reply holds reasoning only, instead of printing an empty line", async () => {
    const file = writeChainSession(dir, "t", [{ role: "user", text: "hi" }]);
    await cli("settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-model" }));
    fake.enqueue({ type: "reply", text: "", reasoning: "Thinking it over.", match: isChat });
    const run = await cli("chat", file, "hello");
    expect(run.code).toBe(0);
    expect(run.out).toBe("");
    expect(run.err).toMatch(/^\[reply \w+ holds reasoning only, no text\]\n$/);
  });

  it("prints a reply's text and says on stderr that its tool calls were not run", async () => {
    const file = writeChainSession(dir, "tools", [{ role: "user", text: "hi" }]);
    await cli("settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-model" }));
    fake.enqueue({
      type: "reply",
      text: "Let me check.",
      toolCalls: [
        { id: "call_1", name: "read", arguments: '{"path":"a.ts"}' },
        { id: "call_2", name: "read", arguments: '{"path":"b.ts"}' },
      ],
      finishReason: "tool_calls",
      match: isChat,
    });
    const run = await cli("chat", file, "look");
    expect(run.code).toBe(0);
    expect(run.out).toBe("Let me check.\n");
    expect(run.err).toMatch(
      /^\[reply \w+\] The model also asked to run read; Canopy runs no tools, so it was not run \(the calls are kept in the reply\)\.\n$/,
    );
    const json = await cli("chat", file, "again", "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ stopReason: "stop" });
    fake.enqueue({ type: "reply", text: "More.", toolCalls: [{ id: "c", name: "bash", arguments: "{}" }], match: isChat });
    const withJson = await cli("chat", file, "once more", "--json");
    expect(JSON.parse(withJson.out)).toMatchObject({ stopReason: "toolUse", toolCallsNotRun: ["bash"] });
  });

  it("fails with the endpoint's error in one line", async () => {
    const file = writeChainSession(dir, "e", [{ role: "user", text: "hi" }]);
    await cli("settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-model" }));
    fake.enqueue({
      type: "error",
      status: 404,
      body: { error: { message: "model 'fake-model' not found" } },
      match: isChat,
    });
    const run = await cli("chat", file, "hello");
    expect(run.code).toBe(1);
    expect(run.err).toBe("canopy: error: 404 model 'fake-model' not found\n");
    expect((await cli("chat", file)).code).toBe(2);
  });

  it("prints what a reply cut off part-way wrote, then fails saying it was cut off", async () => {
    const file = writeChainSession(dir, "cut", [{ role: "user", text: "hi" }]);
    const model = { baseUrl: fake.baseUrl, id: "fake-model", contextWindow: 200_000, stream: true };
    await cli("settings", "set", "model", JSON.stringify(model));
    await cli("settings", "set", "retry.enabled", "false");
    fake.enqueue({ type: "reply", chunks: ["The parser ", "reads both ", "dialects."], endAfterChunks: 2, chunkDelayMs: 30, match: isChat });
    expect(await cli("chat", file, "hello")).toEqual({
      code: 1,
      out: "The parser reads both \n",
      err: "canopy: error: Connection error: the endpoint ended the stream without a finish_reason — the reply was cut off; what it wrote so far is kept\n",
    });
  });

  // The retry policy reads the raw hint "(retry-after=1)"; the user read it as it came.
  it("a rate limit is said in words, with the wait it asked for, when retried and when it fails", async () => {
    const file = writeChainSession(dir, "rl", [{ role: "user", text: "hi" }]);
    await cli("settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-model" }));
    await cli("settings", "set", "retry.maxRetries", "1");
    await cli("settings", "set", "retry.baseDelayMs", "1");
    const limited = {
      type: "error" as const,
      status: 429,
      body: { error: { message: "Rate limit reached for fake-model" } },
      headers: { "retry-after": "1" },
      match: isChat,
    };
    fake.enqueue(limited, limited);
    const words = "The model's server is rate-limiting requests (429: Rate limit reached for fake-model); it asked to wait 1 s";
    expect(await cli("chat", file, "hello")).toEqual({
      code: 1,
      out: "",
      // Retried after the hint's 1 s, not the 1 ms backoff: the raw text was parsed.
      err: `the reply failed (${words}); retrying in 1.0 s (1/1)…\ncanopy: error: ${words}\n`,
    });
  });

  it("a branch summary the model rate-limits fails in words (navigate --summarize)", async () => {
    const file = writeChainSession(dir, "nav", [
      { role: "user", text: "first" },
      { role: "assistant", text: "answer" },
      { role: "user", text: "second" },
      { role: "assistant", text: "ok" },
    ]);
    await cli("settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-model" }));
    fake.enqueue({
      type: "error",
      status: 429,
      body: { error: { message: "Rate limit reached for fake-model" } },
      headers: { "retry-after": "20" },
    });
    // From the leaf e0000003 back to e0000001: e0000002 and e0000003 are summarized.
    const run = await cli("navigate", file, "e0000001", "--summarize");
    expect(run.err).toBe(
      "canopy: error: Branch summary failed: The model's server is rate-limiting requests (429: Rate limit reached for fake-model); it asked to wait 20 s\n",
    );
  });

  it("says on stderr when a failed reply is retried, and prints the reply that came", async () => {
    const file = writeChainSession(dir, "r", [{ role: "user", text: "hi" }]);
    await cli("settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-model" }));
    await cli("settings", "set", "retry.baseDelayMs", "100");
    fake.enqueue(
      { type: "error", status: 503, body: { error: { message: "Service Unavailable" } }, match: isChat },
      { type: "reply", text: "Back again.", match: isChat },
    );
    expect(await cli("chat", file, "hello")).toEqual({
      code: 0,
      out: "Back again.\n",
      err: "the reply failed (503 Service Unavailable); retrying in 0.1 s (1/3)…\n",
    });
  });
});

describe('an automatic compaction whose summary stopped at the output limit (finish_reason "length")', () => {
  // stderr says so with the shared cut-off sentence, `--json` carries it in autoCompaction.cutOff,
  // and the stored compaction is as before (no cutOff field).
  beforeEach(async () => {
    const model = { baseUrl: fake.baseUrl, id: "fake-model", contextWindow: 200_000 };
    expect((await cli("settings", "set", "model", JSON.stringify(model))).code).toBe(0);
    expect((await cli("settings", "set", "compaction.keepRecentTokens", "4000")).code).toBe(0);
    expect((await cli("settings", "set", "compaction.autoContinue", "false")).code).toBe(0);
  });

  function session(name: string): string {
    return writeChainSession(dir, name, [
      { role: "user", text: textOf(3000, "first") },
      { role: "assistant", text: textOf(3000, "answer") },
      { role: "user", text: textOf(3000, "second") },
      { role: "assistant", text: "ok", usage: { input: 9000, output: 10 } },
    ]);
  }

  function enqueueTurn(): void {
    fake.enqueue(
      {
        type: "reply",
        text: "Big reply.",
        usage: { prompt_tokens: 190_000, completion_tokens: 5 },
        match: isChat,
      },
      { type: "reply", text: "## Goal\nHalf a summ", finishReason: "length", match: isSummary },
    );
  }

  it("chat says on stderr that its automatic compaction's summary was cut off", async () => {
    const file = session("s");
    enqueueTurn();
    const run = await cli("chat", file, "go on");
    expect(run.code).toBe(0);
    expect(run.out).toBe("Big reply.\n");
    expect(run.err).toMatch(/^automatic compaction \(threshold\)…\n\[compaction \w+: .*\]\n/);
    expect(run.err).toMatch(
      /\nThe history summary was cut off at the output limit \(\d+ tokens\) and saved as it came; to get it whole, undo and compact again/,
    );
  });

  it("chat --json carries the cut-off in autoCompaction, and the stored compaction has none", async () => {
    const file = session("j");
    enqueueTurn();
    const run = await cli("chat", file, "go on", "--json");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.out) as { autoCompaction?: { entryId: string; cutOff?: unknown } };
    expect(result.autoCompaction?.cutOff).toEqual([{ purpose: "history", maxTokens: expect.any(Number) }]);
    const out = path.join(dir, "out.jsonl");
    const exported = await cli("export", file, "--out", out, "--force");
    expect(exported.code).toBe(0);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const stored = lines.find((line) => line.id === result.autoCompaction?.entryId);
    expect(stored?.type).toBe("compaction");
    expect(stored?.summary).toMatch(/^## Goal\nHalf a summ/);
    expect(Object.keys(stored ?? {})).not.toContain("cutOff");
  });

  it("chat says nothing of a cut-off when the summary finished", async () => {
    const file = session("f");
    fake.enqueue({
      type: "reply",
      text: "Big reply.",
      usage: { prompt_tokens: 190_000, completion_tokens: 5 },
      match: isChat,
    });
    const run = await cli("chat", file, "go on");
    expect(run.code).toBe(0);
    expect(run.err).not.toContain("cut off");
  });
});
