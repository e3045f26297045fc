// A library that cannot be opened (damaged, in a folder that cannot be written, on a full disk)
// is refused in one line naming the file and why, never in SQLite's own words alone.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreError } from "../../../main/store/errors.ts";
import { describeOpenFailure } from "../../../main/store/open-failure.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { repoRoot } from "../../helpers/fixtures.ts";
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

/**
 * The CLI as a user without root's power to write anything: permissions are what these tests are
 * about, and root ignores them. As root (CI) it runs in a user namespace of its own (util-linux
 * `unshare -U`), where root keeps owning its files but loses the override of their modes.
 */
function cliWithoutPrivileges(args: readonly string[]): SpawnSyncReturns<string> {
  const command = [
    process.execPath,
    "--experimental-strip-types",
    path.join(repoRoot, "main/cli.ts"),
    ...args,
  ];
  const asRoot = process.getuid?.() === 0;
  const run = spawnSync(
    asRoot ? "unshare" : (command[0] as string),
    asRoot ? ["-U", ...command] : command.slice(1),
    {
      encoding: "utf8",
      env: { ...process.env, CANOPY_NO_DEMO: "1" },
    },
  );
  if (run.error) throw new Error(`could not run the CLI without privileges: ${run.error.message}`);
  return run;
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

  it("a library in a folder that cannot be written says so", () => {
    const file = path.join(tmp.dir, "library.db");
    someLibrary(file);
    fs.chmodSync(tmp.dir, 0o555);
    const run = cliWithoutPrivileges(["list", "--db", file]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `Cannot open the library ${file}: its folder cannot be written (permission denied)`,
    );
  });

  it("a library in a folder that cannot be entered says so, not in Node's words (EACCES: … stat)", () => {
    const locked = path.join(tmp.dir, "locked");
    fs.mkdirSync(locked);
    for (const file of [path.join(locked, "library.db"), path.join(locked, "sub", "library.db")]) {
      fs.chmodSync(locked, 0o000);
      const run = cliWithoutPrivileges(["list", "--db", file]);
      fs.chmodSync(locked, 0o755);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `canopy: error: Cannot open the library ${file}: permission denied. Use another path (--db, or CANOPY_DB for the app).\n`,
      );
    }
  });

  it("a library opened while read-only can be written again once its file is made writable", () => {
    const file = path.join(tmp.dir, "library.db");
    someLibrary(file);
    fs.chmodSync(file, 0o444);
    expect(cliWithoutPrivileges(["list", "--db", file]).status).toBe(0);
    // SQLite made the -shm with the library's mode (read-only) and could not remove it.
    fs.chmodSync(file, 0o644);
    const write = cliWithoutPrivileges([
      "settings",
      "set",
      "compaction.keepRecentTokens",
      "1234",
      "--db",
      file,
    ]);
    expect(write.stderr).toBe("");
    expect(write.status).toBe(0);
    const db = openDatabase(file);
    try {
      const stored = db.prepare("SELECT key, value_json FROM settings").all();
      expect(JSON.stringify(stored)).toContain("1234");
    } finally {
      db.close();
    }
  });

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
