// Two Canopy processes on one library (the app and the CLI, or two servers): each has its own
// job list, so one does not know of the other's running chat turn or summary. What the second
// does meanwhile — undo the edited message the job writes below, delete the session — must not
// lose what the model wrote: it is saved (below the edit brought back hidden; in the deleted
// session) and the process that ran the job says where. Two connections on one library file,
// each with its own app context, and a real HTTP model server holding its reply part-way.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { archivedEntryIds } from "../../../main/library/edits.ts";
import { type FakeServer, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { createHarness, type Harness, removeDir, until } from "./harness.ts";
import { chainSession } from "./sessions.ts";

let fake: FakeServer;
/** The process running the job. */
let a: Harness;
/** The other process (the CLI, a second server) on the same library file. */
let b: Harness;
let release: () => void;

beforeEach(async () => {
  fake = await startFakeOpenAiServer();
  a = createHarness();
  b = createHarness({ dir: a.dir });
  await a.configureFakeModel(fake, { stream: true });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  fake.enqueue({ type: "reply", chunks: ["Written by ", "the model."], holdRest: held });
});
afterEach(async () => {
  release();
  a.close();
  b.close();
  await fake.close();
  removeDir(a.dir);
});

/** Imports the chain session and edits u3 (the view leaf moves to the edited copy). */
async function editedSession(): Promise<{ sessionId: string; editId: string }> {
  const sessionId = await a.importSession(chainSession(6));
  const edit = await a.call("edits:edit-message", {
    sessionId,
    entryId: "u3",
    text: "Third question, edited.",
  });
  return { sessionId, editId: edit.entryId as string };
}

/** Runs `job` in `a` until the model has started answering, then `meanwhile` in `b`, then lets the model finish. */
async function whileRunning<T>(
  job: Promise<T>,
  meanwhile: () => Promise<unknown>,
): Promise<PromiseSettledResult<T>> {
  await until(() => fake.requests.length === 1, 5000, "the model request");
  await meanwhile();
  release();
  const [settled] = await Promise.allSettled([job]);
  return settled as PromiseSettledResult<T>;
}

function failure(settled: PromiseSettledResult<unknown>): string {
  if (settled.status === "fulfilled") throw new Error("the job was expected to report where its result went");
  return String((settled.reason as Error).message);
}

async function modelTextStored(
  h: Harness,
  sessionId: string,
): Promise<{ id: string; parentId: string | null }[]> {
  const { entries } = await h.call("session:get", { sessionId });
  return entries
    .filter((stored) => JSON.stringify(stored.entry).includes("Written by the model."))
    .map((stored) => ({ id: stored.entry.id, parentId: stored.entry.parentId }));
}

/** The session exports as a tree: every id once, every parent among them (the export round-trips). */
async function expectConsistentExport(sessionId: string): Promise<void> {
  const exported = await b.call("session:export", { sessionId });
  const lines = (exported.text ?? "")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as { id: string; parentId: string | null });
  const ids = new Set(lines.map((line) => line.id));
  expect(ids.size).toBe(lines.length);
  expect(lines.filter((line) => line.parentId !== null && !ids.has(line.parentId))).toEqual([]);
}

describe("another Canopy undoes the edited message a job writes below", () => {
  it("a chat reply is saved below the edit, which comes back hidden; redo there shows both", async () => {
    const { sessionId, editId } = await editedSession();
    const turn = a.call("chat:send", { sessionId, text: "Which tokens changed?" });
    const settled = await whileRunning(turn, async () => {
      const undone = await b.call("edits:undo", { sessionId });
      expect(undone.operation).toBe("edit-message");
    });
    expect(failure(settled)).toMatch(/undone meanwhile .* it is saved below that edit/);

    const detail = await b.call("session:get", { sessionId });
    const byId = new Map(detail.entries.map((stored) => [stored.entry.id, stored.entry]));
    expect(byId.has(editId)).toBe(true);
    const [reply] = await modelTextStored(b, sessionId);
    const question = reply ? byId.get(reply.parentId as string) : undefined;
    expect(question?.parentId).toBe(editId);
    expect(JSON.stringify(question)).toContain("Which tokens changed?");
    // Hidden as an undone answered edit is; the view leaf stays where the undo put it.
    const hidden = archivedEntryIds(b.api.ctx.db, sessionId);
    expect([editId, question?.id, reply?.id].every((id) => hidden.has(id as string))).toBe(true);
    expect(detail.summary.viewLeafId).toBe("a3");
    // Redo of the edit shows its branch with the reply.
    const redone = await b.call("edits:redo", { sessionId });
    expect(redone.operation).toBe("edit-message");
    expect(redone.note).toMatch(/shown again/);
    expect(archivedEntryIds(b.api.ctx.db, sessionId).size).toBe(0);
    await expectConsistentExport(sessionId);
  });

  it("after an undo that no redo can take back (another edit since), a chat reply is saved below a hidden copy of the edited message", async () => {
    const { sessionId, editId } = await editedSession();
    const turn = a.call("chat:send", { sessionId, text: "Which tokens changed?" });
    const settled = await whileRunning(turn, async () => {
      await b.call("edits:undo", { sessionId });
      await b.call("edits:rename", { sessionId, title: "Renamed since" });
    });
    expect(failure(settled)).toMatch(
      /removed meanwhile .* saved below a copy of that entry, on an archived branch/,
    );
    const { entries, summary } = await b.call("session:get", { sessionId });
    const byId = new Map(entries.map((stored) => [stored.entry.id, stored.entry]));
    expect(JSON.stringify(byId.get(editId))).toContain("Third question, edited.");
    const [reply] = await modelTextStored(b, sessionId);
    expect(byId.get(reply?.parentId as string)?.parentId).toBe(editId);
    expect(archivedEntryIds(b.api.ctx.db, sessionId).has(reply?.id as string)).toBe(true);
    expect(summary.viewLeafId).toBe("a3");
    expect(summary.title).toBe("Renamed since");
    await expectConsistentExport(sessionId);
  });

  it("a compaction at an explicit leaf is saved below the edit, which comes back hidden", async () => {
    const { sessionId, editId } = await editedSession();
    const run = a.call("compaction:run", { sessionId, leafId: editId, keepRecentTokens: 1 });
    const settled = await whileRunning(run, () => b.call("edits:undo", { sessionId }));
    expect(failure(settled)).toMatch(/undone meanwhile .* it is saved below that edit/);
    const stored = await modelTextStored(b, sessionId);
    expect(stored).toEqual([{ id: expect.any(String), parentId: editId }]);
  });

  it("a summary planned on the view leaf is refused saying the view leaf moved, not that the agent wrote", async () => {
    const { sessionId } = await editedSession();
    const run = a.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    const settled = await whileRunning(run, () => b.call("edits:undo", { sessionId }));
    expect(failure(settled)).toBe(
      "navigation:navigate failed: conflict: The view leaf was moved while the summary was being written; nothing was saved. Run it again.",
    );
  });
});

describe("another Canopy deletes the session while a job writes", () => {
  it("a chat reply is saved with the deleted session; undoing the delete brings both back", async () => {
    const { sessionId, editId } = await editedSession();
    const turn = a.call("chat:send", { sessionId, text: "Which tokens changed?" });
    const settled = await whileRunning(turn, () => b.call("library:delete", { sessionId }));
    expect(failure(settled)).toMatch(/was deleted from the library .* it is saved with the session/);
    const undone = await b.call("edits:undo", { sessionId });
    expect(undone.operation).toBe("delete");
    const [reply] = await modelTextStored(b, sessionId);
    expect(reply).toBeDefined();
    // The reply was written where the view leaf was; it followed there, as with no delete.
    expect(undone.viewLeafId).toBe(reply?.id);
    const { entries } = await b.call("session:get", { sessionId });
    expect(entries.find((stored) => stored.entry.id === reply?.parentId)?.entry.parentId).toBe(editId);
    await expectConsistentExport(sessionId);
  });

  it("a branch summary is saved with the deleted session", async () => {
    const { sessionId } = await editedSession();
    const run = a.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    const settled = await whileRunning(run, () => b.call("library:delete", { sessionId }));
    expect(failure(settled)).toMatch(/was deleted from the library .* it is saved with the session/);
    await b.call("library:restore", { sessionId });
    const stored = await modelTextStored(b, sessionId);
    expect(stored).toEqual([{ id: expect.any(String), parentId: "a1" }]);
  });

  it("a compaction is saved with the deleted session", async () => {
    const { sessionId } = await editedSession();
    const run = a.call("compaction:run", { sessionId, keepRecentTokens: 1 });
    const settled = await whileRunning(run, () => b.call("library:delete", { sessionId }));
    expect(failure(settled)).toMatch(/was deleted from the library .* it is saved with the session/);
    await b.call("library:restore", { sessionId });
    expect(await modelTextStored(b, sessionId)).toHaveLength(1);
  });
});

describe("another Canopy holds the library's write lock when the model's answer comes", () => {
  it("the chat reply waits for the lock (the serving thread free meanwhile) instead of failing after busy_timeout", async () => {
    const { sessionId } = await editedSession();
    // As a long CLI import or prune holds it; a short busy_timeout keeps the test quick.
    a.api.ctx.db.pragma("busy_timeout = 200");
    const turn = a.call("chat:send", { sessionId, text: "Which tokens changed?" });
    let heldFor = 0;
    const settled = await whileRunning(turn, async () => {
      b.api.ctx.db.exec("BEGIN IMMEDIATE");
      const started = Date.now();
      // Released by a timer: it runs only if the waiting save leaves this thread free.
      setTimeout(() => {
        heldFor = Date.now() - started;
        b.api.ctx.db.exec("COMMIT");
      }, 1000);
    });
    expect(settled.status).toBe("fulfilled");
    expect(heldFor).toBeGreaterThanOrEqual(1000);
    const [reply] = await modelTextStored(b, sessionId);
    expect(reply?.id).toBe(settled.status === "fulfilled" ? settled.value.assistantEntryId : null);
  });

  it("so does a compaction's summary", async () => {
    const { sessionId } = await editedSession();
    a.api.ctx.db.pragma("busy_timeout = 200");
    const run = a.call("compaction:run", { sessionId, keepRecentTokens: 1 });
    const settled = await whileRunning(run, async () => {
      b.api.ctx.db.exec("BEGIN IMMEDIATE");
      setTimeout(() => b.api.ctx.db.exec("COMMIT"), 1000);
    });
    expect(settled.status).toBe("fulfilled");
    expect(await modelTextStored(b, sessionId)).toHaveLength(1);
  });
});

describe("a job waiting for another Canopy's write lock is cancelled", () => {
  /**
   * Runs `job` in `a`; once the model has answered and the save waits for the lock `b` holds
   * (the wait's first probe), `abort`s it in `a`. The job must end at once, nothing saved, while
   * `b` still holds the lock (a CLI import or prune can hold it for minutes).
   */
  async function cancelledWhileWaiting<T>(
    job: Promise<T>,
    sessionId: string,
    abort: () => Promise<unknown>,
  ): Promise<PromiseSettledResult<T>> {
    await until(() => fake.requests.length === 1, 5000, "the model request");
    const db = a.api.ctx.db;
    let probes = 0;
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (source === "busy_timeout = 0") probes += 1;
      return pragma(source, options);
    }) as typeof db.pragma;
    b.api.ctx.db.exec("BEGIN IMMEDIATE");
    try {
      release();
      await until(() => probes > 0, 5000, "the save waiting for the lock");
      const before = await a.snapshot(sessionId);
      await abort();
      const ended = await Promise.race([
        Promise.allSettled([job]).then(([settled]) => settled),
        new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 2000)),
      ]);
      expect(ended).not.toBe("still waiting");
      expect(await a.snapshot(sessionId)).toEqual(before);
      expect(await modelTextStored(a, sessionId)).toEqual([]);
      return ended as PromiseSettledResult<T>;
    } finally {
      b.api.ctx.db.exec("ROLLBACK");
      db.pragma = pragma;
    }
  }

  it("a chat reply: chat:abort ends the turn cancelled at once, nothing saved", async () => {
    const { sessionId } = await editedSession();
    const turn = a.call("chat:send", { sessionId, text: "Which tokens changed?" });
    const settled = await cancelledWhileWaiting(turn, sessionId, () => a.call("chat:abort", { sessionId }));
    expect(failure(settled)).toMatch(/cancelled/);
    // Nothing is saved once the lock is free either: the turn is over.
    expect(await modelTextStored(b, sessionId)).toEqual([]);
  });

  it("a compaction: compaction:abort ends it cancelled at once", async () => {
    const { sessionId } = await editedSession();
    const run = a.call("compaction:run", { sessionId, keepRecentTokens: 1 });
    const settled = await cancelledWhileWaiting(run, sessionId, () => a.call("compaction:abort", { sessionId }));
    expect(failure(settled)).toMatch(/cancelled/);
  });

  it("a branch summary: navigation:abort ends it cancelled at once, the view leaf where it was", async () => {
    const { sessionId } = await editedSession();
    const run = a.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    const settled = await cancelledWhileWaiting(run, sessionId, () => a.call("navigation:abort", { sessionId }));
    expect(settled.status === "fulfilled" && settled.value.cancelled).toBe(true);
  });
});
