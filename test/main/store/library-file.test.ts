// Which files openDatabase accepts as a library: new, empty or Canopy's own; a folder, a file that
// is not SQLite and another program's database are refused with a clear message, untouched.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreError } from "../../../main/store/errors.ts";
import { CANOPY_APPLICATION_ID, resolveLibraryPath } from "../../../main/store/library-file.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { repoRoot } from "../../helpers/fixtures.ts";
import { makeTempDir } from "./helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => tmp.cleanup());

const digest = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

function refusal(file: string): StoreError {
  try {
    openDatabase(file).close();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("not_a_library");
    return error as StoreError;
  }
  throw new Error(`${file} was opened`);
}

/** A database of another program: a table of its own, nothing of Canopy's. */
function foreignDatabase(file: string, applicationId = 0): void {
  const db = new BetterSqlite3(file);
  db.exec(
    "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://x')",
  );
  if (applicationId !== 0) db.pragma(`application_id = ${applicationId}`);
  db.close();
}

describe("openDatabase: what it accepts as a library", () => {
  it("marks a new library as Canopy's (SQLite application_id)", () => {
    const file = path.join(tmp.dir, "library.db");
    const db = openDatabase(file);
    expect(db.pragma("application_id", { simple: true })).toBe(CANOPY_APPLICATION_ID);
    db.close();
  });

  it("opens a library made before the mark (schema and tables, application_id 0) and marks it", () => {
    const file = path.join(tmp.dir, "library.db");
    const before = openDatabase(file);
    before.pragma("application_id = 0");
    before.exec("INSERT INTO settings (key, value_json, updated_at) VALUES ('kept', '1', 'now')");
    before.close();
    const db = openDatabase(file);
    expect(db.pragma("application_id", { simple: true })).toBe(CANOPY_APPLICATION_ID);
    expect(db.prepare("SELECT value_json FROM settings WHERE key = 'kept'").pluck().get()).toBe("1");
    db.close();
  });

  it("refuses another program's database and leaves it byte for byte as it was", () => {
    const file = path.join(tmp.dir, "places.sqlite");
    foreignDatabase(file);
    const hash = digest(file);
    const error = refusal(file);
    expect(error.message).toBe(
      `${file} is another program's SQLite database, not a Canopy library; Canopy leaves it untouched. Use another path (--db, or CANOPY_DB for the app).`,
    );
    expect(digest(file)).toBe(hash);
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const check = new BetterSqlite3(file);
    expect(check.pragma("journal_mode", { simple: true })).toBe("delete");
    check.close();
  });

  it("refuses a database marked by another program, even with no table yet", () => {
    const file = path.join(tmp.dir, "other.db");
    const db = new BetterSqlite3(file);
    db.pragma("application_id = 1234");
    db.close();
    expect(refusal(file).message).toMatch(/another program's SQLite database/);
  });

  it("refuses a file that is not SQLite, untouched", () => {
    const file = path.join(tmp.dir, "notes.db");
    fs.writeFileSync(file, "these are my notes, not a database\n".repeat(200));
    const hash = digest(file);
    expect(refusal(file).message).toBe(
      `${file} is not a Canopy library: it is not an SQLite database. Use another path (--db, or CANOPY_DB for the app).`,
    );
    expect(digest(file)).toBe(hash);
  });

  it("refuses a folder, and a path below a file", () => {
    expect(refusal(tmp.dir).message).toBe(
      `The library path ${tmp.dir} is a folder, not a database file (for example ${path.join(tmp.dir, "library.db")}).`,
    );
    const file = path.join(tmp.dir, "plain.txt");
    fs.writeFileSync(file, "x");
    expect(refusal(path.join(file, "library.db")).message).toBe(
      `Cannot create the folder of the library ${path.join(file, "library.db")}: a part of that path is a file.`,
    );
  });

  it("refuses a device, leaving nothing beside it (no /dev/null-journal)", () => {
    expect(refusal("/dev/null").message).toBe(
      "The library path /dev/null is not a regular file (a device, pipe or socket). Use another path (--db, or CANOPY_DB for the app).",
    );
    expect(fs.existsSync("/dev/null-journal")).toBe(false);
    expect(fs.existsSync("/dev/null-wal")).toBe(false);
  });

  it("reads a leading ~ in the library path as the home folder, as a shell would", () => {
    expect(resolveLibraryPath("~/canopy/library.db")).toBe(path.join(os.homedir(), "canopy", "library.db"));
    expect(resolveLibraryPath("relative.db")).toBe(path.resolve("relative.db"));
    // Quoted in an environment file, CANOPY_DB="~/…" is not expanded by the shell: no folder named "~".
    const home = path.join(tmp.dir, "home");
    const run = spawnSync("npm", ["run", "--silent", "canopy", "--", "list"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, HOME: home, CANOPY_DB: "~/data/library.db", CANOPY_NO_DEMO: "1" },
    });
    expect(run.stderr).toBe("");
    expect(fs.existsSync(path.join(home, "data", "library.db"))).toBe(true);
    expect(fs.existsSync(path.join(repoRoot, "~"))).toBe(false);
  });

  it("the CLI says so in one line and exits 1", async () => {
    const file = path.join(tmp.dir, "places.sqlite");
    foreignDatabase(file);
    const run = await runCliCaptured(["list", "--db", file]);
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err.trim().split("\n")).toEqual([
      `canopy: error: ${file} is another program's SQLite database, not a Canopy library; Canopy leaves it untouched. Use another path (--db, or CANOPY_DB for the app).`,
    ]);
  });
});
