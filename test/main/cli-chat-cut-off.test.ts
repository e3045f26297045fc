// `canopy chat` whose automatic compaction's summary stopped at the output limit (finish_reason
// "length"): stderr says so with the shared cut-off sentence, and `--json` carries it in
// `autoCompaction.cutOff`; the stored compaction is as before (no cutOff field).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
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
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-chat-cut-"));
  db = path.join(dir, "library.db");
  const model = { baseUrl: fake.baseUrl, id: "fake-model", contextWindow: 200_000 };
  expect((await cli("settings", "set", "model", JSON.stringify(model))).code).toBe(0);
  expect((await cli("settings", "set", "compaction.keepRecentTokens", "4000")).code).toBe(0);
  expect((await cli("settings", "set", "compaction.autoContinue", "false")).code).toBe(0);
});

afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
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
