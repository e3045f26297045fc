/**
 * Exports and the agents' live files (issue 6): before an export, a source file that changed
 * since its import is re-imported (append-only), and an export path is refused when it is any
 * session's own file — Canopy never writes into an agent's session file — or one of Canopy's own
 * (the library, its keys), or, unless confirmed, when it lies in the folder of a file its agent
 * is still writing or is an earlier export an agent has written to since.
 */
import fs from "node:fs";
import path from "node:path";
import { counted } from "../../core/session/describe.ts";
import { ApiFailure, invalidInput } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { SECRETS_FILE } from "../secrets.ts";
import { findSessionsByPath, getSessionRow } from "../store/repos/sessions.ts";
import { entryIdExists } from "../store/repos/entries.ts";
import { appendedUnknownEntry } from "./export-overwrite.ts";
import { sessionFileHeaderId } from "./export-target.ts";
import { reimportLive } from "./live-reimport.ts";
import { effectiveViewLeaf, requireSession } from "./load.ts";

/** A source file modified this recently counts as still being written by its agent. */
export const LIVE_WINDOW_MS = 5_000;

export interface LiveSource {
  /** The session's file (a real path, as the library stores it). */
  sourcePath: string;
  /** The file had grown or changed since the library last read it; its new lines are imported now. */
  grew: boolean;
  entriesAdded: number;
  modifiedAgoMs: number;
  /** grew, or modified within LIVE_WINDOW_MS: the agent is (probably) still writing it. */
  live: boolean;
}

function realPathOrNull(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch (error) {
    // Not there (yet): the caller falls back to the path as given.
    void error;
    return null;
  }
}

/** Where `file` really is: symlinks resolved for the file, else for its folder. */
function realTarget(file: string): string {
  const resolved = path.resolve(file);
  const folder = realPathOrNull(path.dirname(resolved));
  return (
    realPathOrNull(resolved) ?? (folder === null ? resolved : path.join(folder, path.basename(resolved)))
  );
}

/** The library database (with SQLite's files beside it) and the stored keys, as real paths. */
function canopyFiles(ctx: AppContext): string[] {
  const library = realTarget(ctx.dbPath);
  return [
    library,
    ...["-wal", "-shm", "-journal"].map((suffix) => `${library}${suffix}`),
    path.join(path.dirname(library), SECRETS_FILE),
  ];
}

/**
 * Re-imports the session's source file when its size or modification time differs from what
 * the library recorded (reimportLive: a large rewritten file on the import runner's thread), and
 * says whether the agent is still writing it (null: no source file).
 */
export async function refreshLiveSource(
  ctx: AppContext,
  sessionId: string,
  now = Date.now(),
): Promise<LiveSource | null> {
  const row = requireSession(ctx.db, sessionId);
  if (row.source_path === null || row.is_demo === 1) return null;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(row.source_path);
  } catch (error) {
    // The file is gone (moved or deleted): nobody is writing it.
    void error;
    return null;
  }
  let grew = false;
  let entriesAdded = 0;
  if (stat.size !== row.file_size || stat.mtimeMs !== row.file_mtime_ms) {
    const report = (await reimportLive(ctx.db, ctx.imports, row.source_path, { writes: ctx.writes }))?.report;
    if (
      report !== undefined &&
      report.sessionId === sessionId &&
      (report.status === "updated" || report.status === "imported")
    ) {
      grew = true;
      entriesAdded = report.entriesAdded;
      // Read again: other requests were served during the re-import (a delete may have come).
      const now = getSessionRow(ctx.db, sessionId);
      if (now !== undefined && now.deleted_at === null) {
        ctx.events.emit("session:changed", { sessionId, viewLeafId: effectiveViewLeaf(now) });
      }
      ctx.events.emit("library:changed", { sessionIds: [sessionId] });
    }
  }
  const modifiedAgoMs = Math.max(0, now - stat.mtimeMs);
  return {
    sourcePath: row.source_path,
    grew,
    entriesAdded,
    modifiedAgoMs,
    live: grew || modifiedAgoMs < LIVE_WINDOW_MS,
  };
}

/**
 * Runs before every export: refuses an `outPath` that is a session's source file, re-imports a
 * changed source, and refuses ("live_source") an `outPath` in a live source's folder unless
 * `confirmLiveFolder`.
 */
export async function guardExport(
  ctx: AppContext,
  sessionId: string,
  outPath: string | undefined,
  confirmLiveFolder: boolean,
  now = Date.now(),
): Promise<LiveSource | null> {
  const target = outPath === undefined ? null : realTarget(outPath);
  if (target !== null) {
    const owner = findSessionsByPath(ctx.db, target)[0];
    if (owner) {
      throw invalidInput(
        `${target} is the session file of ${owner.id}; Canopy never writes into an agent's session file, choose another path`,
      );
    }
    const other = sessionFileHeaderId(target);
    const own = requireSession(ctx.db, sessionId).header_id;
    if (other !== null && other !== own) {
      throw invalidInput(
        `${target} is the file of another session (${other}); an export never replaces a session file, choose another path`,
      );
    }
    if (canopyFiles(ctx).includes(target)) {
      throw invalidInput(
        `${target} is one of Canopy's own files (its library or stored keys); exporting there would replace it, choose another path`,
      );
    }
    // An earlier export of this session that an agent resumed has the agent's work at its end,
    // which the library does not have: replacing the file would lose it.
    if (other !== null && !confirmLiveFolder) {
      const { sid } = requireSession(ctx.db, sessionId);
      const added = appendedUnknownEntry(target, (id) => entryIdExists(ctx.db, sid, id));
      if (added !== null) {
        throw new ApiFailure(
          "live_source",
          `${target} is an earlier export of this session that has been written to since: it ends with entries this library does not have (${added.type} ${added.id}), probably an agent's work after resuming it. Exporting there would replace them; choose another path, or import that file first. Confirm to replace it anyway (CLI: --force).`,
        );
      }
    }
  }
  const live = await refreshLiveSource(ctx, sessionId, now);
  if (target === null || !live?.live || confirmLiveFolder) return live;
  if (path.dirname(target) !== path.dirname(live.sourcePath)) return live;
  const how =
    live.modifiedAgoMs < LIVE_WINDOW_MS
      ? `was modified ${Math.round(live.modifiedAgoMs / 1000)} s ago`
      : "grew since its import";
  const added = live.entriesAdded > 0 ? ` (${counted(live.entriesAdded, "new entry", "new entries")} re-imported)` : "";
  throw new ApiFailure(
    "live_source",
    `${path.basename(live.sourcePath)} ${how}${added}: its agent is still writing it, and an export into its folder ${path.dirname(live.sourcePath)} could be taken for one of its sessions. Confirm to export there anyway (CLI: --force).`,
  );
}
