// Exports to a file (`session:export` with an outPath), the export's text (the desktop app's
// download) and browser mode's downloads (both spooled through such an export) of a long session
// are written by the import runner's thread, not the serving thread: another request is answered
// while one runs, and the file, text, result and failures are what the export on the calling
// thread (exportSessionToFile, exportSession) gives.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { EXPORT_FILE_TYPE, EXPORT_RESULT_HEADER } from "../../../core/api/contract.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { toApiError } from "../../../main/api/errors.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { exportSession, exportSessionToFile } from "../../../main/library/export.ts";
import { importPath } from "../../../main/library/import.ts";
import { IN_PLACE_EXPORT_ENTRIES } from "../../../main/library/import-runner.ts";
import { type BrowserServer, startBrowserServer } from "../../../main/server/index.ts";
import { generateSession } from "../../../bench/generate-session.ts";
import { makeTempDir } from "../store/helpers.ts";
import { postChannel } from "../../helpers/post-channel.ts";
import { serveWhile } from "../../helpers/serve-while.ts";

const ENTRIES = 6000;

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let api: Api;
let sessionId: string;
let out: string;

// One library for all: no test changes the session.
beforeAll(() => {
  tmp = makeTempDir("canopy-export-thread-");
  const file = path.join(tmp.dir, "agent", "long.jsonl");
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, generateSession(ENTRIES).text);
  // Old enough not to count as still being written (the live-folder guard is not what is tested).
  fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  ctx = createAppContext({
    dbPath: path.join(tmp.dir, "library.db"),
    seedDemo: false,
    loadUserHooks: false,
    importThread: true,
  });
  api = createApi(ctx);
  sessionId = importPath(ctx.db, file).files[0]?.sessionId as string;
  expect(
    ctx.db.prepare("SELECT entry_count FROM sessions WHERE id = ?").pluck().get(sessionId),
  ).toBeGreaterThan(IN_PLACE_EXPORT_ENTRIES);
});

beforeEach(() => {
  out = path.join(tmp.dir, "out");
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out);
});

afterAll(async () => {
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

describe("an export of a long session to a file", () => {
  it("is written on the runner's thread while this one answers; the file and result equal the export here", async () => {
    const target = path.join(out, "long.jsonl");
    let answer: Awaited<ReturnType<typeof api.call<"session:export">>> | undefined;
    const exporting = api.call("session:export", { sessionId, outPath: target }).then((result) => {
      answer = result;
    });
    const served = await serveWhile(api, () => answer !== undefined, "the export");
    await exporting;
    expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    const here = path.join(out, "here.jsonl");
    const old = exportSessionToFile(ctx.db, sessionId, here);
    expect(answer).toEqual({ ok: true, value: { ...old, path: target } });
    expect(fs.readFileSync(target).equals(fs.readFileSync(here))).toBe(true);
  });

  it("with options: the same file as the export here", async () => {
    const options = { withoutArchived: true, originals: true, leafId: null };
    const target = path.join(out, "options.jsonl");
    const answer = await api.call("session:export", { sessionId, outPath: target, ...options });
    const here = path.join(out, "here.jsonl");
    const { resumeEntryId, ...old } = exportSessionToFile(ctx.db, sessionId, here, options);
    expect(answer).toEqual({ ok: true, value: { ...old, path: target, resumeEntryId: expect.any(String) } });
    expect(typeof resumeEntryId).toBe("string");
    // The resume marker (a root for leaf null) has a new id and time in each export: the rest is equal.
    const withoutMarker = (file: string) => fs.readFileSync(file, "utf8").split("\n").slice(0, -2);
    expect(withoutMarker(target)).toEqual(withoutMarker(here));
  });

  it("a session of few but large entries (megabytes of tool output) is written on the runner's thread too", async () => {
    const file = path.join(tmp.dir, "agent", "few-large.jsonl");
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "few-large", timestamp: "t", cwd: "/w" }),
    ];
    for (let i = 0; i < 40; i++) {
      const message = { role: "user", content: `output ${i} `.padEnd(256 * 1024, "0123456789") };
      lines.push(
        JSON.stringify({
          type: "message",
          id: `m${i}`,
          parentId: i === 0 ? null : `m${i - 1}`,
          timestamp: "t",
          message,
        }),
      );
    }
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const id = importPath(ctx.db, file).files[0]?.sessionId as string;
    const target = path.join(out, "few-large.jsonl");
    let answer: Awaited<ReturnType<typeof api.call<"session:export">>> | undefined;
    const exporting = api.call("session:export", { sessionId: id, outPath: target }).then((result) => {
      answer = result;
    });
    const served = await serveWhile(api, () => answer !== undefined, "the export");
    await exporting;
    expect(served.sawRunner).toBe(true);
    const here = path.join(out, "here.jsonl");
    expect(answer).toEqual({ ok: true, value: { ...exportSessionToFile(ctx.db, id, here), path: target } });
    expect(fs.readFileSync(target).equals(fs.readFileSync(here))).toBe(true);
  });

  it("fails as the export here does, in the same one line", async () => {
    const cases = [
      { leafId: "no-such-entry", outPath: path.join(out, "a.jsonl") },
      // A folder is refused.
      { outPath: out },
    ];
    for (const input of cases) {
      const answer = await api.call("session:export", { sessionId, ...input });
      let here: unknown = null;
      try {
        exportSessionToFile(ctx.db, sessionId, input.outPath, input.leafId ? { leafId: input.leafId } : {});
      } catch (error) {
        here = error;
      }
      expect(here).not.toBeNull();
      expect(answer).toEqual({ ok: false, error: toApiError(here) });
      if (!answer.ok) expect(answer.error.message).not.toContain("\n");
    }
  });
});

describe("the export's text (the desktop app's download) of a long session", () => {
  it("is spooled on the runner's thread and read back while this one answers; the same text and result, no spool left", async () => {
    let answer: Awaited<ReturnType<typeof api.call<"session:export">>> | undefined;
    const exporting = api.call("session:export", { sessionId }).then((result) => {
      answer = result;
    });
    const served = await serveWhile(api, () => answer !== undefined, "the export");
    await exporting;
    expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    expect(answer).toEqual({ ok: true, value: exportSession(ctx.db, sessionId) });
    expect(fs.readdirSync(path.join(tmp.dir, "export-downloads"))).toEqual([]);
  });

  it("a bad leaf fails as the export here does", async () => {
    const answer = await api.call("session:export", { sessionId, leafId: "no-such-entry" });
    let here: unknown = null;
    try {
      exportSession(ctx.db, sessionId, { leafId: "no-such-entry" });
    } catch (error) {
      here = error;
    }
    expect(answer).toEqual({ ok: false, error: toApiError(here) });
    const spools = path.join(tmp.dir, "export-downloads");
    expect(fs.existsSync(spools) ? fs.readdirSync(spools) : []).toEqual([]);
  });
});

describe("browser mode's download of a long session", () => {
  let server: BrowserServer;
  beforeEach(async () => {
    server = await startBrowserServer({ api, rendererDir: tmp.dir });
  });
  afterEach(() => server.close());

  const post = (channel: string, input: unknown, accept?: string) =>
    postChannel(server, channel, JSON.stringify(input), accept);

  it("is spooled on the runner's thread while the server answers another request; the same bytes", async () => {
    let response: Response | undefined;
    const downloading = post("session:export", { sessionId }, EXPORT_FILE_TYPE).then((r) => {
      response = r;
    });
    const served = await serveWhile(
      api,
      () => response !== undefined,
      "the download",
      async () => ((await (await post("library:list", {})).json()) as { ok: boolean }).ok,
    );
    await downloading;
    expect(served).toEqual({ sawRunner: true, answeredMeanwhile: true });
    const body = Buffer.from(await (response as Response).arrayBuffer());
    const here = path.join(out, "here.jsonl");
    const old = exportSessionToFile(ctx.db, sessionId, here);
    expect(body.equals(fs.readFileSync(here))).toBe(true);
    const result = JSON.parse(decodeURIComponent(response?.headers.get(EXPORT_RESULT_HEADER) ?? ""));
    const { path: _path, ...rest } = old;
    expect(result).toEqual(rest);
  });
});

describe("Canopy closing while an export is written on the runner's thread", () => {
  it("the export fails in one line", async () => {
    // The thread has started (one that never started exports in place instead).
    expect((await api.call("session:export", { sessionId, outPath: path.join(out, "warm.jsonl") })).ok).toBe(
      true,
    );
    const exporting = api.call("session:export", { sessionId, outPath: path.join(out, "closing.jsonl") });
    await vi.waitFor(() => expect(ctx.imports.busy).toBe(true), { timeout: 10_000, interval: 1 });
    await ctx.imports.close();
    expect(await exporting).toEqual({
      ok: false,
      error: { code: "internal", message: "The export stopped: Canopy is closing" },
    });
  });
});
