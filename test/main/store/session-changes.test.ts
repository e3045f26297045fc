// The session change log (migration 5 + store/change-writer.ts): every kind of write gives its
// session a new, higher seq; an import touches its session once or twice, not per entry; writes are
// signed with the process id by Canopy's connections and unsigned by any other program; a
// session removed for good never lets a seq repeat; a version-4 library migrates; the poll's
// query reads the seq index, not the table.
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { importPath } from "../../../main/library/import.ts";
import { appendSessionEntries } from "../../../main/library/write.ts";
import { OWN_WRITER } from "../../../main/store/change-writer.ts";
import { MIGRATIONS, runMigrations } from "../../../main/store/migrations/index.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { lastDoneOp, recordOp, setArchived, setOpState } from "../../../main/store/repos/edits.ts";
import {
  CHANGES_SINCE_SQL,
  changesSince,
  latestChangeSeq,
} from "../../../main/store/repos/session-changes.ts";
import { deleteSession, updateSession } from "../../../main/store/repos/sessions.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { addTestSession, type Library, makeLibrary, makeTempDir } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

describe("session change log", () => {
  it("gives the written session a higher seq for each kind of write, signed by this process", () => {
    const { db } = lib;
    const sid = addTestSession(db, "s1");
    addTestSession(db, "s2");
    const label: SessionEntry = {
      type: "label",
      id: "l1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      targetId: "l1",
      label: "x",
    };
    const seqOf = () => changesSince(db, 0).find((c) => c.sid === sid)?.seq ?? 0;
    let last = seqOf();
    expect(last).toBeGreaterThan(0);
    const writes: [string, () => void][] = [
      ["view leaf", () => updateSession(db, "s1", { view_leaf_id: null, view_leaf_set: 1 })],
      ["Canopy's entry", () => appendSessionEntries(db, "s1", [label])],
      ["undo stack", () => recordOp(db, sid, "label", {})],
      ["undo", () => setOpState(db, lastDoneOp(db, sid)?.op_id ?? 0, "undone")],
      ["archive", () => setArchived(db, sid, "l1", true)],
      ["unarchive", () => setArchived(db, sid, "l1", false)],
      ["soft delete", () => updateSession(db, "s1", { deleted_at: "2026-01-02T00:00:00.000Z" })],
    ];
    for (const [what, write] of writes) {
      write();
      const now = seqOf();
      expect(now, what).toBeGreaterThan(last);
      expect(latestChangeSeq(db), what).toBe(now);
      last = now;
    }
    expect(changesSince(db, 0)).toEqual([
      expect.objectContaining({ id: "s2", writer: OWN_WRITER }),
      { sid, seq: last, writer: OWN_WRITER, id: "s1" },
    ]);
  });

  it("touches an imported session once or twice, not once per entry", () => {
    const { db } = lib;
    const before = latestChangeSeq(db);
    const report = importPath(db, fixturePath("tree-00.jsonl"));
    expect(report.entriesAdded).toBeGreaterThan(40);
    expect(latestChangeSeq(db) - before).toBeLessThanOrEqual(2);
    expect(changesSince(db, before).map((c) => c.id)).toEqual([report.files[0]?.sessionId]);
  });

  it("leaves writes of a connection that is not Canopy's unsigned", () => {
    addTestSession(lib.db, "s1");
    const seen = latestChangeSeq(lib.db);
    const other = new BetterSqlite3(lib.dbFile);
    other.prepare("UPDATE sessions SET canopy_title = 'x' WHERE id = 's1'").run();
    other.close();
    expect(changesSince(lib.db, seen)).toEqual([expect.objectContaining({ id: "s1", writer: null })]);
    // Signed again by the next write of a Canopy connection.
    updateSession(lib.db, "s1", { canopy_title: "y" });
    expect(changesSince(lib.db, seen)).toEqual([expect.objectContaining({ id: "s1", writer: OWN_WRITER })]);
  });

  it("keeps the row of a session removed for good, so no seq is handed out twice", () => {
    const { db } = lib;
    addTestSession(db, "s1");
    addTestSession(db, "s2");
    const top = latestChangeSeq(db);
    deleteSession(db, "s2");
    const gone = changesSince(db, top);
    expect(gone).toEqual([expect.objectContaining({ id: null, writer: OWN_WRITER })]);
    expect(gone[0]?.seq).toBeGreaterThan(top);
    addTestSession(db, "s3");
    expect(latestChangeSeq(db)).toBeGreaterThan(gone[0]?.seq ?? Number.POSITIVE_INFINITY);
  });

  it("migrates a version-4 library: its sessions keep working and are logged from their next write", () => {
    const tmp = makeTempDir();
    try {
      const file = path.join(tmp.dir, "v4.db");
      const raw = new BetterSqlite3(file);
      expect(runMigrations(raw, MIGRATIONS, 4).to).toBe(4);
      const now = "2026-01-01T00:00:00.000Z";
      raw
        .prepare(
          `INSERT INTO sessions (id, header_id, dialect, original_version, header_json, created, modified, imported_at, updated_at)
           VALUES ('old', 'old', 'pi', 3, '{}', ?, ?, ?, ?)`,
        )
        .run(now, now, now, now);
      raw.close();
      const db = openDatabase(file);
      expect(latestChangeSeq(db)).toBe(0);
      updateSession(db, "old", { canopy_title: "renamed" });
      expect(changesSince(db, 0)).toEqual([
        expect.objectContaining({ id: "old", seq: 1, writer: OWN_WRITER }),
      ]);
      db.close();
    } finally {
      tmp.cleanup();
    }
  });

  it("answers the poll from the seq index", () => {
    const plan = lib.db.prepare(`EXPLAIN QUERY PLAN ${CHANGES_SINCE_SQL}`).all(0) as { detail: string }[];
    const details = plan.map((row) => row.detail).join("\n");
    expect(details).toMatch(/SEARCH c USING INDEX session_changes_by_seq \(seq>\?\)/);
    expect(details).not.toMatch(/SCAN/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  });
});
