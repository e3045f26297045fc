// Undo and redo of a fork: the fork's undo record names the new session and never copies its
// entries, however long the path; undo deletes the fork from the library and redo brings it back
// exactly (ids, entries, view leaf, title, what it gained since). Records of the older format,
// which held the whole fork, still undo and redo.
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const TURNS = 2000;

/** u0/a0 … u1999/a1999 on one path, with a label on u3. */
function longSession(): SessionFile {
  const file = new SessionFile();
  for (let i = 0; i < TURNS; i++) {
    file.user(`u${i}`, `question ${i} ${"x".repeat(200)}`).assistant(`a${i}`, `answer ${i}`);
    if (i === 10) file.add("l1", "label", { targetId: "u3", label: "start" });
  }
  return file;
}

/** The library database beside the app's own connection (to read and seed `edit_ops`). */
function withDb<T>(run: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(h.dbPath);
  db.pragma("foreign_keys = ON");
  try {
    return run(db);
  } finally {
    db.close();
  }
}

function forkRecords(): { op_id: number; data_json: string }[] {
  return withDb(
    (db) =>
      db.prepare("SELECT op_id, data_json FROM edit_ops WHERE kind = 'fork'").all() as {
        op_id: number;
        data_json: string;
      }[],
  );
}

/** Everything a user sees of a session: header, entries, view leaf, title, labels. */
async function whole(sessionId: string) {
  const detail = await h.call("session:get", { sessionId });
  return {
    header: detail.header,
    entries: detail.entries.map((stored) => stored.entry),
    viewLeafId: detail.summary.viewLeafId,
    title: detail.summary.title,
    labels: detail.labels,
  };
}

async function listed(deleted: boolean): Promise<string[]> {
  return (await h.call("library:list", { deleted })).map((s) => s.id);
}

describe("undo of a fork", () => {
  it("records a small operation for a fork of a long session; undo then redo gives back the same fork", async () => {
    const sessionId = await h.importSession(longSession());
    const { forkSessionId } = await h.call("edits:fork", { sessionId, entryId: `a${TURNS / 2}` });
    const forkId = forkSessionId as string;
    await h.call("edits:rename", { sessionId: forkId, title: "the fork" });
    const before = await whole(forkId);
    expect(before.entries.length).toBeGreaterThan(TURNS);
    expect(before.labels).toEqual({ u3: "start" });

    const [record] = forkRecords();
    expect(record?.data_json.length).toBeLessThan(2048);

    expect((await h.call("edits:undo", { sessionId })).operation).toBe("fork");
    expect(await listed(false)).not.toContain(forkId);
    expect(await listed(true)).toContain(forkId);
    expect((await h.call("edits:redo", { sessionId })).operation).toBe("fork");
    expect(await listed(false)).toContain(forkId);
    expect(await listed(true)).not.toContain(forkId);
    expect(await whole(forkId)).toEqual(before);
    // The fork's own history came back with it.
    expect((await h.call("edits:undo", { sessionId: forkId })).operation).toBe("rename");
  });

  it("keeps what the fork gained since: undo and redo give back its own edits", async () => {
    const sessionId = await h.importSession(longSession());
    const forkId = (await h.call("edits:fork", { sessionId, entryId: "a5" })).forkSessionId as string;
    await h.call("edits:label", { sessionId: forkId, targetId: "u4", label: "later" });
    const before = await whole(forkId);
    await h.call("edits:undo", { sessionId });
    await h.call("edits:redo", { sessionId });
    expect(await whole(forkId)).toEqual(before);
    expect(before.labels).toMatchObject({ u4: "later" });
  });

  it("leaves a fork deleted by its own delete deleted, and its delete undoable", async () => {
    const sessionId = await h.importSession(longSession());
    const forkId = (await h.call("edits:fork", { sessionId, entryId: "a5" })).forkSessionId as string;
    await h.call("library:delete", { sessionId: forkId });
    await h.call("edits:undo", { sessionId });
    await h.call("edits:redo", { sessionId });
    expect(await listed(true)).toContain(forkId);
    expect((await h.call("edits:undo", { sessionId: forkId })).operation).toBe("delete");
    expect(await listed(false)).toContain(forkId);
  });

  it("undoes and redoes a fork recorded in the older format (the whole fork in the record)", async () => {
    const sessionId = await h.importSession(longSession());
    const forkId = (await h.call("edits:fork", { sessionId, entryId: "a5" })).forkSessionId as string;
    const before = await whole(forkId);
    const legacy = JSON.stringify({
      forkSessionId: forkId,
      dialect: "pi",
      header: before.header,
      entries: before.entries,
    });
    const [record] = forkRecords();
    withDb((db) =>
      db.prepare("UPDATE edit_ops SET data_json = ? WHERE op_id = ?").run(legacy, record?.op_id),
    );

    // Done: undo and redo as any fork.
    await h.call("edits:undo", { sessionId });
    expect(await listed(false)).not.toContain(forkId);
    await h.call("edits:redo", { sessionId });
    expect(await whole(forkId)).toEqual(before);

    // Undone by the older version, which removed the session: redo inserts it again.
    await h.call("edits:undo", { sessionId });
    withDb((db) => db.prepare("DELETE FROM sessions WHERE id = ?").run(forkId));
    await h.call("edits:redo", { sessionId });
    const again = await whole(forkId);
    expect(again.entries).toEqual(before.entries);
    expect(again.header).toEqual(before.header);
    expect(again.labels).toEqual(before.labels);
    expect(await listed(false)).toContain(forkId);
  });
});
