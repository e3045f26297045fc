/**
 * The re-import of a live session file (the watcher, the export guard, restore) without a large
 * file's full import on the serving thread: the memo is seeded in the background when it lacks one
 * (live-seed.ts), an append is taken here at the cost of its new bytes (import-live.ts), and
 * anything else (a rewrite, another file in its place) of a file of IN_PLACE_BYTES or more is
 * imported by the import runner, on its thread in the app, as a folder import is.
 */
import fs from "node:fs";
import type { ImportedFileReport } from "../../core/api/dto.ts";
import type { Database } from "../store/open.ts";
import { findSessionsByPath } from "../store/repos/sessions.ts";
import { fullLiveImport, liveAppend } from "./import-live.ts";
import { IN_PLACE_BYTES, type ImportRunner } from "./import-runner.ts";
import { needsLiveSeed, seedLiveMemo } from "./live-seed.ts";
import type { WriteGate } from "./write-gate.ts";

export interface LiveReimport {
  report: ImportedFileReport;
  /** Imported by the runner (which checkpoints the WAL itself), not on this thread. */
  byRunner: boolean;
}

/**
 * Re-imports `file` (see the module comment); the result is what importLiveFile gives. Null when
 * the runner dropped the import before it started (`library:cancel-import` while it waited).
 * Rejects only when the runner's thread failed or is closing (its one-line message).
 */
export async function reimportLive(
  db: Database,
  imports: ImportRunner,
  file: string,
  options: { shouldStop?: () => boolean; writes?: WriteGate } = {},
): Promise<LiveReimport | null> {
  // The first append since start: the prefix is hashed in the background, then only the
  // appended bytes are read (a prefix that changed is found, and imported below).
  if (needsLiveSeed(db, file)) await seedLiveMemo(db, file, options);
  // Not while the runner re-imports another rewrite: its write lock would hold this thread up.
  if (options.writes !== undefined && !options.writes.open) await options.writes.passed();
  const appended = liveAppend(db, file);
  if (appended !== null) return { report: appended.report, byRunner: false };
  if (!largeChange(db, file)) return { report: fullLiveImport(db, file).report, byRunner: false };
  // Writes wait while this import runs (write-gate.ts), not while it waits for the runner's other jobs.
  await imports.idle();
  const run = imports.run(file);
  const report = (await (options.writes?.hold(run) ?? run)).files[0];
  return report === undefined ? null : { report, byRunner: true };
}

/**
 * Whether the full import of `file` would read IN_PLACE_BYTES or more: it is that large and its
 * size or modification time is not what the library stored (an unchanged or unreadable file is
 * answered here at once, as before).
 */
function largeChange(db: Database, file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (stat.size < IN_PLACE_BYTES) return false;
    const rows = findSessionsByPath(db, fs.realpathSync(file));
    return !rows.some((row) => row.file_size === stat.size && row.file_mtime_ms === stat.mtimeMs);
  } catch (error) {
    // Gone or unreadable: the import here says why, in its report.
    void error;
    return false;
  }
}
