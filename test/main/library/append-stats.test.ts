// Canopy's appends (a chat turn, a compaction, a branch summary, a label, an edit, a redo) update
// the session's cached figures from the new entries alone and check only the new ids, instead of
// recounting every row and reading every id of the session; the figures stay exactly what a
// full recount gives, on the fixtures, a generated session and the edge cases that recount.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { getViewLeaf, loadSessionEntries, requireSession } from "../../../main/library/load.ts";
import { appendSessionEntries } from "../../../main/library/write.ts";
import { appendCompaction, appendMessageChain } from "../../../main/pipelines/persist.ts";
import { type FakeServer, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { fixtureTexts } from "../../helpers/fixtures.ts";
import {
  createHarness,
  expectRecounted,
  type Harness,
  importText,
  readsDuring,
  removeDir,
  SessionFile,
} from "../pipelines/harness.ts";

let h: Harness;
let server: FakeServer;
beforeEach(async () => {
  h = createHarness();
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
  h.close();
  removeDir(h.dir);
});

const fixtures = fixtureTexts();
const sessions = [...fixtures, ["generated-3000", generateSession(3000).text] as const];

describe("every kind of append keeps the cached figures of a full recount", () => {
  it.each(sessions)("%s", async (name, text) => {
    await h.configureFakeModel(server);
    const sessionId = await importText(h, text, name);
    const { db } = h.api.ctx;
    expectRecounted(h, sessionId, "import");
    const entries = loadSessionEntries(db, sessionId);
    const firstMessage = entries.find((e) => e.type === "message");
    const firstUser = entries.find(
      (e) => e.type === "message" && (e.message as { role?: string }).role === "user",
    );
    const anyEntry = entries.find((e) => typeof e.id === "string");

    server.enqueue({ type: "reply", text: "## Goal\nA summary." });
    expect(await h.api.call("compaction:run", { sessionId })).toMatchObject({ ok: true });
    expectRecounted(h, sessionId, "compaction");

    if (firstMessage) {
      server.enqueue({ type: "reply", text: "A branch summary." });
      const navigated = await h.api.call("navigation:navigate", {
        sessionId,
        targetId: firstMessage.id,
        summarize: true,
      });
      expect(navigated).toMatchObject({ ok: true });
      expectRecounted(h, sessionId, "branch summary");
    }
    if (anyEntry) {
      await h.call("edits:label", { sessionId, targetId: anyEntry.id, label: "checkpoint" });
      expectRecounted(h, sessionId, "label");
      await h.call("edits:undo", { sessionId });
      expectRecounted(h, sessionId, "undo label");
      await h.call("edits:redo", { sessionId });
      expectRecounted(h, sessionId, "redo label");
    }
    if (firstUser) {
      const edited = await h.api.call("edits:edit-message", {
        sessionId,
        entryId: firstUser.id,
        text: "Edited question",
      });
      expect(edited).toMatchObject({ ok: true });
      expectRecounted(h, sessionId, "edit");
    }
    server.enqueue({ type: "reply", text: "A reply." });
    const chatted = await h.api.call("chat:send", { sessionId, text: "Next step?" });
    expect(chatted).toMatchObject({
      ok: true,
      value: { appendedEntryIds: [expect.any(String), expect.any(String)] },
    });
    expectRecounted(h, sessionId, "chat turn");

    const last = requireSession(db, sessionId).last_leaf_id;
    const at = new Date().toISOString();
    appendSessionEntries(db, sessionId, [
      { type: "session_info", id: "n0000001", parentId: last, timestamp: at, name: "  Named here  " },
      {
        type: "compaction",
        id: "n0000002",
        parentId: "n0000001",
        timestamp: at,
        summary: "s",
        firstKeptEntryId: "n0000001",
        tokensBefore: 1,
        shortSummary: " Short title ",
      },
      { type: "session_info", id: "n0000003", parentId: "n0000002", timestamp: at, name: "   " },
    ] as SessionEntry[]);
    expectRecounted(h, sessionId, "session_info and titled compaction");
  });
});

describe("appends that a recount must settle", () => {
  const at = "2025-01-01T00:00:00.000Z";
  const user = (id: string, parentId: string | null, text: string): SessionEntry =>
    ({
      type: "message",
      id,
      parentId,
      timestamp: at,
      message: { role: "user", content: text, timestamp: 1 },
    }) as SessionEntry;

  it.each([
    ["the first user message of a session without one", () => [user("f1", "m1", "Hello there")]],
    [
      "a user message whose text is the no-message marker",
      () => [user("f1", "m1", "(no messages)"), user("f2", "f1", "later")],
    ],
    ["an id the session has", () => [user("m1", "m1", "again")]],
    ["an id twice in one append", () => [user("f1", "m1", "a"), user("f1", "m1", "b")]],
    ["an unknown parent", () => [user("f1", "nowhere", "a")]],
    ["a parent that comes later in the append", () => [user("f1", "f2", "a"), user("f2", "m1", "b")]],
    [
      "no parentId at all",
      () => [{ type: "label", id: "f1", timestamp: at, targetId: "m1" } as unknown as SessionEntry],
    ],
    [
      "an unknown entry type",
      () => [{ type: "mystery", id: "f1", parentId: "m1", timestamp: at } as unknown as SessionEntry],
    ],
    ["a second root", () => [user("f1", null, "a")]],
  ])("%s", async (_name, make) => {
    const file = new SessionFile();
    file.add("m1", "model_change", { provider: "p", modelId: "m" }, null);
    const sessionId = await h.importSession(file);
    expectRecounted(h, sessionId, "import");
    appendSessionEntries(h.api.ctx.db, sessionId, make());
    expectRecounted(h, sessionId, "append");
    appendSessionEntries(h.api.ctx.db, sessionId, [user("g1", "m1", "after")]);
    expectRecounted(h, sessionId, "next append");
  });

  it("a session with tree problems", async () => {
    const file = new SessionFile();
    file.user("u1", "first").assistant("a1", "reply").add("o1", "label", { targetId: "u1" }, "missing");
    const sessionId = await h.importSession(file);
    expect(requireSession(h.api.ctx.db, sessionId).problem_count).toBeGreaterThan(0);
    // The orphan's parent arrives: a recount finds the problem gone.
    appendSessionEntries(h.api.ctx.db, sessionId, [user("missing", "a1", "found")]);
    expectRecounted(h, sessionId, "parent arrives");
    expect(requireSession(h.api.ctx.db, sessionId).problem_count).toBe(0);
  });
});

describe("appending to a long session", () => {
  const ENTRIES = 3000;

  it("reads the new ids' index entries, not every row or id of the session", async () => {
    await h.configureFakeModel(server);
    const sessionId = await importText(h, generateSession(ENTRIES).text, "long");
    const { ctx } = h.api;
    const leaf = () => requireSession(ctx.db, sessionId).last_leaf_id;
    const target = () => ({ sessionId, leafId: leaf(), viewLeafId: getViewLeaf(ctx.db, sessionId) });
    const costs: Record<string, { rows: number; parsed: number }> = {};

    costs.chat = await readsDuring(ctx.db, () =>
      appendMessageChain(ctx, target(), [
        { role: "user", content: "Next step?", timestamp: 1 },
        { role: "assistant", content: [{ type: "text", text: "Done." }], timestamp: 2 } as never,
      ]),
    );
    costs.compaction = await readsDuring(ctx.db, () =>
      appendCompaction(
        ctx,
        target(),
        { summary: "s", shortSummary: "Title", firstKeptEntryId: leaf() as string, tokensBefore: 10 },
        false,
        false,
      ),
    );
    costs.label = await readsDuring(ctx.db, () =>
      h.call("edits:label", { sessionId, targetId: leaf() as string, label: "here" }),
    );
    await h.call("edits:undo", { sessionId });
    costs.redo = await readsDuring(ctx.db, () => h.call("edits:redo", { sessionId }));

    // A recount read a row per entry (and parsed every compaction); the ids, a row per entry again.
    for (const [kind, cost] of Object.entries(costs)) {
      expect(cost.rows, kind).toBeLessThan(200);
      expect(cost.parsed, kind).toBeLessThan(20);
    }
    expectRecounted(h, sessionId, "after the appends");
  });
});
