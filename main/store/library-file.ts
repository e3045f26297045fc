/**
 * Which files Canopy opens as its library: a new or empty file, or one of its own (SQLite
 * `application_id` CANOPY_APPLICATION_ID, or a library from before that mark: a schema version and
 * Canopy's tables). A folder, a file that is not SQLite, another program's database: refused
 * with a clear message before anything is written to them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Database } from "better-sqlite3";
import { fileErrorReason, StoreError } from "./errors.ts";

/** "Cano", in the SQLite header of every Canopy library. */
export const CANOPY_APPLICATION_ID = 0x43616e6f;

/** Tables every Canopy library has had since schema version 1. */
const CANOPY_TABLES = ["sessions", "entries", "store_meta"];

const USE_ANOTHER = "Use another path (--db, or CANOPY_DB for the app).";

/** A library path as given (--db, CANOPY_DB), absolute; a leading `~` is the home folder, as in a shell. */
export function resolveLibraryPath(file: string): string {
  if (file === ":memory:") return file;
  if (file === "~") return os.homedir();
  if (file.startsWith("~/")) return path.join(os.homedir(), file.slice(2));
  return path.resolve(file);
}

/** Refuses a library path that is a folder or a device; creates the folder a new library goes in. */
export function prepareLibraryPath(file: string): void {
  if (file === ":memory:") return;
  const resolved = path.resolve(file);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(resolved, { throwIfNoEntry: false });
  } catch (cause) {
    // A folder on the way that cannot be entered (EACCES), a file on the way (ENOTDIR), a loop.
    const message = `Cannot open the library ${resolved}: ${fileErrorReason(cause)}. ${USE_ANOTHER}`;
    throw new StoreError("cannot_open", message, { cause });
  }
  if (stat?.isDirectory()) {
    throw new StoreError(
      "not_a_library",
      `The library path ${resolved} is a folder, not a database file (for example ${path.join(resolved, "library.db")}).`,
    );
  }
  // SQLite would put its journal next to it (/dev/null-journal) and then fail.
  if (stat !== undefined && !stat.isFile()) {
    throw new StoreError(
      "not_a_library",
      `The library path ${resolved} is not a regular file (a device, pipe or socket). ${USE_ANOTHER}`,
    );
  }
  if (stat === undefined) refuseDanglingLink(resolved);
  try {
    fs.mkdirSync(path.dirname(resolved), { recursive: true });
  } catch (cause) {
    const message = `Cannot create the folder of the library ${resolved}: ${fileErrorReason(cause)}.`;
    throw new StoreError("not_a_library", message, { cause });
  }
}

/**
 * A library path that is a symbolic link into a folder that does not exist (a drive not mounted):
 * SQLite, which does not create folders, said only "unable to open database file".
 */
function refuseDanglingLink(file: string): void {
  let target: string;
  try {
    target = path.resolve(path.dirname(file), fs.readlinkSync(file));
  } catch (error) {
    void error; // Not a link: a new library.
    return;
  }
  if (fs.existsSync(path.dirname(target))) return; // SQLite creates the library there.
  throw new StoreError(
    "cannot_open",
    `Cannot open the library ${file}: it is a symbolic link to ${target}, whose folder does not exist (a drive not mounted?). ${USE_ANOTHER}`,
  );
}

function readHeader(
  db: Database,
  file: string,
): { applicationId: number; version: number; tables: string[] } {
  try {
    return {
      applicationId: db.pragma("application_id", { simple: true }) as number,
      version: db.pragma("user_version", { simple: true }) as number,
      tables: db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[],
    };
  } catch (cause) {
    if ((cause as { code?: unknown }).code === "SQLITE_NOTADB") {
      const message = `${file} is not a Canopy library: it is not an SQLite database. ${USE_ANOTHER}`;
      throw new StoreError("not_a_library", message, { cause });
    }
    throw cause;
  }
}

/** Throws unless `db` (opened from `file`, nothing written yet) is new, empty or Canopy's. */
export function assertCanopyLibrary(db: Database, file: string): void {
  const { applicationId, version, tables } = readHeader(db, file);
  if (applicationId === CANOPY_APPLICATION_ID) return;
  const unmarkedCanopy =
    applicationId === 0 && version >= 1 && CANOPY_TABLES.every((t) => tables.includes(t));
  const empty = applicationId === 0 && tables.length === 0;
  if (unmarkedCanopy || empty) return;
  throw new StoreError(
    "not_a_library",
    `${file} is another program's SQLite database, not a Canopy library; Canopy leaves it untouched. ${USE_ANOTHER}`,
  );
}

/** Marks a library as Canopy's (after its migrations ran), once. */
export function markCanopyLibrary(db: Database): void {
  if (db.pragma("application_id", { simple: true }) !== CANOPY_APPLICATION_ID) {
    db.pragma(`application_id = ${CANOPY_APPLICATION_ID}`);
  }
}
