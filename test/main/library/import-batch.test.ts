// A folder import stores its files in shared transactions (main/library/import-batch.ts): far
// fewer WAL frames than one commit per file, the same sessions, foreign keys checked again after
// (and for merges throughout), and a batch whose writes are rolled back never leaves a file
// reported as imported that the library does not hold.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importFile, importPath } from "../../../main/library/import.ts";
import { getSessionSummary, listSessions } from "../../../main/library/load.ts";
import { importThreadStats } from "../../../main/library/parallel-rows.ts";
import { expectSameSessions, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const at = "2026-12-01T00:00:00.000Z";

/** A v3 session file `name` in `dir` with header id `id`: 40 short entries, or about `bytes` of them. */
function writeSession(dir: string, name: string, id: string, bytes = 0): string {
  const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: "/w" })];
  const filler = bytes > 0 ? ` ${"lorem ipsum ".repeat(80)}` : "";
  let parent: string | null = null;
  for (let i = 0; i < Math.max(40, Math.ceil(bytes / 1100)); i++) {
    const entryId = `${id}-${i}`;
    const role = i % 2 === 0 ? "user" : "assistant";
    const content =
      role === "user" ? `question ${i}${filler}` : [{ type: "text", text: `answer ${i}${filler}` }];
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

/** WAL frames `write` adds (checkpoints held off meanwhile, as importPath does). */
function framesWritten(db: Library["db"], write: () => void): number {
  // Emptied: the WAL starts over with the next write.
  db.pragma("wal_checkpoint(TRUNCATE)");
  const auto = db.pragma("wal_autocheckpoint", { simple: true }) as number;
  db.pragma("wal_autocheckpoint = 0");
  try {
    write();
  } finally {
    db.pragma(`wal_autocheckpoint = ${auto}`);
  }
  const [result] = db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
  return result?.log ?? 0;
}

function sessionIds(db: Library["db"]): string[] {
  return listSessions(db)
    .filter((s) => !s.isDemo)
    .map((s) => s.id)
    .sort();
}

/**
 * Imports `files` one at a time (a commit each) into a second library, checks that it then holds
 * the sessions `lib` holds (`ids` compared in full), and returns the WAL frames that took.
 */
function framesOneAtATime(files: readonly string[], ids: readonly string[]): number {
  const other = makeLibrary();
  try {
    const frames = framesWritten(other.db, () => {
      for (const file of files) importFile(other.db, file);
    });
    expect(sessionIds(lib.db)).toEqual(sessionIds(other.db));
    expectSameSessions(lib.db, other.db, ids);
    return frames;
  } finally {
    other.cleanup();
  }
}

describe("small files of a folder import share transactions", () => {
  it("writes a fraction of the WAL that a commit per file writes, and stores the same sessions", () => {
    const folder = path.join(lib.dir, "sessions");
    fs.mkdirSync(folder);
    const files = Array.from({ length: 60 }, (_, i) => writeSession(folder, `s${i}.jsonl`, `s${i}`));
    let report: ReturnType<typeof importPath> | undefined;
    const batched = framesWritten(lib.db, () => {
      report = importPath(lib.db, folder);
    });
    expect(report).toMatchObject({ imported: 60, failed: 0 });
    expect(batched * 5).toBeLessThan(framesOneAtATime(files, ["s0", "s31", "s59"]));
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
    // The batch of new sessions ran without foreign-key checks: they are back on.
    expect(lib.db.pragma("foreign_keys", { simple: true })).toBe(1);

    lib.db.exec("DROP TRIGGER fail_b");
    expect(importPath(lib.db, folder)).toMatchObject({ imported: 2, unchanged: 1, failed: 0 });
    expect(sessionIds(lib.db)).toEqual(["a", "b", "c"]);
  });
});

describe("new sessions of a folder import share transactions whatever their size", () => {
  it("files parsed on the import thread are committed a few at a time: less WAL than a commit per file, the same sessions", () => {
    // 36 MB of new sessions: the folder import parses them on the thread.
    const folder = path.join(lib.dir, "sessions");
    fs.mkdirSync(folder);
    const files = Array.from({ length: 36 }, (_, i) =>
      writeSession(folder, `big${i}.jsonl`, `big${i}`, 1_000_000),
    );
    const onThread = importThreadStats().files;
    const batched = framesWritten(lib.db, () => {
      expect(importPath(lib.db, folder)).toMatchObject({ imported: 36, failed: 0 });
    });
    expect(importThreadStats().files - onThread).toBeGreaterThan(30);
    // Stored without per-row foreign-key lookups: the keys hold, and enforcement is back on.
    expect(lib.db.pragma("foreign_key_check")).toEqual([]);
    expect(lib.db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(batched).toBeLessThan(framesOneAtATime(files, ["big0", "big17", "big35"]) * 0.85);
  });

  it("a file whose session moved here is merged into it, among new files, with foreign-key checks on", () => {
    const old = path.join(lib.dir, "old");
    fs.mkdirSync(old);
    writeSession(old, "m.jsonl", "m");
    expect(importPath(lib.db, old)).toMatchObject({ imported: 1 });
    const folder = path.join(lib.dir, "sessions");
    fs.mkdirSync(folder);
    writeSession(folder, "a.jsonl", "a");
    fs.renameSync(path.join(old, "m.jsonl"), path.join(folder, "m.jsonl"));
    writeSession(folder, "z.jsonl", "z");
    const report = importPath(lib.db, folder);
    expect(report.files.map((f) => [path.basename(f.path), f.status])).toEqual([
      ["a.jsonl", "imported"],
      ["m.jsonl", "updated"],
      ["z.jsonl", "imported"],
    ]);
    expect(sessionIds(lib.db)).toEqual(["a", "m", "z"]);
    expect(getSessionSummary(lib.db, "m").sourcePath).toBe(fs.realpathSync(path.join(folder, "m.jsonl")));
    expect(lib.db.pragma("foreign_key_check")).toEqual([]);
    expect(lib.db.pragma("foreign_keys", { simple: true })).toBe(1);
  });
});
