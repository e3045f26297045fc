// Hostile input (Foundation): entries nested thousands of levels deep (a tool call's arguments, a
// tool result's details, a custom entry's data, a compaction's details) go through the CLI, the
// API, a chat turn and a compaction like any other, where JSON.stringify's recursion overflowed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toJson } from "../../core/text/json-deep.ts";
import { startBrowserMode } from "../../main/serve.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { closeServedHarness, type ServedHarness, startServedHarness } from "./pipelines/harness.ts";
import { deepDetailsSessionText } from "./pipelines/sessions.ts";

const ts = "2026-01-01T00:00:00Z";
const deepArray = (d: number) => `${"[".repeat(d)}0${"]".repeat(d)}`;
const deepObject = (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`;
const usage = '"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2}';

/** A session whose tool call arguments, tool result details, custom data and compaction details nest `depth` deep. */
function deepSession(depth: number): string {
  return [
    `{"type":"session","version":3,"id":"deep","timestamp":"${ts}","cwd":"/x"}`,
    `{"type":"message","id":"u1","parentId":null,"timestamp":"${ts}","message":{"role":"user","content":"hello deepword"}}`,
    `{"type":"message","id":"a1","parentId":"u1","timestamp":"${ts}","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":${deepObject(depth)}}],"provider":"p","model":"m",${usage},"stopReason":"toolUse","timestamp":1}}`,
    `{"type":"message","id":"t1","parentId":"a1","timestamp":"${ts}","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"output"}],"details":${deepArray(depth)},"isError":false,"timestamp":2}}`,
    `{"type":"custom","id":"cu1","parentId":"t1","timestamp":"${ts}","customType":"x","data":${deepObject(depth)}}`,
    `{"type":"compaction","id":"k1","parentId":"cu1","timestamp":"${ts}","summary":"sum","firstKeptEntryId":"u1","tokensBefore":100,"details":${deepObject(depth)}}`,
    `{"type":"message","id":"u2","parentId":"k1","timestamp":"${ts}","message":{"role":"user","content":"last"}}`,
  ].join("\n").concat("\n");
}

describe("toJson writes any depth as JSON.stringify would", () => {
  it("gives JSON.stringify's text for values nested past its recursion, indented or not", () => {
    const inner = { a: 1, b: undefined, c: [{ d: null }, [], undefined, "x\"\n"], e: {}, f: new Date(0), g: Number.NaN };
    let value: unknown = inner;
    for (let i = 0; i < 20_000; i++) value = [value];
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(toJson(value)).toBe(`${"[".repeat(20_000)}${JSON.stringify(inner)}${"]".repeat(20_000)}`);
    let small: unknown = inner;
    for (let i = 0; i < 3; i++) small = [small];
    let sixThousand: unknown = inner;
    for (let i = 0; i < 6_000; i++) sixThousand = [sixThousand];
    const indented = toJson(sixThousand, 2);
    expect(indented.replace(/\s+/g, "")).toBe(toJson(sixThousand).replace(/\s+/g, ""));
    expect(indented.split("\n")[6_000]).toBe(`${"  ".repeat(6_000)}{`);
    expect(toJson(small, 2)).toBe(JSON.stringify(small, null, 2));
  });

  it("writes a value too deep to indent within a string's length compactly instead of failing", () => {
    const value = JSON.parse(deepArray(100_000));
    expect(toJson(value, 2)).toBe(deepArray(100_000));
  });
});

describe("a session nested thousands of levels deep, through the CLI", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-deep-json-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([5_000, 100_000])("context, context --json, --request, compact --dry-run, fork and export work at depth %i", async (depth) => {
    const file = path.join(dir, "deep.jsonl");
    const text = deepSession(depth);
    fs.writeFileSync(file, text);
    const db = ["--db", path.join(dir, "library.db")];
    expect((await runCliCaptured(["import", file, ...db])).code).toBe(0);
    const context = await runCliCaptured(["context", "deep", ...db]);
    expect(context.err).toBe("");
    expect(context.out).toContain("hello deepword");
    const json = await runCliCaptured(["context", "deep", "--json", ...db]);
    expect(json.err).toBe("");
    const messages = JSON.parse(json.out) as { role: string; content: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "toolResult", "user"]);
    expect(JSON.stringify(messages[0])).toContain("sum");
    const request = await runCliCaptured(["context", "deep", "--json", "--request", ...db]);
    expect(request.err).toBe("");
    expect(request.code).toBe(0);
    const plan = await runCliCaptured(["compact", "deep", "--dry-run", ...db]);
    expect(plan.err).toBe("");
    expect(plan.code).toBe(0);
    const fork = await runCliCaptured(["fork", "deep", "a1", ...db]);
    expect(fork.err).toBe("");
    expect(fork.code).toBe(0);
    const out = path.join(dir, "out.jsonl");
    expect((await runCliCaptured(["export", "deep", "--out", out, "--force", ...db])).code).toBe(0);
    expect(fs.readFileSync(out, "utf8")).toBe(text);
  });
});

describe("a session nested thousands of levels deep, with a model", () => {
  let served: ServedHarness;
  beforeEach(async () => {
    served = await startServedHarness({ model: true });
  });
  afterEach(async () => closeServedHarness(served));

  it("takes a chat turn, sending the deep tool call arguments as they are, and compacts", async () => {
    const { h, server } = served;
    const file = path.join(h.dir, "deep.jsonl");
    fs.writeFileSync(file, deepSession(5_000));
    const sessionId = (await h.call("library:import", { path: file })).files[0]?.sessionId as string;
    const turn = await h.call("chat:send", { sessionId, text: "go on" });
    expect(turn).toBeTruthy();
    const body = server.requests.at(-1)?.body as { messages: { tool_calls?: { function: { arguments: string } }[] }[] };
    const args = body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.arguments);
    expect(args).toEqual([deepObject(5_000)]);
    expect((await h.call("compaction:run", { sessionId })).shortSummary).toBeTruthy();
    expect((await h.call("session:tree", { sessionId })).nodes.length).toBeGreaterThan(6);
  });

  it("edits a user message whose content nests 5,000 deep, keeping the deep part in the copy", async () => {
    const { h } = served;
    const text = deepSession(5_000).replace(
      '"content":"hello deepword"',
      `"content":[{"type":"text","text":"hello deepword","extra":${deepObject(5_000)}}]`,
    );
    const file = path.join(h.dir, "edit.jsonl");
    fs.writeFileSync(file, text);
    const sessionId = (await h.call("library:import", { path: file })).files[0]?.sessionId as string;
    const edited = await h.call("edits:edit-message", { sessionId, entryId: "u1", text: "hello again" });
    const copyId = edited.entryId as string;
    const exported = (await h.call("session:export", { sessionId })).text ?? "";
    const copyLine = exported.split("\n").find((line) => line.includes(`"id":"${copyId}"`)) ?? "";
    expect(copyLine).toContain("hello again");
    expect(copyLine).toContain(deepObject(5_000));
  });

  it("summarizes the branch it leaves and prunes, then restores, a tool result nested 5,000 deep", async () => {
    const { h } = served;
    const deep = deepArray(5_000);
    const text = deepDetailsSessionText(deep);
    const path1 = path.join(h.dir, "prune.jsonl");
    fs.writeFileSync(path1, text);
    const sessionId = (await h.call("library:import", { path: path1 })).files[0]?.sessionId as string;
    expect(
      (await h.call("pruning:preview", { sessionId, listCandidates: true })).candidates?.map((c) => c.entryId),
    ).toEqual(["t1", "t2"]);
    expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBe(2);
    expect((await h.call("pruning:restore", { sessionId })).prunedCount).toBe(2);
    const navigated = await h.call("navigation:navigate", { sessionId, targetId: "u1", summarize: true });
    expect(navigated.summaryEntryId).toBeTruthy();
    const detail = await h.call("session:get", { sessionId });
    expect(detail.entries.length).toBe(12);
  });
});

describe("a session nested 100,000 deep, in browser mode", () => {
  it("is answered over HTTP (session:get, context:get) where the response failed to serialise", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-deep-serve-"));
    const renderer = path.join(dir, "renderer");
    fs.mkdirSync(renderer);
    fs.writeFileSync(path.join(renderer, "index.html"), "<!doctype html><title>Canopy</title>");
    const mode = await startBrowserMode({ dbPath: path.join(dir, "library.db"), rendererDir: renderer, seedDemo: false });
    try {
      const post = async (channel: string, body: unknown) => {
        const response = await fetch(`http://127.0.0.1:${mode.port}/api/${channel}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-canopy-token": mode.token },
          body: JSON.stringify(body),
        });
        return JSON.parse(await response.text()) as { ok: boolean; value?: unknown; error?: unknown };
      };
      const file = path.join(dir, "deep.jsonl");
      fs.writeFileSync(file, deepSession(100_000));
      expect((await post("library:import", { path: file })).ok).toBe(true);
      const detail = await post("session:get", { sessionId: "deep" });
      expect(detail.error).toBeUndefined();
      expect((detail.value as { entries: unknown[] }).entries).toHaveLength(6);
      expect((await post("context:get", { sessionId: "deep" })).ok).toBe(true);
    } finally {
      await mode.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
