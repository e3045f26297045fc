/**
 * Handlers of the `library:` channels: listing, importing (one path or the agent folders),
 * the folders setting, full-text search, and deleting/restoring a session.
 */
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { IMPORT_JOB_PREFIX } from "../../../core/api/contract.ts";
import type { ImportReport } from "../../../core/api/dto.ts";
import { deleteFromLibrary, restoreToLibrary, settleDeletedImports } from "../../library/delete.ts";
import { configuredFolders as foldersOf, foldersInEffect, setConfiguredFolders } from "../../library/folders.ts";
import { listSessionFiles } from "../../library/files.ts";
import { mergeImportReports } from "../../../core/api/import-report.ts";
import { keepCopy } from "../../library/kept-copies.ts";
import { getSessionSummary, listSessions, requireSession } from "../../library/load.ts";
import { withFileStates } from "../../library/session-file-problems.ts";
import { searchLibrary } from "../../library/search-request.ts";
import { ApiFailure } from "../errors.ts";
import type { AppContext, AreaHandlers } from "../types.ts";

/**
 * `~` as a user means it. A path that is not whole on this computer (relative, or another
 * system's, such as C:\… on Linux) is refused: it would be taken from the server's own working
 * folder, which the user knows nothing of (the CLI sends its paths resolved).
 */
export function expandPath(input: string): string {
  const trimmed = input.trim();
  if (trimmed === "~") return os.homedir();
  if (trimmed.startsWith("~/") || (path.sep === "\\" && trimmed.startsWith("~\\"))) {
    return path.join(os.homedir(), trimmed.slice(2));
  }
  if (!path.isAbsolute(trimmed)) {
    throw new ApiFailure(
      "invalid_input",
      `“${trimmed}” is not a whole path on this computer: give it from the top (/…) or from your home folder (~/…).`,
    );
  }
  return path.resolve(trimmed);
}

function configuredFolders(ctx: AppContext): string[] {
  return foldersOf(ctx.db);
}

/** Longest folder name on the progress line; a longer one is cut in the middle. */
const PROGRESS_NAME_CHARS = 44;

/**
 * A target as the progress line names it: a file by its name; a folder by its path with the home
 * folder as `~`, since the agents' folders all end in "sessions" (~/.pi/agent/sessions, ~/.omp/…).
 * A long path keeps its start and its end (where the folders differ), cut in the middle.
 */
export function progressName(target: string, isFile: boolean, home = os.homedir()): string {
  if (isFile) return path.basename(target);
  const shown =
    target === home ? "~" : target.startsWith(`${home}${path.sep}`) ? `~${target.slice(home.length)}` : target;
  if (shown.length <= PROGRESS_NAME_CHARS) return shown;
  const tail = Math.ceil(PROGRESS_NAME_CHARS * 0.7);
  return `${shown.slice(0, PROGRESS_NAME_CHARS - tail - 1)}…${shown.slice(-tail)}`;
}

/** Where a scan of several folders is: files before this folder's, and the files of all. */
interface ScanPlace {
  before: number;
  total: number;
  /** The last folder of the scan: its end is the scan's end. */
  last: boolean;
}

async function runImport(ctx: AppContext, target: string, jobId: string, scan?: ScanPlace): Promise<ImportReport> {
  const before = scan?.before ?? 0;
  let done = before;
  let total: number | null = scan?.total ?? null;
  let imported: ImportReport;
  const say = (label: string) => ctx.events.emit("job:progressed", { jobId, label, done, total });
  // Said at once: the first file may take a while, and the import can be cancelled from now on.
  const isFile = statSync(target).isFile();
  say(`Importing ${progressName(target, isFile)}`);
  let ended = false;
  try {
    imported = await ctx.imports.run(target, (filesDone, files, file) => {
      done = before + filesDone;
      total = scan?.total ?? files;
      // `file` is the one just finished (the next is not known here): said as done. After a
      // folder's last file its batch is committed (seconds for a big one): said so.
      say(filesDone === files ? "Storing the last files" : `Imported ${path.basename(file)}`);
    });
    if (scan && !scan.last && !imported.cancelled) say("Going on with the next folder");
    else {
      say("Finishing the import");
      ended = true;
    }
  } catch (error) {
    ended = true;
    throw error;
  } finally {
    // Whoever started it (the form, the menu, a file opened from the OS), the window hears it end;
    // a scan's folders are one job, which ends after the last.
    if (ended) ctx.events.emit("job:progressed", { jobId, label: "Import ended", done, total, ended: true });
  }
  // Naming one file is asking for it: a deleted session comes back; a folder scan leaves it.
  const report = await settleDeletedImports(ctx, imported, isFile);
  const changed = report.files
    .filter((file) => file.sessionId && (file.status === "imported" || file.status === "updated"))
    .map((file) => file.sessionId as string);
  if (changed.length > 0) ctx.events.emit("library:changed", { sessionIds: changed });
  // The WAL the import filled is checkpointed by the runner, on the thread that imported.
  return report;
}

export const libraryHandlers: AreaHandlers<"library"> = {
  "library:list": (input, ctx) =>
    withFileStates(ctx.db, listSessions(ctx.db, { deleted: input.deleted === true })),
  "library:import": (input, ctx) => {
    const target = expandPath(input.path);
    if (!existsSync(target)) throw new ApiFailure("not_found", `No such file or folder: ${target}`);
    return runImport(ctx, target, `${IMPORT_JOB_PREFIX}${target}`).then((report) => ({ ...report, roots: [target] }));
  },
  "library:import-default-folders": async (_input, ctx) => {
    const existing = configuredFolders(ctx).filter((folder) => existsSync(folder));
    if (existing.length === 0) {
      throw new ApiFailure(
        "not_found",
        `None of the agent session folders exist: ${configuredFolders(ctx).join(", ")}`,
      );
    }
    // One job and one count for all the folders: the files are counted first (a walk, ms).
    const counts = existing.map((folder) => listSessionFiles(folder).files.length);
    const total = counts.reduce((sum, count) => sum + count, 0);
    const jobId = `${IMPORT_JOB_PREFIX}agent-folders`;
    const reports: ImportReport[] = [];
    let before = 0;
    for (const [i, folder] of existing.entries()) {
      const last = i === existing.length - 1;
      const report = await runImport(ctx, folder, jobId, { before, total, last });
      before += counts[i] ?? 0;
      reports.push(report);
      if (report.cancelled) break;
    }
    return { ...mergeImportReports(reports), roots: existing };
  },
  "library:cancel-import": (_input, ctx) => ({ cancelled: ctx.imports.cancel() }),
  "library:get-folders": (_input, ctx) => foldersInEffect(ctx.db),
  "library:set-folders": (input, ctx) => {
    const folders = [...new Set(input.folders.map(expandPath))];
    // Scanned and watched recursively: the whole disk or home folder would take the app down.
    const broad = folders.find((folder) => path.parse(folder).root === folder || folder === os.homedir());
    if (broad !== undefined) {
      throw new ApiFailure(
        "invalid_input",
        `${broad} is too broad to scan and watch: give the folder that holds the agent's sessions (such as ${path.join(os.homedir(), ".pi", "agent", "sessions")})`,
      );
    }
    setConfiguredFolders(ctx.db, folders, input.expected);
    const result = foldersInEffect(ctx.db);
    // Every window (other tabs too) shows them, and the live watcher re-reads them; the
    // outside-changes poll knows this process announced them and does not again.
    ctx.events.emit("library:folders-changed", result);
    return result;
  },
  "library:search": (input, ctx) => searchLibrary(ctx, input),
  "library:delete": (input, ctx) => deleteFromLibrary(ctx, input.sessionId),
  "library:restore": (input, ctx) => restoreToLibrary(ctx, input.sessionId),
  "library:keep-copy": (input, ctx) => {
    const row = requireSession(ctx.db, input.sessionId);
    const file = row.is_demo === 1 ? null : row.source_path;
    if (file === null || existsSync(file)) {
      throw new ApiFailure(
        "conflict",
        file === null
          ? "This session has no file: the library's copy is already the only one"
          : `The session's file ${file} is there: nothing to keep it instead of`,
      );
    }
    keepCopy(ctx.db, input.sessionId, file);
    // Every window's list and open session show it kept.
    ctx.events.emit("library:changed", { sessionIds: [input.sessionId] });
    const [summary] = withFileStates(ctx.db, [getSessionSummary(ctx.db, input.sessionId)]);
    return summary as NonNullable<typeof summary>;
  },
};
