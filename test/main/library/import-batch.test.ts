// A folder import stores its small files in shared transactions (main/library/import-batch.ts):
// far fewer WAL frames than one commit per file, the same sessions, and a batch whose writes are
// rolled back never leaves a file reported as imported that the library does not hold.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportSession } from "../../../main/library/export.ts";
import { importFile, importPath } from "../../../main/library/import.ts";
import { listSessions } from "../../../main/library/load.ts";
import { type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const at = "2026-12-01T00:00:00.000Z";

/** A small v3 session file `name` in `dir` with header id `id`. */
function writeSession(dir: string, name: string, id: string): string {
  const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: "/w" })];
  let parent: string | null = null;
  for (let i = 0; i < 40; i++) {
    const entryId = `${id}-${i}`;
    const role = i % 2 === 0 ? "user" : "assistant";
    const content = role === "user" ? `question ${i}` : [{ type: "text", text: `answer ${i}` }];
    lines.push(
      JSON.stringify({
        type: "message",
        id: entryId,
        parentId: parent,
        timestamp: at,
        message: { role, content },
      }),
    );
    parent = entryId;
  }
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** Frames in the WAL (importPath leaves checkpoints for later). */
function walFrames(db: Library["db"]): number {
  const [result] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
  return result?.log ?? 0;
}

function sessionIds(db: Library["db"]): string[] {
  return listSessions(db)
    .filter((s) => !s.isDemo)
    .map((s) => s.id)
    .sort();
}

describe("small files of a folder import share transactions", () => {
  it("writes a fraction of the WAL that a commit per file writes, and stores the same sessions", () => {
    const folder = path.join(lib.dir, "sessions");
    fs.mkdirSync(folder);
    const files = Array.from({ length: 60 }, (_, i) => writeSession(folder, `s${i}.jsonl`, `s${i}`));
    const before = walFrames(lib.db);
    const report = importPath(lib.db, folder);
    expect(report).toMatchObject({ imported: 60, failed: 0 });
    const batched = walFrames(lib.db) - before;

    const other = makeLibrary();
    try {
      const start = walFrames(other.db);
      for (const file of files) importFile(other.db, file);
      const perFile = walFrames(other.db) - start;
      expect(batched * 5).toBeLessThan(perFile);
      expect(sessionIds(lib.db)).toEqual(sessionIds(other.db));
      for (const id of ["s0", "s31", "s59"])
        expect(exportSession(lib.db, id).text).toBe(exportSession(other.db, id).text);
    } finally {
      other.cleanup();
    }
  });

  it("a batch the library rolls back reports its files as failed, and the next import brings them in", () => {
    const folder = path.join(lib.dir, "sessions");
    fs.mkdirSync(folder);
    for (const id of ["a", "b", "c"]) writeSession(folder, `${id}.jsonl`, id);
    // Storing session b makes SQLite roll back the whole transaction (as a full disk would).
    lib.db.exec(`CREATE TEMP TRIGGER fail_b BEFORE INSERT ON main.sessions WHEN NEW.header_id = 'b'
      BEGIN SELECT RAISE(ROLLBACK, 'disk is full'); END`);
    const report = importPath(lib.db, folder);
    expect(report.files.map((f) => [path.basename(f.path), f.status])).toEqual([
      ["a.jsonl", "failed"],
      ["b.jsonl", "failed"],
      ["c.jsonl", "imported"],
    ]);
    expect(report.files[0]?.reason).toMatch(/rolled the write back/);
    expect(report.files[1]?.reason).toMatch(/disk is full/);
    expect(sessionIds(lib.db)).toEqual(["c"]);

    lib.db.exec("DROP TRIGGER fail_b");
    expect(importPath(lib.db, folder)).toMatchObject({ imported: 2, unchanged: 1, failed: 0 });
    expect(sessionIds(lib.db)).toEqual(["a", "b", "c"]);
  });
});
