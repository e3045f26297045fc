// An edit from the app while another process (the CLI, a second app) holds the library's write
// lock: it waits asynchronously, so reads are answered meanwhile, then is made; past the limit it
// is refused saying what holds the library. The lock is held by a real second process (a child
// node process on the library file): a connection in this process could not let go while
// SQLite's own wait held the thread.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { holdLockElsewhere, type LockHolder } from "../../helpers/lock-holder.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";
import { chainSession } from "../pipelines/sessions.ts";

let h: Harness;
let holder: LockHolder | undefined;

beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  holder?.stop();
  holder = undefined;
  h.close();
  removeDir(h.dir);
});


/** Starts an edit, then times a read made right after it. */
async function readWhileEditing(
  sessionId: string,
): Promise<{ edit: Promise<PromiseSettledResult<unknown>>; readMs: number }> {
  const started = Date.now();
  const edit = Promise.allSettled([
    h.call("edits:label", { sessionId, targetId: "a1", label: "while locked" }),
  ]);
  await h.call("session:get", { sessionId });
  const readMs = Date.now() - started;
  return { edit: edit.then(([settled]) => settled as PromiseSettledResult<unknown>), readMs };
}

describe("another process holds the library's write lock", () => {
  it("an edit waits without holding reads up, then is made", async () => {
    const sessionId = await h.importSession(chainSession(4));
    holder = await holdLockElsewhere(h.dbPath, { forMs: 1500 });
    const { edit, readMs } = await readWhileEditing(sessionId);
    expect(readMs).toBeLessThan(700);
    expect((await edit).status).toBe("fulfilled");
    const { entries } = await h.call("session:get", { sessionId });
    expect(JSON.stringify(entries)).toContain("while locked");
  });

  it("a wait of more than a second is told to the pages, and its end too", async () => {
    const told: number[] = [];
    h.api.ctx.events.subscribe((name, payload) => {
      if (name === "library:write-waiting") told.push((payload as { waiting: number }).waiting);
    });
    const sessionId = await h.importSession(chainSession(4));
    holder = await holdLockElsewhere(h.dbPath, { forMs: 1800 });
    const started = Date.now();
    const edit = h.call("edits:label", { sessionId, targetId: "a1", label: "told" });
    await expect.poll(() => told, { timeout: 1500 }).toEqual([1]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await edit;
    expect(told).toEqual([1, 0]);
  });

  it("a short wait is not told", async () => {
    const told: number[] = [];
    h.api.ctx.events.subscribe((name) => {
      if (name === "library:write-waiting") told.push(1);
    });
    const sessionId = await h.importSession(chainSession(4));
    holder = await holdLockElsewhere(h.dbPath, { forMs: 300 });
    await h.call("edits:label", { sessionId, targetId: "a1", label: "quick" });
    expect(told).toEqual([]);
  });

  it("past the limit, the edit is refused saying what holds the library; reads go on meanwhile", async () => {
    h.api.ctx.writes.otherWriterLimitMs = 1000;
    const sessionId = await h.importSession(chainSession(4));
    holder = await holdLockElsewhere(h.dbPath, { forMs: 4000 });
    const { edit, readMs } = await readWhileEditing(sessionId);
    expect(readMs).toBeLessThan(700);
    const settled = await edit;
    expect(settled.status === "rejected" && String(settled.reason)).toMatch(
      /another Canopy process on the same library file \(a CLI command such as an import or prune, or another Canopy app\) has been writing to it for more than 1 second\. Nothing was changed; try again when it is done\.$/,
    );
    const { entries } = await h.call("session:get", { sessionId });
    expect(JSON.stringify(entries)).not.toContain("while locked");
  });
});
