// `canopy show` streams its text from the session's outline (one pass, each entry parsed only
// while its line's facts are taken). Its bytes are held to the old route (the whole session
// detail rendered into one string, test/helpers/show-oracle.ts) on every shared fixture, on a
// generated session after edits, and on hostile files; session:get's detail to the old one.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSession } from "../../bench/generate-session.ts";
import { createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { runCli } from "../../main/cli.ts";
import { SHOW_CHUNK_CHARS } from "../../main/cli/show-stdout.ts";
import { importPath } from "../../main/library/import.ts";
import { getSessionDetail } from "../../main/library/load.ts";
import { fixturesDir } from "../helpers/fixtures.ts";
import { oldSessionDetail, oldShowText } from "../helpers/show-oracle.ts";
import { fixtureNames, type Library, makeLibrary } from "./library/helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

/** stdout as the process writes it: `out` adds a line break unless the text ends with one. */
async function showOutput(sessionId: string): Promise<{ text: string; writes: number; outs: number }> {
  let text = "";
  let writes = 0;
  let outs = 0;
  const code = await runCli(["show", sessionId, "--db", lib.dbFile], {
    out: (line) => {
      outs++;
      text += line.endsWith("\n") ? line : `${line}\n`;
    },
    write: (chunk) => {
      writes++;
      text += chunk;
    },
    err: (line) => {
      throw new Error(`stderr: ${line}`);
    },
    progress: () => {},
    isTerminal: false,
  });
  expect(code).toBe(0);
  return { text, writes, outs };
}

function oracle(sessionId: string): string {
  const text = oldShowText(lib.db, sessionId);
  return text.endsWith("\n") ? text : `${text}\n`;
}

function importFile(file: string): string {
  const sessionId = importPath(lib.db, file).files[0]?.sessionId;
  if (!sessionId) throw new Error(`${file} did not import`);
  return sessionId;
}

function writeLines(name: string, lines: readonly (object | string)[]): string {
  const file = path.join(lib.dir, name);
  fs.writeFileSync(file, `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
  return file;
}

const header = (id: string) => ({
  type: "session",
  version: 3,
  id,
  timestamp: "2026-12-01T00:00:00.000Z",
  cwd: "/w",
});
const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, s)).toISOString();
const user = (id: string, parentId: unknown, text: string, s = 1) => ({
  type: "message",
  id,
  parentId,
  timestamp: at(s),
  message: { role: "user", content: text, timestamp: 1 },
});

describe("canopy show, byte for byte as the old route", () => {
  it("on every shared fixture", async () => {
    const names = fixtureNames(fixturesDir());
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const sessionId = importFile(path.join(fixturesDir(), name));
      expect((await showOutput(sessionId)).text, name).toBe(oracle(sessionId));
      // session:get, read without originals or row copies, still gives the same detail.
      expect(getSessionDetail(lib.db, sessionId), name).toEqual(oldSessionDetail(lib.db, sessionId));
    }
  });

  it("on a generated session after labels, a moved view leaf, an edited message and an archived branch", async () => {
    const generated = generateSession(3000, { compactAtTokens: 20_000, keepRecentTokens: 4_000 });
    const sessionId = importFile(writeLines("gen.jsonl", generated.text.trimEnd().split("\n")));
    const api = createApi(
      createAppContext({ dbPath: lib.dbFile, seedDemo: false, loadUserHooks: false, env: {} }),
    );
    try {
      const before = await showOutput(sessionId);
      expect(before.text).toBe(oracle(sessionId));
      // Several writes, never the whole text in one `out`.
      expect(before.text.length).toBeGreaterThan(2 * SHOW_CHUNK_CHARS);
      expect(before.writes).toBeGreaterThan(1);
      expect(before.outs).toBe(0);

      const ids = [...before.text.matchAll(/^[*> ] [│├─ [\]\d]*([0-9a-f]{8}) user /gm)].map(
        (m) => m[1] as string,
      );
      const [a, b, c, d] = [ids[5], ids[40], ids.at(-3), ids[60]].map((id) => id ?? "") as [
        string,
        string,
        string,
        string,
      ];
      const call = async (result: Promise<{ ok: boolean; error?: unknown }>) => {
        const settled = await result;
        if (!settled.ok) throw new Error(JSON.stringify(settled.error));
      };
      await call(api.call("edits:label", { sessionId, targetId: a, label: "first" }));
      await call(api.call("edits:label", { sessionId, targetId: b, label: "second" }));
      await call(api.call("edits:label", { sessionId, targetId: a, label: null }));
      await call(
        api.call("edits:edit-message", { sessionId, entryId: b, text: "edited\n  text\twith   space" }),
      );
      await call(api.call("session:set-view-leaf", { sessionId, leafId: c }));
      await call(api.call("edits:archive", { sessionId, entryId: d, confirm: true }));
      expect((await showOutput(sessionId)).text).toBe(oracle(sessionId));
    } finally {
      api.ctx.db.close();
    }
  });

  it("on hostile files: broken links, odd field types, unknown types, malformed lines, a huge message", async () => {
    const huge = `${"word ".repeat(30_000)}\r\nend`;
    const file = writeLines("odd.jsonl", [
      header("odd"),
      user("u1", null, "first\u001b[2J  message"),
      user("u2", "u1", "second", 2),
      user("u2", "u1", "second again (duplicate id)", 3),
      user("u3", "u3", "names itself", 4),
      user("u4", "nowhere", "orphan", 5),
      user("u5", 42, "numeric parent", 6),
      { type: "message", parentId: "u1", timestamp: at(7), message: { role: "user", content: "no id" } },
      {
        type: "compaction",
        id: "c1",
        parentId: "u2",
        timestamp: at(8),
        summary: "s",
        firstKeptEntryId: "u1",
        tokensBefore: "lots",
      },
      {
        type: "compaction",
        id: "c2",
        parentId: "c1",
        timestamp: at(9),
        summary: "s",
        firstKeptEntryId: 7,
        tokensBefore: null,
      },
      {
        type: "compaction",
        id: "c3",
        parentId: "c2",
        timestamp: at(10),
        summary: "s",
        firstKeptEntryId: "gone",
      },
      { type: "constructor", id: "k1", parentId: "c3", timestamp: at(11) },
      { type: "label", id: "l1", parentId: "k1", timestamp: 12, targetId: "u1", label: "hi" },
      { type: "label", id: "l2", parentId: "l1", timestamp: at(13), targetId: 5, label: "no" },
      "{not json",
      {
        type: "message",
        id: "big",
        parentId: "l2",
        timestamp: at(14),
        message: { role: "toolResult", toolName: "bash", content: [{ type: "text", text: huge }] },
      },
      {
        type: "message",
        id: "a1",
        parentId: "big",
        timestamp: "yesterday",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: huge },
            { type: "toolCall", name: "read" },
          ],
        },
      },
      user("side", "l1", "a side branch, older", 1),
    ]);
    const sessionId = importFile(file);
    expect((await showOutput(sessionId)).text).toBe(oracle(sessionId));
    expect(getSessionDetail(lib.db, sessionId)).toEqual(oldSessionDetail(lib.db, sessionId));
  });

  it("on a session without entries (its text ends with an empty line) and one with over 50 problems", async () => {
    const empty = importFile(writeLines("empty.jsonl", [header("empty")]));
    expect((await showOutput(empty)).text).toBe(oracle(empty));
    const orphans = Array.from({ length: 60 }, (_, i) => user(`o${i}`, `missing${i}`, `orphan ${i}`, i));
    const many = importFile(writeLines("many.jsonl", [header("many"), ...orphans]));
    expect((await showOutput(many)).text).toBe(oracle(many));
  });
});
