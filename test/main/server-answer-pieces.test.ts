// Browser mode's JSON answers are made an item of their lists at a time (json-pieces.ts) and
// written from buffers (the desktop app's IPC answers are made so and joined), not as one JSON.stringify of the whole (a 100k-entry session:get spent
// more time there than anywhere): the bytes are toJson's of the in-process answer (the oracle), for
// the shared fixtures, a generated long session and entries stored in odd but valid JSON.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../bench/generate-session.ts";
import { toJson } from "../../core/text/json-deep.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import type { AppContext } from "../../main/api/types.ts";
import { createAppContext } from "../../main/app-context.ts";
import { answerRequest } from "../../main/ipc.ts";
import { importPath } from "../../main/library/import.ts";
import { type BrowserServer, startBrowserServer } from "../../main/server/index.ts";
import { postChannel } from "../helpers/post-channel.ts";
import { fixturesDir } from "../helpers/fixtures.ts";
import { makeTempDir } from "./store/helpers.ts";

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let api: Api;
let server: BrowserServer;
const sessions: { name: string; id: string }[] = [];
let longId = "";

const ts = "2026-01-01T00:00:00.000Z";

/** Lines as an agent or an editor may write them: spaces, escaped slashes, integer-like and repeated keys, 1.0. */
function oddSession(): string {
  return [
    `{"type":"session","version":3,"id":"odd","timestamp":"${ts}","cwd":"/w"}`,
    `{ "type" : "message", "id":"u1", "parentId":null, "timestamp":"${ts}", "message":{"role":"user","content":"a\\/b \\u00e9 \\ud83c\\udf32 \\u0007"} }`,
    `{"type":"message","id":"a1","parentId":"u1","timestamp":"${ts}","message":{"role":"assistant","content":[{"type":"text","text":"ok","2":"two","1":"one"}],"provider":"p","model":"m","usage":{"input":1.0,"output":1e0,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"stop","timestamp":1,"timestamp":2}}`,
    "this line is not JSON",
    `{"type":"label","id":"l1","parentId":"a1","timestamp":"${ts}","targetId":"a1","label":"odd one"}`,
  ].join("\n");
}

beforeAll(async () => {
  tmp = makeTempDir("canopy-answer-pieces-");
  const agent = path.join(tmp.dir, "agent");
  fs.mkdirSync(agent);
  for (const name of fs.readdirSync(fixturesDir()).filter((file) => file.endsWith(".jsonl"))) {
    fs.copyFileSync(path.join(fixturesDir(), name), path.join(agent, name));
  }
  fs.writeFileSync(path.join(agent, "odd.jsonl"), `${oddSession()}\n`);
  fs.writeFileSync(path.join(agent, "long.jsonl"), generateSession(3000).text);
  ctx = createAppContext({ dbPath: path.join(tmp.dir, "library.db"), seedDemo: false, loadUserHooks: false });
  api = createApi(ctx);
  for (const file of importPath(ctx.db, agent).files) {
    if (file.sessionId) sessions.push({ name: path.basename(file.path), id: file.sessionId });
  }
  longId = sessions.find((s) => s.name === "long.jsonl")?.id ?? "";
  server = await startBrowserServer({ api, rendererDir: tmp.dir });
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await server.close();
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

/** What `run` gives, and the longest text a JSON.stringify call made meanwhile. */
async function longestStringify<T>(run: () => Promise<T>): Promise<{ result: T; longest: number }> {
  const stringify = JSON.stringify;
  let longest = 0;
  vi.spyOn(JSON, "stringify").mockImplementation(((value: unknown, replacer: never, indent: never) => {
    const text = stringify(value, replacer, indent);
    longest = Math.max(longest, text?.length ?? 0);
    return text;
  }) as typeof JSON.stringify);
  try {
    const result = await run();
    return { result, longest };
  } finally {
    vi.restoreAllMocks();
  }
}

async function httpAnswer(channel: string, input: unknown): Promise<Buffer> {
  const response = await postChannel(server, channel, JSON.stringify(input));
  return Buffer.from(await response.arrayBuffer());
}

describe("browser mode's JSON answers, made a list item at a time", () => {
  it("are toJson's bytes of the in-process answer (session:get, session:tree, context:get, library:list)", async () => {
    expect(sessions.map((s) => s.name)).toEqual(
      expect.arrayContaining(["odd.jsonl", "long.jsonl", "tree-03.jsonl"]),
    );
    expect(longId).not.toBe("");
    for (const { name, id } of sessions) {
      for (const [channel, input] of [
        ["session:get", { sessionId: id }],
        ["session:tree", { sessionId: id }],
        ["context:get", { sessionId: id }],
      ] as const) {
        const expected = Buffer.from(toJson(await api.call(channel, input)));
        const got = await httpAnswer(channel, input);
        expect(got.equals(expected), `${channel} of ${name}`).toBe(true);
      }
    }
    const list = await httpAnswer("library:list", {});
    expect(list.equals(Buffer.from(toJson(await api.call("library:list", {}))))).toBe(true);
    const failure = await httpAnswer("session:get", { sessionId: "no-such-session" });
    expect(
      failure.equals(Buffer.from(toJson(await api.call("session:get", { sessionId: "no-such-session" })))),
    ).toBe(true);
  });

  it("a long session:get is never one JSON.stringify of the whole answer", async () => {
    const { result: got, longest } = await longestStringify(() =>
      httpAnswer("session:get", { sessionId: longId }),
    );
    expect(got.length).toBeGreaterThan(1_000_000);
    expect(longest).toBeLessThan(got.length / 100);
  });

  it("the desktop app's IPC answer is the same text, also never one JSON.stringify of the whole", async () => {
    const input = JSON.stringify({ sessionId: longId });
    const { result: answer, longest } = await longestStringify(() =>
      answerRequest(api, "session:get", input),
    );
    expect(answer).toBe(toJson(await api.call("session:get", { sessionId: longId })));
    expect(longest).toBeLessThan(answer.length / 100);
  });
});
