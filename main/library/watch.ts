/**
 * Live refresh: watches the folders that hold the library's session files (node:fs watch on the
 * folder, which survives the rename-on-save some editors do and sees appended lines) and the
 * agent session folders the library already imports from (recursively, so a new session the
 * agent starts appears too). A change is re-imported after a short debounce — reimportLive:
 * a stat when nothing changed, a read of the appended bytes when lines were appended (the first
 * time since start, after the file's prefix was hashed in the background: live-seed.ts), a
 * rewritten large file imported by the import runner's thread, never on this one — and
 * announced as `library:changed` plus
 * `session:changed` for each session that gained entries. Sessions deleted from the library
 * are not re-imported (nor re-added as new ones). At start, a file that changed while no watcher
 * ran (the app closed, or killed mid re-import) is re-imported as if it had just changed. A known file that goes away (moved, deleted) and
 * comes back is announced as `session:changed`, so that windows say so (session-file-problems.ts);
 * so is one that reads as no session any more (emptied, overwritten), and its return.
 */
import fs from "node:fs";
import path from "node:path";
import type { AppContext } from "../api/types.ts";
import { libraryInPlace } from "../store/library-identity.ts";
import { checkpointWal } from "../store/open.ts";
import { findSessionsByPath, getSessionRow, listSessionRows } from "../store/repos/sessions.ts";
import type { ImportedFileReport } from "../../core/api/dto.ts";
import { configuredFolders } from "./folders.ts";
import { type LiveReimport, reimportLive } from "./live-reimport.ts";
import { effectiveViewLeaf } from "./load.ts";
import { unfollowedFiles } from "./unfollowed-files.ts";

export interface WatchOptions {
  /** Quiet time after the last change before a file is re-imported (default 300 ms). */
  debounceMs?: number;
  /** A file that keeps changing is still re-imported at least this often (default 2000 ms). */
  maxWaitMs?: number;
  /** Agent session folders; default the `library.folders` setting or ~/.pi and ~/.omp. */
  agentFolders?: () => string[];
  /** Where problems with watching go (default console.error). */
  log?: (message: string) => void;
}

export interface LibraryWatcher {
  /** Re-reads which folders to watch; runs by itself on every `library:changed` and `library:folders-changed`. */
  refresh(): void;
  /** The folders being watched, recursive ones marked with a trailing "/**". */
  watched(): string[];
  close(): void;
}

interface Pending {
  timer: NodeJS.Timeout;
  firstAt: number;
}

function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

export function startLibraryWatcher(ctx: AppContext, options: WatchOptions = {}): LibraryWatcher {
  const debounceMs = options.debounceMs ?? 300;
  const maxWaitMs = options.maxWaitMs ?? 2000;
  const agentFolders = options.agentFolders ?? (() => configuredFolders(ctx.db));
  const log = options.log ?? ((message: string) => console.error(`canopy: ${message}`));

  /** key: folder path; value: the fs watcher (recursive for agent folders). */
  const watchers = new Map<string, { watcher: fs.FSWatcher; recursive: boolean }>();
  const pending = new Map<string, Pending>();
  const reported = new Set<string>();
  /** Files being re-imported (reimportLive), and those that changed again meanwhile. */
  const running = new Set<string>();
  const changedAgain = new Set<string>();
  /** Known files found gone (their sessions were told); told again when they come back. */
  const gone = new Set<string>();
  let knownFiles = new Set<string>();
  let recursiveFolders: string[] = [];
  let closed = false;

  /** A file whose sessions were all deleted from the library is left alone (not re-added). */
  const deletedFile = (file: string) => {
    const rows = findSessionsByPath(ctx.db, file);
    return rows.length > 0 && rows.every((row) => row.deleted_at !== null);
  };

  /** A known file that reads as no session (emptied, overwritten) is said once; so is its return. */
  const noteFollowed = (file: string, report: ImportedFileReport) => {
    const unfollowed = unfollowedFiles(ctx.db);
    if (report.status === "skipped" || report.status === "failed") {
      if (!knownFiles.has(file) || unfollowed.has(file)) return;
      unfollowed.set(file, report.reason ?? report.status);
      tellSessionsOf(file);
    } else if (unfollowed.delete(file)) tellSessionsOf(file);
  };

  const announce = (file: string, { report, byRunner }: LiveReimport) => {
    noteFollowed(file, report);
    if (!report.sessionId || (report.status !== "imported" && report.status !== "updated")) return;
    const sessionId = report.sessionId;
    // The runner checkpoints on its own thread.
    if (report.entriesAdded > 0 && !byRunner) setTimeout(() => checkpointWal(ctx.db), 0).unref();
    ctx.events.emit("library:changed", { sessionIds: [sessionId] });
    // Read now: a delete may have been served while the re-import waited (then no window shows it).
    const row = getSessionRow(ctx.db, sessionId);
    if (row !== undefined && row.deleted_at === null) {
      ctx.events.emit("session:changed", { sessionId, viewLeafId: effectiveViewLeaf(row) });
    }
  };

  /** Windows showing a session of `file` refresh it: its file went away, or came back. */
  const tellSessionsOf = (file: string) => {
    for (const row of findSessionsByPath(ctx.db, file)) {
      if (row.deleted_at === null) {
        ctx.events.emit("session:changed", { sessionId: row.id, viewLeafId: effectiveViewLeaf(row) });
      }
    }
  };

  const reimport = (file: string) => {
    pending.delete(file);
    // A library file deleted or replaced meanwhile takes no more imports (requests say why).
    if (ctx.libraryFile !== null && !libraryInPlace(ctx.libraryFile)) return;
    if (closed || deletedFile(file)) return;
    // A known file moved away or deleted: the session says so (session-file-problems.ts), once.
    if (!fs.existsSync(file)) {
      if (knownFiles.has(file) && !gone.has(file)) {
        gone.add(file);
        tellSessionsOf(file);
      }
      return;
    }
    // Back (its import below may change nothing): the session no longer says it is gone.
    if (gone.delete(file)) tellSessionsOf(file);
    // An import on the import thread may be storing this very file: read it once that is over.
    if (ctx.imports.busy) {
      void ctx.imports.idle().then(() => schedule(file));
      return;
    }
    // Being re-imported (its memo seeded, or a rewrite imported by the runner): again once that is over.
    if (running.has(file)) {
      changedAgain.add(file);
      return;
    }
    running.add(file);
    void reimportLive(ctx.db, ctx.imports, file, { shouldStop: () => closed, writes: ctx.writes })
      .then((done) => {
        if (closed) return;
        // Dropped by a cancelled import while it waited: taken up again.
        if (done === null) changedAgain.add(file);
        else announce(file, done);
      })
      .catch((error: unknown) => {
        if (closed) return;
        const message = error instanceof Error ? error.message : String(error);
        log(`watch: ${file} could not be re-imported: ${message}`);
      })
      .finally(() => {
        running.delete(file);
        if (changedAgain.delete(file) && !closed) schedule(file);
      });
  };

  const schedule = (file: string) => {
    const now = Date.now();
    const existing = pending.get(file);
    if (existing) clearTimeout(existing.timer);
    const firstAt = existing?.firstAt ?? now;
    const delay = Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - now));
    pending.set(file, { timer: setTimeout(() => reimport(file), delay), firstAt });
  };

  const onEvent = (folder: string, recursive: boolean, filename: string | null) => {
    if (closed) return;
    if (filename === null) {
      // The platform did not say which file: look at every known one in that folder.
      for (const file of knownFiles)
        if (path.dirname(file) === folder || (recursive && isInside(file, folder))) schedule(file);
      return;
    }
    const file = path.join(folder, filename);
    if (!file.endsWith(".jsonl")) return;
    // Known files always; a new file only inside an agent folder the library imports from.
    if (knownFiles.has(file) || recursiveFolders.some((root) => isInside(file, root))) schedule(file);
  };

  const watch = (folder: string, recursive: boolean) => {
    const current = watchers.get(folder);
    if (current && current.recursive === recursive) return;
    current?.watcher.close();
    watchers.delete(folder);
    try {
      const watcher = fs.watch(folder, { recursive, persistent: false }, (_event, filename) =>
        onEvent(folder, recursive, filename === null ? null : String(filename)),
      );
      watcher.on("error", (error) => {
        // E.g. the folder was deleted: forget it; the next refresh watches it again if it is back.
        log(`watch: stopped watching ${folder}: ${String(error)}`);
        watcher.close();
        if (watchers.get(folder)?.watcher === watcher) watchers.delete(folder);
      });
      watchers.set(folder, { watcher, recursive });
      reported.delete(folder);
    } catch (error) {
      // Once per folder: a missing folder or the OS watch limit must not flood the log.
      if (!reported.has(folder)) log(`watch: cannot watch ${folder}: ${String(error)}`);
      reported.add(folder);
    }
  };

  const refresh = () => {
    if (closed) return;
    // Bundled demo sessions never grow, deleted ones are left alone; the rest is watched.
    const files = listSessionRows(ctx.db)
      .filter((row) => row.source_path !== null && row.is_demo !== 1 && row.deleted_at === null)
      .map((row) => row.source_path as string);
    knownFiles = new Set(files);
    // Source paths are real paths (the import resolves symlinks), so the folders must be too.
    recursiveFolders = agentFolders()
      .filter((folder) => fs.existsSync(folder))
      .map((folder) => fs.realpathSync(folder))
      .filter((folder) => files.some((file) => isInside(file, folder)));
    const wanted = new Map<string, boolean>();
    for (const folder of recursiveFolders) wanted.set(folder, true);
    for (const file of files) {
      const folder = path.dirname(file);
      if (
        !recursiveFolders.some((root) => folder === root || isInside(folder, root)) &&
        fs.existsSync(folder)
      ) {
        wanted.set(folder, false);
      }
    }
    for (const [folder, entry] of watchers) {
      if (!wanted.has(folder)) {
        entry.watcher.close();
        watchers.delete(folder);
      }
    }
    for (const [folder, recursive] of wanted) watch(folder, recursive);
  };

  /**
   * Files that changed while no watcher ran — the app was closed, or killed part-way through their
   * re-import (which then stored nothing): their size or time differs from what the library
   * recorded, and they are re-imported as a change is, instead of waiting for the agent's next write.
   */
  const catchUp = () => {
    for (const row of listSessionRows(ctx.db)) {
      if (row.source_path === null || row.is_demo === 1 || row.deleted_at !== null) continue;
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(row.source_path, { throwIfNoEntry: false });
      } catch (error) {
        // Unreadable now (permissions): left to the next change event, as before.
        void error;
      }
      if (stat?.isFile() && (stat.size !== row.file_size || stat.mtimeMs !== row.file_mtime_ms)) {
        schedule(row.source_path);
      }
    }
  };

  const unsubscribe = ctx.events.subscribe((name) => {
    if (name === "library:changed" || name === "library:folders-changed") refresh();
  });
  refresh();
  catchUp();

  return {
    refresh,
    watched: () =>
      [...watchers.entries()]
        .map(([folder, entry]) => (entry.recursive ? path.join(folder, "**") : folder))
        .sort(),
    close: () => {
      closed = true;
      unsubscribe();
      for (const { timer } of pending.values()) clearTimeout(timer);
      pending.clear();
      for (const { watcher } of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
