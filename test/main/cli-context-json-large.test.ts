// `canopy context --json` of an LLM view whose JSON is longer than one string holds (~512 MB): the
// same text as toJson(messages, 2), written a message at a time, so it is printed whole; one message
// too long by itself fails in one line saying what to do, with nothing on stdout. A real 512 MB view
// takes minutes to import, so V8's RangeError is injected where it is raised: JSON.stringify throws
// it for any text holding the markers (both: the whole view; one: that message alone).
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, afterAll, describe, expect, it, vi } from "vitest";
import { toJson } from "../../core/text/json-deep.ts";
import { createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { makeTempDir } from "./store/helpers.ts";

const FIRST = "FIRST-HUGE-OUTPUT";
const SECOND = "SECOND-HUGE-OUTPUT";
const ts = "2026-01-01T00:00:00.000Z";

let tmp: { dir: string; cleanup(): void };
let file: string;
let db: string;

beforeAll(() => {
  tmp = makeTempDir("canopy-context-json-");
  file = path.join(tmp.dir, "big.jsonl");
  db = path.join(tmp.dir, "cli.db");
  const lines = [
    { type: "session", version: 3, id: "big-view", timestamp: ts, cwd: "/w" },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: ts,
      message: { role: "user", content: `read it\n${FIRST}` },
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: ts,
      message: {
        role: "assistant",
        content: [{ type: "text", text: `it says "${SECOND}"` }],
        provider: "p",
        model: "m",
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
        stopReason: "stop",
        timestamp: 1,
      },
    },
  ];
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(() => tmp.cleanup());

const stringify = JSON.stringify;

/** JSON.stringify throws V8's RangeError for a text holding every one of `markers`, as past the limit. */
function tooLongWith(...markers: string[]): void {
  vi.spyOn(JSON, "stringify").mockImplementation(((value: unknown, replacer: never, indent: never) => {
    const text = stringify(value, replacer, indent);
    if (text !== undefined && markers.every((marker) => text.includes(marker))) {
      throw new RangeError("Invalid string length");
    }
    return text;
  }) as typeof JSON.stringify);
}

/** The LLM view's messages as the API gives them (blob images loaded, as --json asks). */
async function viewMessages(): Promise<unknown[]> {
  const ctx = createAppContext({ dbPath: db, seedDemo: false, loadUserHooks: false });
  try {
    const sessionId = ctx.db
      .prepare("SELECT id FROM sessions WHERE source_path = ?")
      .pluck()
      .get(fs.realpathSync(file)) as string;
    const view = await createApi(ctx).call("context:get", { sessionId, blobImages: true });
    if (!view.ok) throw new Error(view.error.message);
    return view.value.messages;
  } finally {
    ctx.db.close();
  }
}

describe("canopy context --json of a view too long for one string", () => {
  it("prints toJson(messages, 2) whole, a message at a time", async () => {
    tooLongWith(FIRST, SECOND);
    const run = await runCliCaptured(["context", file, "--json", "--db", db]);
    vi.restoreAllMocks();
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const messages = await viewMessages();
    expect(toJson(messages)).toContain(FIRST);
    expect(toJson(messages)).toContain(SECOND);
    expect(run.out).toBe(`${toJson(messages, 2)}\n`);
  });

  it("one message too long by itself: one line saying what to do, nothing on stdout", async () => {
    tooLongWith(FIRST);
    const run = await runCliCaptured(["context", file, "--json", "--db", db]);
    vi.restoreAllMocks();
    expect(run).toEqual({
      code: 1,
      out: "",
      err: "canopy: error: a message of the LLM view is longer than the longest text JavaScript can hold (about 512 MB) as JSON: export the session with `canopy export <session> --out <file>` (written as it is read), or ask for an earlier leaf (--leaf)\n",
    });
  });

  it("an empty view and --request print as before", async () => {
    const run = await runCliCaptured(["context", file, "--json", "--leaf", "u1", "--request", "--db", db]);
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.out) as unknown[];
    expect(run.out).toBe(`${stringify(parsed, null, 2)}\n`);
  });
});
