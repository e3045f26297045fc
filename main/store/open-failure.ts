/**
 * Why a library could not be opened, in one line that names the file: SQLite alone says "unable
 * to open database file", "disk I/O error" or "attempt to write a readonly database" when the
 * disk is full, the folder or file system is read-only, or the file is damaged. Also puts right
 * the one leftover that keeps a library read-only after its file is writable again.
 */
import fs from "node:fs";
import path from "node:path";
import { fileErrorReason, StoreError } from "./errors.ts";

const DISK_FULL = "the disk is full";

/** Why the folder of `file` cannot take the files SQLite writes next to it, or null. */
function folderProblem(file: string): string | null {
  const folder = path.dirname(file);
  try {
    const free = fs.statfsSync(folder);
    if (free.bavail === 0) return DISK_FULL;
  } catch {
    // No statfs here: go on with the access check.
  }
  try {
    fs.accessSync(folder, fs.constants.W_OK);
  } catch (cause) {
    return `its folder cannot be written (${fileErrorReason(cause)}), and SQLite keeps its -wal and -shm files there`;
  }
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ENOENT") {
      return `the file cannot be read and written (${fileErrorReason(cause)})`;
    }
  }
  return null;
}

/**
 * Gives the library's -wal and -shm files the library's own mode when they cannot be written but
 * the library can: SQLite creates them with the mode of the library file, so opening a read-only
 * library leaves a read-only -shm behind that keeps it read-only after its file is made writable.
 */
export function repairSideFileModes(file: string): void {
  if (file === ":memory:") return;
  try {
    fs.accessSync(file, fs.constants.W_OK);
  } catch {
    return;
  }
  for (const side of [`${file}-wal`, `${file}-shm`]) {
    try {
      fs.accessSync(side, fs.constants.W_OK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EACCES") continue;
      try {
        fs.chmodSync(side, fs.statSync(file).mode & 0o666);
      } catch {
        // Another user's file: the write fails and says the library is read-only.
      }
    }
  }
}

/**
 * `error` (thrown while opening `file`) as a StoreError with a one-line reason when it is one of
 * SQLite's file-level failures; anything else is returned unchanged.
 */
export function describeOpenFailure(file: string, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || error instanceof StoreError) return error;
  const said = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
  const fail = (message: string) => new StoreError("cannot_open", message, { cause: error });
  if (code.startsWith("SQLITE_CORRUPT")) {
    return fail(
      `The library ${file} is damaged (${said}); Canopy leaves it untouched. Restore it from a backup, or use another path (--db, or CANOPY_DB for the app).`,
    );
  }
  const fileLevel = ["SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_PERM"];
  if (!fileLevel.some((prefix) => code.startsWith(prefix))) return error;
  const problem = folderProblem(file) ?? (code.startsWith("SQLITE_FULL") ? DISK_FULL : said);
  const hint =
    problem === DISK_FULL
      ? "Free some space and try again."
      : "Use another path (--db, or CANOPY_DB for the app).";
  return fail(`Cannot open the library ${file}: ${problem}. ${hint}`);
}
