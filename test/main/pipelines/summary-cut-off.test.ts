// A compaction or branch summary whose model reply stopped at the output limit (finish_reason
// "length") is saved as it came, and the run's result says so (which part, at what limit) —
// the pipelines' DTOs and the CLI's compact / navigate --summarize (stderr, and --json).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Events } from "../../../core/api/contract.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { type FakeServer, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { chatBody, chatRequests, closeServedHarness, type Harness, removeDir, startServedHarness } from "./harness.ts";
import { chainSession, plainSession } from "./sessions.ts";

process.env.CANOPY_NO_DEMO = "1";

describe("pipelines", () => {
  let server: FakeServer;
  let h: Harness;

  beforeEach(async () => {
    ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
  });
  afterEach(() => closeServedHarness({ server, h }));

  it("a compaction whose history reply hit the limit is saved as it came and says so", async () => {
    const ended: Events["job:ended"][] = [];
    h.api.ctx.events.subscribe((name, payload) => {
      if (name === "job:ended") ended.push(payload as Events["job:ended"]);
    });
    const sessionId = await h.importSession(plainSession());
    server.enqueue({ type: "reply", text: "## Goal\nHalf a summ", finishReason: "length" });
    server.enqueue({ type: "reply", text: "Short.", finishReason: "stop" });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.cutOff).toEqual([{ purpose: "history", maxTokens: Math.floor(0.8 * 16384) }]);
    expect(chatBody(chatRequests(server)[0]).max_tokens).toBe(Math.floor(0.8 * 16384));
    expect(result.summary.startsWith("## Goal\nHalf a summ")).toBe(true);
    const detail = await h.call("session:get", { sessionId });
    const stored = detail.entries.find((e) => e.entry.id === result.entryId)?.entry as Record<string, unknown>;
    expect(stored.summary).toBe(result.summary);
    expect(Object.keys(stored)).not.toContain("cutOff");
    // Other windows hear it with the job's end.
    expect(ended.at(-1)).toMatchObject({ outcome: "done", entryId: result.entryId, cutOff: result.cutOff });
  });

  it("a compaction whose replies all finished has no cut-off", async () => {
    const sessionId = await h.importSession(plainSession());
    server.enqueue({ type: "reply", text: "## Goal\nAll of it." });
    server.enqueue({ type: "reply", text: "Short." });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.cutOff).toBeUndefined();
  });

  it("a branch summary whose reply hit the limit is saved and says so", async () => {
    const ended: Events["job:ended"][] = [];
    h.api.ctx.events.subscribe((name, payload) => {
      if (name === "job:ended") ended.push(payload as Events["job:ended"]);
    });
    const sessionId = await h.importSession(chainSession(4));
    server.enqueue({ type: "reply", text: "## Goal\nHalf a summ", finishReason: "length" });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "u1", summarize: true });
    expect(result.summaryEntryId).not.toBeNull();
    expect(result.cutOff).toEqual([{ purpose: "branch", maxTokens: 2048 }]);
    expect(ended.at(-1)).toMatchObject({ outcome: "done", entryId: result.summaryEntryId, cutOff: result.cutOff });
  });
});

describe("CLI", () => {
  let dir: string;
  let db: string;
  let fake: FakeServer;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-cut-off-"));
    db = path.join(dir, "library.db");
    fake = await startFakeOpenAiServer();
    const model = JSON.stringify({ baseUrl: fake.baseUrl, id: "fake-cut" });
    expect((await runCliCaptured(["settings", "set", "model", model, "--db", db])).code).toBe(0);
  });
  afterEach(async () => {
    await fake.close();
    removeDir(dir);
  });

  function write(name: string, text: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  }

  it("compact says on stderr that the summary was cut off", async () => {
    fake.enqueue({ type: "reply", text: "Half a summ", finishReason: "length" });
    fake.enqueue({ type: "reply", text: "Short." });
    const file = write("plain.jsonl", plainSession().text());
    const run = await runCliCaptured(["compact", file, "--keep-recent-tokens", "1500", "--db", db]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Compacted: entry/);
    expect(run.err).toMatch(/^The history summary was cut off at the output limit \(13107 tokens\)/);
  });

  it("compact --json carries the cut-off in its result object", async () => {
    const file = write("plain.jsonl", plainSession().text());
    fake.enqueue({ type: "reply", text: "Half again", finishReason: "length" });
    fake.enqueue({ type: "reply", text: "Short." });
    const json = await runCliCaptured(["compact", file, "--keep-recent-tokens", "1500", "--json", "--db", db]);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.out) as { cutOff?: unknown }).cutOff).toEqual([{ purpose: "history", maxTokens: 13107 }]);
  });

  it("navigate --summarize says on stderr that the branch summary was cut off", async () => {
    fake.enqueue({ type: "reply", text: "Half a summ", finishReason: "length" });
    const file = write("chain.jsonl", chainSession(4).text());
    const run = await runCliCaptured(["navigate", file, "u1", "--summarize", "--db", db]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/cut off at the output limit \(2048 tokens\)/);
  });
});
