/**
 * Handlers of the `library:` channels: listing, importing (one path or the agent folders),
 * the folders setting, full-text search, and deleting/restoring a session.
 */
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { IMPORT_JOB_PREFIX } from "../../../core/api/contract.ts";
import type { ConfiguredFolders, ImportReport } from "../../../core/api/dto.ts";
import { deleteFromLibrary, restoreToLibrary, settleDeletedImports } from "../../library/delete.ts";
import {
  foldersAreDefault,
  configuredFolders as foldersOf,
  setConfiguredFolders,
} from "../../library/folders.ts";
import { mergeImportReports } from "../../library/import-runner.ts";
import { listSessions } from "../../library/load.ts";
import { searchLibrary } from "../../library/search-request.ts";
import { ApiFailure } from "../errors.ts";
import type { AppContext, AreaHandlers } from "../types.ts";

/** `~` and relative paths as a user means them. */
export function expandPath(input: string): string {
  const trimmed = input.trim();
  if (trimmed === "~") return os.homedir();
  if (trimmed.startsWith("~/")) return path.join(os.homedir(), trimmed.slice(2));
  return path.resolve(trimmed);
}

function configuredFolders(ctx: AppContext): string[] {
  return foldersOf(ctx.db);
}

function foldersInEffect(ctx: AppContext): ConfiguredFolders {
  const folders = configuredFolders(ctx);
  return {
    folders,
    defaults: foldersAreDefault(ctx.db),
    missing: folders.filter((folder) => !existsSync(folder)),
  };
}

async function runImport(ctx: AppContext, target: string, jobId: string): Promise<ImportReport> {
  let done = 0;
  let total: number | null = null;
  let imported: ImportReport;
  // Said at once: the first file may take a while, and the import can be cancelled from now on.
  ctx.events.emit("job:progressed", { jobId, label: `Importing ${path.basename(target)}`, done, total });
  try {
    imported = await ctx.imports.run(target, (filesDone, files, file) => {
      done = filesDone;
      total = files;
      ctx.events.emit("job:progressed", { jobId, label: `Importing ${path.basename(file)}`, done, total });
    });
  } finally {
    // Whoever started it (the form, the menu, a file opened from the OS), the window hears it end.
    ctx.events.emit("job:progressed", { jobId, label: "Import ended", done, total, ended: true });
  }
  // Naming one file is asking for it: a deleted session comes back; a folder scan leaves it.
  const report = settleDeletedImports(ctx, imported, statSync(target).isFile());
  const changed = report.files
    .filter((file) => file.sessionId && (file.status === "imported" || file.status === "updated"))
    .map((file) => file.sessionId as string);
  if (changed.length > 0) ctx.events.emit("library:changed", { sessionIds: changed });
  // The WAL the import filled is checkpointed by the runner, on the thread that imported.
  return report;
}

export const libraryHandlers: AreaHandlers<"library"> = {
  "library:list": (input, ctx) => listSessions(ctx.db, { deleted: input.deleted === true }),
  "library:import": (input, ctx) => {
    const target = expandPath(input.path);
    if (!existsSync(target)) throw new ApiFailure("not_found", `No such file or folder: ${target}`);
    return runImport(ctx, target, `${IMPORT_JOB_PREFIX}${target}`);
  },
  "library:import-default-folders": async (_input, ctx) => {
    const existing = configuredFolders(ctx).filter((folder) => existsSync(folder));
    if (existing.length === 0) {
      throw new ApiFailure(
        "not_found",
        `None of the agent session folders exist: ${configuredFolders(ctx).join(", ")}`,
      );
    }
    const reports: ImportReport[] = [];
    for (const folder of existing) {
      const report = await runImport(ctx, folder, `${IMPORT_JOB_PREFIX}${folder}`);
      reports.push(report);
      if (report.cancelled) break;
    }
    return mergeImportReports(reports);
  },
  "library:cancel-import": (_input, ctx) => ({ cancelled: ctx.imports.cancel() }),
  "library:get-folders": (_input, ctx) => foldersInEffect(ctx),
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
    setConfiguredFolders(ctx.db, folders);
    // The live watcher re-reads the folders on this event.
    ctx.events.emit("library:changed", { sessionIds: [] });
    return foldersInEffect(ctx);
  },
  "library:search": (input, ctx) => searchLibrary(ctx, input),
  "library:delete": (input, ctx) => deleteFromLibrary(ctx, input.sessionId),
  "library:restore": (input, ctx) => restoreToLibrary(ctx, input.sessionId),
};
