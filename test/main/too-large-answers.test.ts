// An answer longer than one JavaScript string holds (~512 MB of JSON) is one clear line saying what
// was too big and what to ask for instead (code "too_large"), on every edge: browser mode's HTTP
// (where the thrown error stopped the server), the desktop app's IPC, and the export's text in
// process; nothing is half-written (no spool left). A library holding such a session takes minutes
// and gigabytes to build, so V8's own RangeError is raised where it is met: JSON.stringify made to
// throw it for any text holding one entry's marker, and the spool read back as more 1 MB chunks
// than a string can join.
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../bench/generate-session.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { toApiError } from "../../main/api/errors.ts";
import type { AppContext } from "../../main/api/types.ts";
import { createAppContext } from "../../main/app-context.ts";
import { answerRequest } from "../../main/ipc.ts";
import { importPath } from "../../main/library/import.ts";
import { IN_PLACE_EXPORT_ENTRIES } from "../../main/library/import-runner.ts";
import { type BrowserServer, startBrowserServer } from "../../main/server/index.ts";
import { postChannel } from "../helpers/post-channel.ts";
import { makeTempDir } from "./store/helpers.ts";

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let api: Api;
let server: BrowserServer;
let sessionId: string;

beforeAll(async () => {
  tmp = makeTempDir("canopy-too-large-");
  const file = path.join(tmp.dir, "agent", "long.jsonl");
  fs.mkdirSync(path.dirname(file));
  // Long enough to be exported on the runner's thread and read back from its spool.
  const generated = generateSession(IN_PLACE_EXPORT_ENTRIES + 500);
  const last = JSON.parse(generated.text.trimEnd().split("\n").at(-1) as string) as { id: string };
  const huge = {
    type: "message",
    id: "huge",
    parentId: last.id,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: "user", content: `${"a long output line\n".repeat(100)}${MARKER}` },
  };
  fs.writeFileSync(file, `${generated.text}${stringify(huge)}\n`);
  fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
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

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await server.close();
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

const stringify = JSON.stringify;

/** Deep in one entry's text (past any preview): JSON that holds it stands for JSON past the limit. */
const MARKER = "ENORMOUS-TOOL-OUTPUT";

/**
 * JSON.stringify throws V8's RangeError for any text that would hold MARKER, as it does past the
 * limit: a whole answer, and also the entry's string alone (where toJson's deep writer meets it).
 */
function answersTooLong(): void {
  vi.spyOn(JSON, "stringify").mockImplementation(((value: unknown, replacer: never, indent: never) => {
    const text = stringify(value, replacer, indent);
    if (text?.includes(MARKER)) throw new RangeError("Invalid string length");
    return text;
  }) as typeof JSON.stringify);
}

const SESSION_GET_TOO_LARGE = {
  ok: false,
  error: {
    code: "too_large",
    message:
      "The answer to session:get is longer than the longest text JavaScript can hold (about 512 MB): read its tree (session:tree) and its entries a few at a time (session:entries), as the app does",
  },
};

const post = async (channel: string, input: unknown) =>
  (await postChannel(server, channel, stringify(input))).json();

describe("an answer too long for one string", () => {
  it("over HTTP: the one-line too_large answer, and the server goes on answering", async () => {
    answersTooLong();
    expect(await post("session:get", { sessionId })).toEqual(SESSION_GET_TOO_LARGE);
    vi.restoreAllMocks();
    expect(((await post("session:tree", { sessionId })) as { ok: boolean }).ok).toBe(true);
  });

  it("over the desktop app's IPC: the same answer as JSON text", async () => {
    answersTooLong();
    const answer = await answerRequest(api, "session:get", stringify({ sessionId }));
    vi.restoreAllMocks();
    expect(JSON.parse(answer)).toEqual(SESSION_GET_TOO_LARGE);
  });

  it("the export's text over IPC: says to export to a file", async () => {
    answersTooLong();
    const answer = await answerRequest(api, "session:export", stringify({ sessionId }));
    vi.restoreAllMocks();
    expect(JSON.parse(answer)).toEqual({
      ok: false,
      error: {
        code: "too_large",
        message:
          "The export's text is longer than the longest text JavaScript can hold (about 512 MB): export it to a file (outPath, the save dialog, or the CLI's --out), which is written as it is read",
      },
    });
  });
});

describe("an export's text longer than one string (in process, read back from the runner's spool)", () => {
  it("fails in one line saying to export to a file, and leaves no spool", async () => {
    const spools = path.join(tmp.dir, "export-downloads");
    const read = fs.createReadStream;
    const chunk = "x".repeat(1 << 20);
    // The spool as read back: more 1 MB chunks than a string holds, the same chunk each time (joined
    // by reference, so V8's own RangeError comes at the real concatenation, not after 512 MB of copies).
    vi.spyOn(fs, "createReadStream").mockImplementation(((file: fs.PathLike, options?: never) =>
      String(file).startsWith(spools)
        ? Readable.from(
            (function* () {
              for (let i = 0; i < 600; i++) yield chunk;
            })(),
          )
        : read(file, options)) as typeof fs.createReadStream);
    const answer = await api.call("session:export", { sessionId });
    vi.restoreAllMocks();
    expect(answer).toEqual({
      ok: false,
      error: {
        code: "too_large",
        message:
          "The export's text is longer than the longest text JavaScript can hold (about 512 MB): export it to a file (outPath, the save dialog, or the CLI's --out), which is written as it is read",
      },
    });
    expect(fs.readdirSync(spools)).toEqual([]);
    // Exported to a file instead, it is written whole.
    const out = path.join(tmp.dir, "whole.jsonl");
    expect((await api.call("session:export", { sessionId, outPath: out })).ok).toBe(true);
    expect(fs.statSync(out).size).toBeGreaterThan(0);
  });
});

describe("an export to a file with a line too long for one string (in place, as the CLI exports)", () => {
  it("fails in one line; the file there is as it was, no temp file is left", async () => {
    const here = createAppContext({
      dbPath: path.join(tmp.dir, "library.db"),
      seedDemo: false,
      loadUserHooks: false,
      importThread: false,
    });
    try {
      const folder = path.join(tmp.dir, "exports");
      fs.mkdirSync(folder);
      const target = path.join(folder, "session.jsonl");
      fs.writeFileSync(target, "the export before\n");
      // The resume marker is the last line written (toJson): V8's RangeError there, as for a gigantic entry.
      vi.spyOn(JSON, "stringify").mockImplementation(((value: unknown, replacer: never, indent: never) => {
        const text = stringify(value, replacer, indent);
        if (text?.includes("canopy.resume")) throw new RangeError("Invalid string length");
        return text;
      }) as typeof JSON.stringify);
      const answer = await createApi(here).call("session:export", {
        sessionId,
        outPath: target,
        leafId: "huge",
      });
      vi.restoreAllMocks();
      expect(answer).toEqual({
        ok: false,
        error: {
          code: "too_large",
          message: `A line of the export (one entry) is longer than the longest text JavaScript can hold (about 512 MB): the export stopped and ${target} was not written (a file there is as it was); the session's source file holds the entry as the agent wrote it`,
        },
      });
      expect(fs.readdirSync(folder)).toEqual(["session.jsonl"]);
      // On the runner's thread the failure crosses as this, which the dispatcher words as above.
      expect(toApiError(new RangeError("Invalid string length")).code).toBe("too_large");
      expect(fs.readFileSync(target, "utf8")).toBe("the export before\n");
    } finally {
      here.db.close();
    }
  });
});
