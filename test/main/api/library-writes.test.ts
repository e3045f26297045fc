// LIBRARY_WRITES (write-gate.ts) is kept by hand: a channel that writes the library but is not in
// it would wait for the import runner's write lock on the serving thread, holding every request up.
// Every channel is called here through the real dispatcher on a real library, and the rows its
// call changed on the serving connection (SQLite's total_changes) are counted: a channel outside
// the list (and outside WRITES_ON_THEIR_OWN) must change none, and each listed one must change
// some — so the calls below really write, and a channel dropped from the list fails here. The
// jobs (chat, compaction) are not called: they write after a model call.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Channel, RequestInput } from "../../../core/api/contract.ts";
import { inputSchemas } from "../../../core/api/schemas.ts";
import { LIBRARY_WRITES, WRITES_ON_THEIR_OWN } from "../../../main/library/write-gate.ts";
import { createElectronSecretStore } from "../../../main/secrets.ts";
import {
  createHarness,
  type Harness,
  importText,
  removeDir,
  SessionFile,
  sized,
} from "../pipelines/harness.ts";

let h: Harness;
/** A session with five large tool outputs (pruning applies) and a compaction on a side branch. */
let sessionId: string;
/** A second session, deleted and restored. */
let otherId: string;
/** A folder the library follows, holding a file not imported yet. */
let folder: string;

beforeEach(async () => {
  h = createHarness();
  // The desktop app's parts the secrets and save-dialog channels use (a reversible stand-in for
  // the OS keyring): here they answer, as in the app, instead of refusing.
  h.api.ctx.secrets = await createElectronSecretStore({
    safeStorage: {
      isAsyncEncryptionAvailable: async () => true,
      encryptStringAsync: async (text) => Buffer.from(`v10${text}`, "utf8"),
      decryptStringAsync: async (data) => ({
        result: data.toString("utf8").slice(3),
        shouldReEncrypt: false,
      }),
      getSelectedStorageBackend: () => "gnome_libsecret",
    },
    dataDir: h.dir,
    env: {},
    platform: "linux",
  });
  h.api.ctx.saveDialog = async (name) => path.join(h.dir, name);
  const file = new SessionFile({ id: "writes-a" }).user("u1", "Run the build.");
  for (let i = 1; i <= 5; i++) {
    file
      .assistant(`a${i}`, "", { calls: [{ name: "bash", args: { command: `make ${i}` }, id: `call${i}` }] })
      .toolResult(`t${i}`, sized(`log ${i}`, 15_000), "bash", `call${i}`);
  }
  file.from("t3").compaction("c1", { summary: "The first builds.", firstKeptEntryId: "t3" });
  file.from("t5").user("u2", "Thanks.");
  sessionId = await importText(h, file.text(), "builds");
  otherId = await importText(h, new SessionFile({ id: "writes-b" }).user("b1", "hello").text(), "other");
  folder = path.join(h.dir, "agent");
  fs.mkdirSync(folder);
  fs.writeFileSync(
    path.join(folder, "new.jsonl"),
    new SessionFile({ id: "writes-c" }).user("c1", "new").text(),
  );
  fs.writeFileSync(
    path.join(h.dir, "later.jsonl"),
    new SessionFile({ id: "writes-d" }).user("d1", "later").text(),
  );
  // The session's file grew since its import: an export re-imports it first.
  const grown = { type: "message", id: "u3", parentId: "u2", timestamp: "2026-03-01T12:00:00.000Z" };
  fs.appendFileSync(
    path.join(h.dir, "builds.jsonl"),
    `${JSON.stringify({ ...grown, message: { role: "user", content: [{ type: "text", text: "More." }], timestamp: 1 } })}\n`,
  );
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

/**
 * An input for every channel, in the order they are called (the compiler wants one for each):
 * reads first, then the writes, each on what the ones before it left (undo after a label, ...).
 */
const inputs: { [C in Channel]: () => RequestInput<C> } = {
  "library:list": () => ({}),
  "library:search": () => ({ query: "build" }),
  "library:get-folders": () => ({}),
  "library:cancel-import": () => ({}),
  "session:get": () => ({ sessionId }),
  "session:entries": () => ({ sessionId, entryIds: ["u1", "t1"] }),
  "session:tree": () => ({ sessionId }),
  "session:tree-update": () => ({ sessionId, since: "0" }),
  "session:usage": () => ({ sessionId }),
  "session:export": () => ({ sessionId }),
  "session:choose-export-path": () => ({ sessionId }),
  "context:get": () => ({ sessionId }),
  "compaction:preview": () => ({ sessionId }),
  "compaction:abort": () => ({ sessionId }),
  "navigation:preview": () => ({ sessionId, targetId: "t3" }),
  "navigation:abort": () => ({ sessionId }),
  "job:list": () => ({}),
  "pruning:preview": () => ({ sessionId }),
  "settings:get": () => ({}),
  "settings:prompts": () => ({}),
  "settings:hooks": () => ({}),
  "settings:test-connection": () => ({}),
  "settings:cancel-test-connection": () => ({ testId: "none" }),
  "chat:abort": () => ({ sessionId }),
  "secrets:status": () => ({}),
  "secrets:set": () => ({ name: "SOME_KEY", value: "sk-test" }),
  "edits:label": () => ({ sessionId, targetId: "u1", label: "start" }),
  "edits:undo": () => ({ sessionId }),
  "edits:redo": () => ({ sessionId }),
  "edits:rename": () => ({ sessionId, title: "Builds" }),
  "edits:archive": () => ({ sessionId, entryId: "c1", confirm: true }),
  "edits:unarchive": () => ({ sessionId, entryId: "c1" }),
  "edits:undo-summary": () => ({ sessionId, entryId: "c1" }),
  "session:set-view-leaf": () => ({ sessionId, leafId: "u2" }),
  "navigation:navigate": () => ({ sessionId, targetId: "t5" }),
  "pruning:apply": () => ({ sessionId }),
  "pruning:restore": () => ({ sessionId }),
  "edits:edit-message": () => ({ sessionId, entryId: "u1", text: "Run the build again." }),
  "edits:fork": () => ({ sessionId, entryId: "a1" }),
  "library:delete": () => ({ sessionId: otherId }),
  "library:restore": () => ({ sessionId: otherId }),
  "library:keep-copy": () => {
    // Only a session whose file is gone can be kept as the only copy.
    fs.rmSync(path.join(h.dir, "other.jsonl"));
    return { sessionId: otherId };
  },
  "library:set-folders": () => ({ folders: [folder] }),
  "library:import-default-folders": () => ({}),
  "library:import": () => ({ path: path.join(h.dir, "later.jsonl") }),
  "settings:set": () => ({ key: "compaction.reserveTokens", value: 20_000 }),
  // Jobs: not called.
  "compaction:run": () => ({ sessionId }),
  "chat:send": () => ({ sessionId, text: "hello" }),
  "chat:continue": () => ({ sessionId }),
};

const JOBS: ReadonlySet<Channel> = new Set<Channel>(["compaction:run", "chat:send", "chat:continue"]);

/** Rows changed on the serving thread's connection so far. */
function changes(): number {
  return h.api.ctx.db.prepare("SELECT total_changes()").pluck().get() as number;
}

describe("the channels that write the library (LIBRARY_WRITES)", () => {
  it("names every channel a call of which changes a row, and each one it names writes", async () => {
    expect(Object.keys(inputs).sort()).toEqual(Object.keys(inputSchemas).sort());
    const wrote: Record<string, number> = {};
    const failed: Record<string, string> = {};
    for (const channel of Object.keys(inputs) as Channel[]) {
      if (JOBS.has(channel)) continue;
      const input = (inputs[channel] as () => unknown)();
      const before = changes();
      const result = await h.api.callUnknown(channel, input);
      // What a handler writes after it answered (nothing should) is counted with it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      wrote[channel] = changes() - before;
      if (!result.ok) failed[channel] = `${result.error.code}: ${result.error.message}`;
    }
    const unlisted = Object.entries(wrote).filter(
      ([c, n]) => n > 0 && !LIBRARY_WRITES.has(c as Channel) && !WRITES_ON_THEIR_OWN.has(c as Channel),
    );
    expect(unlisted, "channels that wrote but are not in LIBRARY_WRITES").toEqual([]);
    const listedIdle = [...LIBRARY_WRITES].filter((c) => !((wrote[c] ?? 0) > 0));
    expect(listedIdle, "listed channels whose call here wrote nothing (fix the input)").toEqual([]);
    // A call that failed proves nothing: each must have done what it was asked.
    expect(failed).toEqual({});
  });
});
