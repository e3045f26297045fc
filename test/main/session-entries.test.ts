// session:entries: a few entries by id (what `canopy chat` prints after a turn), without
// session:get's whole session, those of an archived branch marked; and `canopy chat` asks for only
// the entries its turn appended.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Channel } from "../../core/api/contract.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { parseCommandLine } from "../../main/cli/args.ts";
import { runChatCommand } from "../../main/cli/chat-command.ts";
import { createCliContext } from "../../main/cli/context.ts";
import { type FakeServer, startFakeOpenAiServer } from "../helpers/fake-openai-server.ts";

let dir: string;
let api: Api;
let fake: FakeServer;

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, s)).toISOString();
const user = (id: string, parentId: string | null, text: string, s: number) => ({
  type: "message",
  id,
  parentId,
  timestamp: at(s),
  message: { role: "user", content: text, timestamp: s },
});

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-entries-"));
  fake = await startFakeOpenAiServer({ defaultText: "fine" });
  api = createApi(
    createAppContext({
      dbPath: path.join(dir, "library.db"),
      seedDemo: false,
      loadUserHooks: false,
      env: { CANOPY_ENTRIES_TEST_KEY: "k" },
    }),
  );
});
afterEach(async () => {
  api.ctx.db.close();
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function value<T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) {
  const settled = await result;
  if (!settled.ok) throw new Error(settled.error.message);
  return settled.value;
}

async function importSession(lines: object[]): Promise<string> {
  const file = path.join(dir, "s.jsonl");
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  const report = await value(api.call("library:import", { path: file }));
  return report.files[0]?.sessionId as string;
}

describe("session:entries", () => {
  it("gives the asked entries in the asked order, the last of a duplicate id, and leaves out unknown ids", async () => {
    const sessionId = await importSession([
      { type: "session", version: 3, id: "e1", timestamp: at(0), cwd: "/w" },
      user("a", null, "first", 1),
      user("b", "a", "second", 2),
      user("a", "b", "a again", 3),
    ]);
    const got = await value(api.call("session:entries", { sessionId, entryIds: ["b", "nope", "a"] }));
    expect(got.map((s) => [s.entry.id, s.line])).toEqual([
      ["b", 3],
      ["a", 4],
    ]);
    expect((got[1]?.entry as { message?: { content: string } } | undefined)?.message?.content).toBe("a again");
    const missing = await api.call("session:entries", { sessionId: "missing", entryIds: [] });
    expect(missing.ok).toBe(false);
  });

  it("marks the entries of an archived branch (so an open plan can tell its leaf archived from gone)", async () => {
    const sessionId = await importSession([
      { type: "session", version: 3, id: "e3", timestamp: at(0), cwd: "/w" },
      user("a", null, "first", 1),
      user("b", "a", "second", 2),
      user("c", "b", "third", 3),
      user("x", "a", "other branch", 4),
    ]);
    const ids = { sessionId, entryIds: ["a", "b", "c", "x"] };
    const before = await value(api.call("session:entries", ids));
    expect(before.map((s) => s.archived ?? false)).toEqual([false, false, false, false]);
    await value(api.call("edits:archive", { sessionId, entryId: "b", confirm: true }));
    const after = await value(api.call("session:entries", ids));
    expect(after.map((s) => [s.entry.id, s.archived ?? false])).toEqual([
      ["a", false],
      ["b", true],
      ["c", true],
      ["x", false],
    ]);
  });

  it("is what canopy chat reads after a turn: never the whole session", async () => {
    const sessionId = await importSession([
      { type: "session", version: 3, id: "e2", timestamp: at(0), cwd: "/w" },
      ...Array.from({ length: 50 }, (_, i) =>
        user(`u${i}`, i === 0 ? null : `u${i - 1}`, `message ${i}`, i + 1),
      ),
    ]);
    const model = {
      baseUrl: fake.baseUrl,
      id: "m",
      contextWindow: 200_000,
      apiKeyEnv: "CANOPY_ENTRIES_TEST_KEY",
    };
    await value(api.call("settings:set", { key: "model", value: model }));
    fake.enqueue({ type: "reply", text: "Hello back." });
    const channels: Channel[] = [];
    const recording: Api = {
      ctx: api.ctx,
      callUnknown: api.callUnknown,
      call: (channel, input) => {
        channels.push(channel);
        return api.call(channel, input);
      },
    };
    const out: string[] = [];
    const err: string[] = [];
    const parsed = parseCommandLine(["chat", sessionId, "hello"]);
    const io = {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      progress: () => {},
      isTerminal: false,
    };
    expect(await runChatCommand(createCliContext(() => recording, io, parsed), parsed)).toBe(true);
    expect({ out, err }).toEqual({ out: ["Hello back."], err: [] });
    expect(channels).toContain("session:entries");
    expect(channels).not.toContain("session:get");
  });
});
