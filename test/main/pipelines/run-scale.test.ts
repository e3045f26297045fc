// Compaction runs (manual, and automatic after a context overflow) on a long session read the
// window of the leaf's path, not the whole session; and they store exactly what the whole-session
// route stores. The whole-session route is the one a session_before_compact hook takes (it is given
// the full path), so a hook that answers nothing runs the old code on the same library.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { generateSession } from "../../../bench/generate-session.ts";
import { loadSessionEntries } from "../../../main/library/load.ts";
import { type FakeServer, OVERFLOW_ERRORS, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { fixtureTexts } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, importText, parsesDuring, removeDir, SessionFile } from "./harness.ts";

const TURNS = 600;

/** u0/a0 … u599/a599 with a compaction after a589 that keeps from u585: the window is ~30 entries. */
function longSession(): SessionFile {
  const file = new SessionFile();
  for (let i = 0; i < TURNS; i++) {
    file.user(`u${i}`, `question ${i} `.repeat(20)).assistant(`a${i}`, `answer ${i} `.repeat(20));
    if (i === 589) file.add("c1", "compaction", { summary: "Earlier work.", firstKeptEntryId: "u585", tokensBefore: 9000 });
  }
  return file;
}

/** The stored entries, without the two fields a new entry draws afresh (id, timestamp). */
function storedShape(h: Harness, sessionId: string): unknown[] {
  const ids = new Map<string, string>();
  return loadSessionEntries(h.api.ctx.db, sessionId).map((entry) => {
    const { id, timestamp, ...rest } = entry as SessionEntry & Record<string, unknown>;
    const ours = entry.type === "compaction" || entry.type === "branch_summary";
    if (ours && rest.fromExtension === undefined && !ids.has(id) && /^[0-9a-f]{8}$/.test(id)) ids.set(id, `new${ids.size}`);
    return { ...rest, id: ids.get(id) ?? id, parentId: ids.get(entry.parentId ?? "") ?? entry.parentId };
  });
}

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  vi.restoreAllMocks();
  h.close();
  removeDir(h.dir);
});

describe("compaction runs on a long session", () => {
  it("a manual run parses the window, not the session", async () => {
    const sessionId = await importText(h, longSession().text(), "long");
    const parsed = await parsesDuring(() => h.call("compaction:run", { sessionId }));
    // The whole route parsed all 1,201 entries; the window is ~30 of them (settings, rows, hooks aside).
    expect(parsed).toBeLessThan(200);
    const detail = await h.call("session:get", { sessionId });
    const stored = detail.entries.at(-1)?.entry;
    expect(stored).toMatchObject({ type: "compaction", parentId: `a${TURNS - 1}` });
    expect(detail.summary.viewLeafId).toBe(stored?.id);
  });

  describe("a context overflow in a chat turn", () => {
    let server: FakeServer;
    beforeEach(async () => {
      server = await startFakeOpenAiServer();
      await h.configureFakeModel(server);
    });
    afterEach(async () => {
      await server.close();
    });

    it("drops the failed reply and compacts reading the window only", async () => {
      const sessionId = await importText(h, longSession().text(), "long");
      // A small keep budget, so that the window has something to summarize.
      await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 300 });
      const isChat = (body: Record<string, unknown>) => !("max_tokens" in body);
      server.enqueue(
        { type: "error", status: 400, body: { error: { message: OVERFLOW_ERRORS.openai } }, match: isChat },
        { type: "reply", text: "## Goal\nSummary after overflow.", match: (body) => !isChat(body) },
        { type: "reply", text: "Answer after recovery.", match: isChat },
      );
      let result: Awaited<ReturnType<typeof h.call<"chat:send">>> | undefined;
      const parsed = await parsesDuring(async () => {
        result = await h.call("chat:send", { sessionId, text: "Next step" });
      });
      // The whole route parsed all 1,201 entries twice (before and after dropping the reply).
      expect(parsed).toBeLessThan(400);
      expect(result?.autoCompaction).toMatchObject({ reason: "overflow", entryId: expect.any(String) });
      const [user, , compaction] = result?.appendedEntryIds ?? [];
      const entries = loadSessionEntries(h.api.ctx.db, sessionId);
      expect(entries.find((entry) => entry.id === compaction)).toMatchObject({
        type: "compaction",
        parentId: user,
        summary: expect.stringContaining("Summary after overflow."),
      });
    });
  });
});

describe("a branch summary on a long session", () => {
  it("parses the newest entries the budget takes, not the abandoned branch", async () => {
    const sessionId = await importText(h, longSession().text(), "long");
    // A small window: the budget (window − reserve) takes a few dozen of the 1,180 abandoned entries.
    await h.call("settings:set", { key: "branchSummary.reserveTokens", value: 125_000 });
    const parsed = await parsesDuring(() =>
      h.call("navigation:navigate", { sessionId, targetId: "a10", summarize: true }),
    );
    expect(parsed).toBeLessThan(400);
    const detail = await h.call("session:get", { sessionId });
    expect(detail.entries.at(-1)?.entry).toMatchObject({ type: "branch_summary", parentId: "a10" });
  });
});

/** Summarizes, on every leaf's behalf, the branch abandoned by navigating to the first user message. */
async function summarizeEveryBranch(lib: Harness, text: string, name: string): Promise<unknown[]> {
  await lib.call("settings:set", { key: "branchSummary.reserveTokens", value: 120_000 });
  const sessionId = await importText(lib, text, name);
  const index = buildTreeIndex(loadSessionEntries(lib.api.ctx.db, sessionId));
  const leaves = index.tips().map((entry) => entry.id);
  const targets = [...new Set(index.entries.filter((e) => e.type === "message").map((e) => e.id))].filter(
    (_id, i, all) => i === 0 || i === Math.floor(all.length / 2),
  );
  const outcomes: unknown[] = [];
  for (const leafId of leaves) {
    for (const targetId of targets) {
      await lib.call("session:set-view-leaf", { sessionId, leafId });
      const result = await lib.api.call("navigation:navigate", { sessionId, targetId, summarize: true });
      outcomes.push(result.ok ? { ...result.value, summaryEntryId: null, newLeafId: null } : result.error);
    }
  }
  return [outcomes, storedShape(lib, sessionId)];
}

/** Every leaf of the session, then compaction:run on each in turn (the offline summarizer). */
async function compactEveryLeaf(lib: Harness, text: string, name: string): Promise<unknown[]> {
  const sessionId = await importText(lib, text, name);
  const leaves = buildTreeIndex(loadSessionEntries(lib.api.ctx.db, sessionId))
    .tips()
    .map((entry) => entry.id);
  const outcomes: unknown[] = [];
  for (const leafId of leaves) {
    const result = await lib.api.call("compaction:run", { sessionId, leafId });
    outcomes.push(result.ok ? { ...result.value, entryId: "new", viewLeafId: null } : result.error);
  }
  return [outcomes, storedShape(lib, sessionId)];
}

describe("the window route stores what the whole-session route stores", () => {
  const generated = generateSession(3000, { compactAtTokens: 30_000, keepRecentTokens: 6_000 }).text;
  const files = [
    ...fixtureTexts(),
    ["generated-3000", generated] as const,
  ];

  it.each(files)("%s: the same compaction entries at every leaf", async (name, text) => {
    const whole = createHarness();
    try {
      // A hook that answers nothing: the run takes the whole-session route, and behaves as before.
      whole.api.ctx.hooks.register("whole-route", "session_before_compact", () => undefined);
      const expected = await compactEveryLeaf(whole, text, name);
      const actual = await compactEveryLeaf(h, text, name);
      expect(actual).toEqual(expected);
    } finally {
      whole.close();
      removeDir(whole.dir);
    }
  });

  it.each(files)("%s: the same branch summaries", async (name, text) => {
    const whole = createHarness();
    try {
      // A hook that answers nothing: the summary is given every abandoned entry, as before.
      whole.api.ctx.hooks.register("whole-branch", "session_before_tree", () => undefined);
      const expected = await summarizeEveryBranch(whole, text, name);
      const actual = await summarizeEveryBranch(h, text, name);
      expect(actual).toEqual(expected);
    } finally {
      whole.close();
      removeDir(whole.dir);
    }
  });

  it("the generated session: the same automatic compaction after an overflow", async () => {
    const server = await startFakeOpenAiServer();
    const whole = createHarness();
    try {
      whole.api.ctx.hooks.register("whole-route", "session_before_compact", () => undefined);
      const run = async (lib: Harness) => {
        await lib.configureFakeModel(server);
        await lib.call("settings:set", { key: "compaction.autoContinue", value: false });
        const sessionId = await importText(lib, generated, "generated");
        const isChat = (body: Record<string, unknown>) => !("max_tokens" in body);
        server.enqueue(
          { type: "error", status: 400, body: { error: { message: OVERFLOW_ERRORS.openai } }, match: isChat },
          { type: "reply", text: "## Goal\nOverflow summary.", match: (body) => !isChat(body) },
          { type: "reply", text: "Recovered.", match: isChat },
        );
        const sent = await lib.call("chat:send", { sessionId, text: "Next step" });
        const summarized = server.requests.filter((r) => !isChat(r.body as Record<string, unknown>)).at(-1)?.body;
        const entries = loadSessionEntries(lib.api.ctx.db, sessionId);
        const compaction = entries.find((entry) => entry.id === sent.autoCompaction?.entryId);
        const { id: _id, timestamp: _t, parentId, ...rest } = (compaction ?? {}) as Record<string, unknown>;
        expect(parentId).toBe(sent.userEntryId);
        return { rest, messages: (summarized as { messages?: unknown } | undefined)?.messages, count: entries.length };
      };
      const expected = await run(whole);
      const actual = await run(h);
      expect(expected.rest).toMatchObject({ type: "compaction", summary: expect.stringContaining("Overflow summary.") });
      expect(actual).toEqual(expected);
    } finally {
      await server.close();
      whole.close();
      removeDir(whole.dir);
    }
  });
});
