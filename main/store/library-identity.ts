/**
 * Whether the library file is still the one this process opened. A library deleted, moved or
 * replaced (a backup renamed over it, a sync tool) while the app runs would otherwise take every
 * later write into a file nobody opens again, reported as saved, or into a WAL the new file reads.
 */
import fs from "node:fs";
import type { Database } from "better-sqlite3";
import { StoreError } from "./errors.ts";

/** The file a connection opened, as the file system knows it (device and inode). */
export interface LibraryIdentity {
  file: string;
  dev: bigint;
  ino: bigint;
}

/** The identity of the library file `file` (null for ":memory:" or a file that is not there). */
export function libraryIdentity(file: string): LibraryIdentity | null {
  if (file === ":memory:") return null;
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  return stat ? { file, dev: stat.dev, ino: stat.ino } : null;
}

/** True while `file` is still the file `identity` describes. */
export function libraryInPlace(identity: LibraryIdentity): boolean {
  const now = libraryIdentity(identity.file);
  return now !== null && now.dev === identity.dev && now.ino === identity.ino;
}

/**
 * Throws (a one-line StoreError) when the library file was deleted or replaced since it was
 * opened. The first time, what the WAL holds is written into the file the connection still has
 * open and the WAL emptied, so a file now at that path does not take those pages as its own.
 */
export function assertLibraryInPlace(db: Database, identity: LibraryIdentity | null): void {
  if (identity === null || libraryInPlace(identity)) return;
  try {
    if (db.open) db.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    // Best effort: the refusal below is what matters.
  }
  throw new StoreError(
    "library_moved",
    `The library file ${identity.file} was deleted or replaced while Canopy was running: nothing more can be saved to it. Restart Canopy to open the library at that path.`,
  );
}
