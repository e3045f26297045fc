// A library that cannot be opened (damaged, in a folder that cannot be written, on a full disk)
// is refused in one line naming the file and why, never in SQLite's own words alone.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../../../main/store/errors.ts";
import { describeOpenFailure } from "../../../main/store/open-failure.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { addTestSession, makeTempDir } from "./helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => {
  fs.chmodSync(tmp.dir, 0o755);
  tmp.cleanup();
});

/** A library with a few thousand rows, closed (no -wal left). */
function someLibrary(file: string): void {
  const db = openDatabase(file);
  for (let i = 0; i < 200; i++) addTestSession(db, `session-${i}-${"x".repeat(2000)}`);
  db.close();
}

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("opening a library that cannot be opened", () => {
  it("a library cut in half is said to be damaged, by name, and left as it was", async () => {
    const file = path.join(tmp.dir, "library.db");
    someLibrary(file);
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const before = fs.readFileSync(file);

    const run = await runCliCaptured(["list", "--db", file]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `canopy: error: The library ${file} is damaged (database disk image is malformed); Canopy leaves it untouched. Restore it from a backup, or use another path (--db, or CANOPY_DB for the app).\n`,
    );
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it.skipIf(process.getuid?.() === 0)("a library in a folder that cannot be written says so", () => {
    const file = path.join(tmp.dir, "library.db");
    someLibrary(file);
    fs.chmodSync(tmp.dir, 0o555);
    let error: unknown;
    try {
      openDatabase(file).close();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(
      `Cannot open the library ${file}: its folder cannot be written (permission denied)`,
    );
  });

  it.skipIf(process.getuid?.() === 0)(
    "a library opened while read-only can be written again once its file is made writable",
    () => {
      const file = path.join(tmp.dir, "library.db");
      someLibrary(file);
      fs.chmodSync(file, 0o444);
      const readOnly = openDatabase(file);
      expect(readOnly.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(200);
      readOnly.close();
      // SQLite made the -shm with the library's mode (read-only) and could not remove it.
      fs.chmodSync(file, 0o644);
      const db = openDatabase(file);
      try {
        addTestSession(db, "written-after-chmod");
        expect(db.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(201);
      } finally {
        db.close();
      }
    },
  );

  it("a full disk and other file-level failures name the library; other errors pass through", () => {
    const file = path.join(tmp.dir, "library.db");
    const full = describeOpenFailure(file, sqliteError("SQLITE_FULL", "database or disk is full"));
    expect((full as StoreError).message).toBe(
      `Cannot open the library ${file}: the disk is full. Free some space and try again.`,
    );
    const io = describeOpenFailure(file, sqliteError("SQLITE_IOERR_SHMSIZE", "disk I/O error"));
    expect((io as StoreError).message).toMatch(`Cannot open the library ${file}: disk I/O error.`);
    const other = sqliteError("SQLITE_ERROR", "no such table: x");
    expect(describeOpenFailure(file, other)).toBe(other);
  });
});
