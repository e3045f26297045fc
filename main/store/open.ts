/**
 * Opens (or creates) Canopy's library database: pragmas, then migrations. The only place that
 * constructs a connection; callers pass the handle on explicitly (no module-global db).
 */
import os from "node:os";
import path from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { signChanges } from "./change-writer.ts";
import {
  assertCanopyLibrary,
  markCanopyLibrary,
  prepareLibraryPath,
  resolveLibraryPath,
} from "./library-file.ts";
import { runMigrations } from "./migrations/index.ts";
import { describeOpenFailure, repairSideFileModes } from "./open-failure.ts";

export type { Database } from "better-sqlite3";

export interface OpenOptions {
  /** Skip migrations (tests of the runner itself). */
  migrate?: boolean;
}

/**
 * Opens `file` (":memory:" works too), sets the pragmas DESIGN §4 asks for, migrates. A folder, a
 * file that is not SQLite or another program's database is refused untouched (library-file.ts).
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database {
  prepareLibraryPath(file);
  repairSideFileModes(file);
  let db: Database;
  try {
    db = new BetterSqlite3(file, { timeout: 5000 });
  } catch (error) {
    throw describeOpenFailure(file, error);
  }
  try {
    // Before any pragma that writes (journal_mode is stored in the file).
    assertCanopyLibrary(db, file);
    // Entries average ~2 KB and tool outputs run to tens of KB: 64 KB pages store them with few
    // overflow pages (inserting their JSON is ~1.7x faster than with 16 KB, ~3x than 4 KB).
    // Only applies to a new file; an existing library keeps its page size.
    db.pragma("page_size = 65536");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    // Entries carry whole tool outputs; a larger page cache keeps imports and path loads in memory.
    db.pragma("cache_size = -65536");
    db.pragma("temp_store = MEMORY");
    if (options.migrate !== false) {
      runMigrations(db);
      markCanopyLibrary(db);
    }
    signChanges(db);
    return db;
  } catch (error) {
    db.close();
    throw describeOpenFailure(file, error);
  }
}

/**
 * Runs `fn` (e.g. a batch of imports) with automatic WAL checkpoints off, so a large import's
 * commit does not also copy every page into the main file right away. Durability is unchanged
 * (a committed transaction is in the WAL); call `checkpointWal` afterwards, when idle. Until
 * then the next write that commits after `fn` would run the checkpoint itself.
 */
export function withoutAutoCheckpoint<T>(db: Database, fn: () => T): T {
  const before = db.pragma("wal_autocheckpoint", { simple: true });
  db.pragma("wal_autocheckpoint = 0");
  try {
    return fn();
  } finally {
    db.pragma(`wal_autocheckpoint = ${typeof before === "number" ? before : 1000}`);
  }
}

/**
 * Turns foreign-key enforcement off for bulk inserts whose keys hold by construction (a new
 * session's rows, each JSON row right after its entry row), where the checks cost a lookup per
 * row. Returns whether it did: not inside an open transaction (the pragma cannot change there,
 * the checks stay as they are), nor when they are off already. Then `resumeForeignKeyChecks`.
 */
export function suspendForeignKeyChecks(db: Database): boolean {
  if (db.inTransaction || db.pragma("foreign_keys", { simple: true }) !== 1) return false;
  db.pragma("foreign_keys = OFF");
  return true;
}

/** Turns foreign-key enforcement back on, after `suspendForeignKeyChecks` returned true. */
export function resumeForeignKeyChecks(db: Database): void {
  db.pragma("foreign_keys = ON");
}

/** Runs `fn` with foreign-key enforcement suspended (see suspendForeignKeyChecks). */
export function withoutForeignKeyChecks<T>(db: Database, fn: () => T): T {
  if (!suspendForeignKeyChecks(db)) return fn();
  try {
    return fn();
  } finally {
    resumeForeignKeyChecks(db);
  }
}

/** Copies what the WAL holds into the database file without waiting for readers (PASSIVE). */
export function checkpointWal(db: Database): void {
  if (db.open && !db.memory) db.pragma("wal_checkpoint(PASSIVE)");
}

/** The platform's per-user data folder for Canopy (not created). */
export function defaultDataFolder(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "Canopy");
  if (platform === "win32") return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "Canopy");
  const xdg = env.XDG_DATA_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".local", "share"), "canopy");
}

/** `CANOPY_DB` if set, else `<data folder>/library.db`; the folder is created. */
export function defaultDatabasePath(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  const file = env.CANOPY_DB
    ? resolveLibraryPath(env.CANOPY_DB)
    : path.join(defaultDataFolder(env, platform), "library.db");
  prepareLibraryPath(file);
  return file;
}
