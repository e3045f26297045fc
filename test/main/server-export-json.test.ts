// Browser mode's and the desktop app's (IPC) JSON answer to a text export (`session:export`
// without outPath, as an API caller asks): the same bytes as the contract's JSON answer, made a
// slice per turn so the serving thread keeps running (a timer on it fires after at most 200 ms of
// its work while a 48 MB text is answered).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJson } from "../../core/text/json-deep.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { toApiError } from "../../main/api/errors.ts";
import type { AppContext } from "../../main/api/types.ts";
import { createAppContext } from "../../main/app-context.ts";
import { exportSession } from "../../main/library/export.ts";
import { answerRequest } from "../../main/ipc.ts";
import { importPath } from "../../main/library/import.ts";
import { type BrowserServer, startBrowserServer } from "../../main/server/index.ts";
import { makeTempDir } from "./store/helpers.ts";

const ENTRIES = 48;
const ENTRY_CHARS = 1024 * 1024;

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let api: Api;
let server: BrowserServer;
let sessionId: string;

/** A session of ENTRIES messages of ~1 MB each: quotes, newlines, accents and emoji to escape and split. */
function writeLargeSession(file: string): void {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "big-text", timestamp: "t", cwd: "/w" })];
  // Odd lengths so that chunk boundaries fall inside multi-byte characters and surrogate pairs.
  const piece = 'say "é" then\n\ttab 🌲 \\ back ';
  for (let i = 0; i < ENTRIES; i++) {
    const content = `output ${i} `.padEnd(ENTRY_CHARS + i * 7, piece);
    lines.push(
      JSON.stringify({
        type: "message",
        id: `m${i}`,
        parentId: i === 0 ? null : `m${i - 1}`,
        timestamp: "t",
        message: { role: "user", content },
      }),
    );
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  // Old enough not to count as still being written (the live-folder guard is not what is tested).
  fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
}

beforeAll(async () => {
  tmp = makeTempDir("canopy-export-json-");
  const file = path.join(tmp.dir, "agent", "big.jsonl");
  fs.mkdirSync(path.dirname(file));
  writeLargeSession(file);
  ctx = createAppContext({
    dbPath: path.join(tmp.dir, "library.db"),
    seedDemo: false,
    loadUserHooks: false,
    importThread: true,
  });
  api = createApi(ctx);
  sessionId = importPath(ctx.db, file).files[0]?.sessionId as string;
  server = await startBrowserServer({ api, rendererDir: tmp.dir });
});

afterAll(async () => {
  await server.close();
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

/**
 * POSTs a text export on a connection of its own: the tests compute the expected export here for
 * seconds between requests, longer than the server keeps an idle connection (5 s), and fetch's
 * pool could reuse one the server is closing just then (ECONNRESET in CI).
 */
const post = (input: unknown) =>
  new Promise<http.IncomingMessage>((resolve, reject) => {
    const body = JSON.stringify(input);
    const request = http.request(
      `${server.url.split("?")[0]}api/session:export`,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-canopy-token": server.token,
        },
      },
      resolve,
    );
    request.on("error", reject);
    request.end(body);
  });

/** The export spools left behind (none may be: each is removed once read). */
const spools = () => {
  const dir = path.join(tmp.dir, "export-downloads");
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

/** This thread's CPU time in ms (not the wall clock: other processes on the machine do not count). */
function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/**
 * The answer's bytes, and the most CPU time this (the serving) thread spent between two ticks of a
 * 5 ms timer meanwhile: the longest stretch of work that kept the timer, and any request, waiting.
 */
async function answerWithGaps(input: unknown): Promise<{ body: Buffer; longestGapMs: number }> {
  let last = threadCpuMs();
  let longestGapMs = 0;
  const tick = () => {
    const now = threadCpuMs();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  };
  const timer = setInterval(tick, 5);
  try {
    const response = await post(input);
    const chunks: Buffer[] = [];
    // Read as bytes: decoding the whole answer into one string would hold this thread itself.
    for await (const chunk of response) chunks.push(chunk as Buffer);
    tick();
    return { body: Buffer.concat(chunks), longestGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe("a text export over HTTP (the API's session:export without outPath)", () => {
  it("is the contract's JSON answer, byte for byte, and the serving thread's timer fires after at most 200 ms of its work", async () => {
    const { body, longestGapMs } = await answerWithGaps({ sessionId });
    const expected = Buffer.from(toJson({ ok: true, value: exportSession(ctx.db, sessionId) }));
    expect(body.length).toBeGreaterThan(ENTRIES * ENTRY_CHARS);
    expect(body.equals(expected)).toBe(true);
    expect(longestGapMs).toBeLessThan(200);
    expect(spools()).toEqual([]);
  }, 120_000);

  it("with options and a resume marker: the same fields as the export here", async () => {
    const { body } = await answerWithGaps({ sessionId, leafId: "m3", withoutArchived: true });
    const answer = JSON.parse(body.toString("utf8")) as { ok: true; value: Record<string, unknown> };
    const here = exportSession(ctx.db, sessionId, { leafId: "m3", withoutArchived: true });
    expect(Object.keys(answer.value)).toEqual(Object.keys(here));
    // The marker has a new id and time in each export: the rest of the text is equal.
    const withoutMarker = (text: unknown) => String(text).split("\n").slice(0, -2);
    expect(withoutMarker(answer.value.text)).toEqual(withoutMarker(here.text));
    expect({ ...answer.value, text: "", resumeEntryId: "" }).toEqual({
      ...here,
      text: "",
      resumeEntryId: "",
    });
  }, 120_000);

  it("a bad leaf fails as the export here does, and leaves no spool", async () => {
    const { body } = await answerWithGaps({ sessionId, leafId: "no-such-entry" });
    let here: unknown = null;
    try {
      exportSession(ctx.db, sessionId, { leafId: "no-such-entry" });
    } catch (error) {
      here = error;
    }
    expect(JSON.parse(body.toString("utf8"))).toEqual({ ok: false, error: toApiError(here) });
    expect(spools()).toEqual([]);
  });

  it("over the desktop app's IPC: the same text, and the serving thread's timer fires after at most 200 ms of its work", async () => {
    let last = threadCpuMs();
    let longestGapMs = 0;
    const tick = () => {
      const now = threadCpuMs();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
    };
    const timer = setInterval(tick, 5);
    let answer: string;
    try {
      answer = await answerRequest(api, "session:export", JSON.stringify({ sessionId }));
      tick();
    } finally {
      clearInterval(timer);
    }
    // Electron flattens the joined text as it sends it (not measured here: outside Canopy's code).
    expect(answer).toBe(toJson({ ok: true, value: exportSession(ctx.db, sessionId) }));
    expect(longestGapMs).toBeLessThan(200);
    expect(spools()).toEqual([]);
  }, 120_000);
});
