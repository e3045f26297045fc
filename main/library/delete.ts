/**
 * Deleting a session from the library — never its file (issue 6). A soft delete recorded on the
 * session's undo stack, so undo or restore brings it back with everything (entries, view leaf,
 * labels, archived branches, its undo history). A deleted session is left out of the list and
 * search; folder scans and the watcher leave it deleted, importing its very file restores it.
 * Back in the library, it catches up with the lines its agent wrote meanwhile.
 */
import type { EditResultDto, ImportedFileReport, ImportReport } from "../../core/api/dto.ts";
import { ApiFailure, invalidInput } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { recordOp } from "../store/repos/edits.ts";
import { getSessionRow, updateSession } from "../store/repos/sessions.ts";
import { nowIso } from "../store/statements.ts";
import { writeTransaction } from "../store/transactions.ts";
import { announce, result } from "./edit-ops.ts";
import { refreshLiveSource } from "./live-source.ts";
import { requireAnySession, requireSession } from "./load.ts";

/** Marks a session deleted or not; a running chat turn or summary must end first. */
export function setDeleted(ctx: AppContext, sessionId: string, deleted: boolean): void {
  const running = ctx.jobs.get(sessionId);
  if (deleted && running) {
    throw new ApiFailure(
      "conflict",
      `A ${running.kind === "chat" ? "chat turn" : running.kind} is running for this session; wait for it or cancel it before deleting`,
    );
  }
  updateSession(ctx.db, sessionId, { deleted_at: deleted ? nowIso() : null });
}

export function deleteFromLibrary(ctx: AppContext, sessionId: string): EditResultDto {
  const { db } = ctx;
  writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    setDeleted(ctx, sessionId, true);
    recordOp(db, row.sid, "delete", {});
  })();
  announce(ctx, [sessionId]);
  return result(db, sessionId, "delete");
}

export async function restoreToLibrary(ctx: AppContext, sessionId: string): Promise<EditResultDto> {
  const { db } = ctx;
  writeTransaction(db, () => {
    const row = requireAnySession(db, sessionId);
    if (row.deleted_at === null) throw invalidInput(`Session ${sessionId} is not deleted`);
    setDeleted(ctx, sessionId, false);
    recordOp(db, row.sid, "restore", {});
  })();
  await catchUpWithFile(ctx, sessionId);
  announce(ctx, [sessionId]);
  return result(db, sessionId, "restore");
}

/**
 * A session back in the library re-imports what its file gained while it was deleted (the
 * watcher left the file alone meanwhile). Outside any transaction: it reads the file (a large
 * rewritten one on the import runner's thread, live-reimport.ts).
 */
export async function catchUpWithFile(ctx: AppContext, sessionId: string): Promise<void> {
  await refreshLiveSource(ctx, sessionId);
}

function isDeleted(ctx: AppContext, sessionId: string | null): sessionId is string {
  return sessionId !== null && (getSessionRow(ctx.db, sessionId)?.deleted_at ?? null) !== null;
}

/**
 * After an import: a deleted session met in a folder stays deleted (reported as skipped, with
 * no session id, so nothing opens it); importing that very file (`explicitFile`) restores it.
 */
export async function settleDeletedImports(
  ctx: AppContext,
  report: ImportReport,
  explicitFile: boolean,
): Promise<ImportReport> {
  if (!report.files.some((file) => isDeleted(ctx, file.sessionId))) return report;
  const files: ImportedFileReport[] = [];
  for (const file of report.files) files.push(await settled(ctx, file, explicitFile));
  const count = (status: ImportedFileReport["status"]) =>
    files.filter((file) => file.status === status).length;
  return {
    ...report,
    files,
    imported: count("imported"),
    updated: count("updated"),
    unchanged: count("unchanged"),
    skipped: count("skipped"),
    failed: count("failed"),
  };
}

/** One file's report after settleDeletedImports: restored, skipped, or as it was. */
async function settled(
  ctx: AppContext,
  file: ImportedFileReport,
  explicitFile: boolean,
): Promise<ImportedFileReport> {
  if (!isDeleted(ctx, file.sessionId)) return file;
  if (explicitFile) {
    await restoreToLibrary(ctx, file.sessionId);
    return { ...file, reason: "restored to the library (it had been deleted)" };
  }
  return {
    ...file,
    sessionId: null,
    status: "skipped",
    reason: `session ${file.sessionId} was deleted from the library; import the file itself to restore it`,
  };
}
