/**
 * Undo and redo of Canopy's own edits (issue 6): the session's newest done operation is reverted,
 * or its oldest undone one re-applied, exactly and in one transaction. Only entries Canopy
 * appended (origin 'canopy') are ever removed; a deleted session can only be restored.
 */
import type { EditOperation, EditResultDto } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { ApiFailure } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Database } from "../store/open.ts";
import {
  childIdsOf,
  countNonCanopyEntries,
  deleteCanopyEntries,
  type EditOpRow,
  firstUndoneOp,
  lastDoneOp,
  originsOf,
  setArchived,
  setOpState,
} from "../store/repos/edits.ts";
import { entryIdExists } from "../store/repos/entries.ts";
import { getSessionRow, type SessionRow, updateSession } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import { catchUpWithFile, setDeleted } from "./delete.ts";
import {
  type AppendOp,
  type ArchiveOp,
  announce,
  type ForkCopy,
  type ForkOp,
  insertFork,
  type LeafOp,
  type LeafState,
  leafState,
  type RenameOp,
  restoreLeaf,
  result,
} from "./edit-ops.ts";
import { requireAnySession } from "./load.ts";
import { refreshSessionStats } from "./stats.ts";
import { appendSessionEntries } from "./write.ts";

/** Removes entries Canopy appended, refusing when any is not Canopy's or has other children. */
function removeAppended(db: Database, sid: number, entries: readonly SessionEntry[]): void {
  const ids = entries.map((entry) => entry.id);
  if (originsOf(db, sid, ids).some((origin) => origin !== "canopy")) {
    throw new ApiFailure("conflict", "An entry of this edit is no longer Canopy's own; nothing was undone");
  }
  const own = new Set(ids);
  const children = childIdsOf(db, sid, ids).filter((id) => !own.has(id));
  if (children.length > 0) {
    // Later edits were undone before this one, so what hangs below it is no edit of the stack: a
    // chat reply, a compaction or summary, or the agent's own entry, none of which undo removes.
    const child = children[0] as string;
    const what =
      originsOf(db, sid, [child])[0] === "canopy" ? "a reply or summary" : "an entry of the agent's file";
    throw new ApiFailure(
      "conflict",
      `Entry ${child} (${what}) hangs below this edit, and undo does not remove it; nothing was undone (archive the branch to hide it)`,
    );
  }
  deleteCanopyEntries(db, sid, ids);
}

function sameLeaf(a: LeafState, b: LeafState): boolean {
  return a.id === b.id && a.set === b.set;
}

/**
 * Undo of a fork deletes the new session from the library (kept whole, as a delete does); one
 * holding entries of a file, or one already deleted by its own delete, is left as it is.
 */
function undoFork(ctx: AppContext, forkSessionId: string): void {
  const forkRow = getSessionRow(ctx.db, forkSessionId);
  if (!forkRow) return;
  if (countNonCanopyEntries(ctx.db, forkRow.sid) > 0 || forkRow.source_path !== null) {
    throw new ApiFailure("conflict", `Session ${forkSessionId} now has entries from a file; it is kept`);
  }
  if (forkRow.deleted_at === null) setDeleted(ctx, forkSessionId, true);
}

/**
 * Redo of a fork brings the deleted session back as it was. A record of an older version holds
 * the whole session, which its undo removed: that is inserted again. A session deleted by its
 * own delete (its newest operation) stays deleted, as its undo left it; one back in the library
 * already has nothing to redo.
 */
function redoFork(ctx: AppContext, fork: ForkOp | ForkCopy): void {
  const forkRow = getSessionRow(ctx.db, fork.forkSessionId);
  if (!forkRow) {
    if (!("entries" in fork)) {
      throw new ApiFailure(
        "conflict",
        `Session ${fork.forkSessionId} is no longer stored; nothing was redone`,
      );
    }
    insertFork(ctx.db, fork);
    return;
  }
  if (forkRow.deleted_at === null || lastDoneOp(ctx.db, forkRow.sid)?.kind === "delete") return;
  setDeleted(ctx, fork.forkSessionId, false);
}

/** Applies (`redo` true) or reverts one operation; returns the sessions it touched. */
function applyOp(ctx: AppContext, row: SessionRow, op: EditOpRow, redo: boolean): string[] {
  const { db } = ctx;
  const data: unknown = JSON.parse(op.data_json);
  switch (op.kind as EditOperation) {
    case "edit-message":
    case "label": {
      const { entries, before, after } = data as AppendOp;
      if (redo) {
        if (entries.some((entry) => entryIdExists(db, row.sid, entry.id))) {
          throw new ApiFailure("conflict", "An entry of this edit exists again; nothing was redone");
        }
        appendSessionEntries(db, row.id, entries);
        if (sameLeaf(leafState(row), before)) restoreLeaf(db, row.id, after);
      } else {
        // The view leaf goes back only if it is still where this edit left it (a label never
        // moved it), or if it is one of the entries removed now.
        const leaf = leafState(row);
        const removed = entries.some((entry) => entry.id === leaf.id);
        removeAppended(db, row.sid, entries);
        refreshSessionStats(db, row);
        if (removed || sameLeaf(leaf, after)) restoreLeaf(db, row.id, before);
      }
      return [row.id];
    }
    case "undo-summary": {
      const { before, after } = data as LeafOp;
      restoreLeaf(db, row.id, redo ? after : before);
      return [row.id];
    }
    case "fork": {
      const { forkSessionId } = data as ForkOp;
      if (redo) redoFork(ctx, data as ForkOp | ForkCopy);
      else undoFork(ctx, forkSessionId);
      return [row.id, forkSessionId];
    }
    case "rename": {
      const { before, after } = data as RenameOp;
      updateSession(db, row.id, { canopy_title: redo ? after : before });
      return [row.id];
    }
    case "archive":
    case "unarchive": {
      const { entryId, archived } = data as ArchiveOp;
      setArchived(db, row.sid, entryId, redo ? archived : !archived);
      return [row.id];
    }
    case "delete":
    case "restore": {
      const deletes = op.kind === "delete";
      setDeleted(ctx, row.id, redo ? deletes : !deletes);
      return [row.id];
    }
    default:
      throw new ApiFailure("internal", `Unknown edit operation ${op.kind}`);
  }
}

export function undoOrRedo(ctx: AppContext, sessionId: string, redo: boolean): EditResultDto {
  const { db } = ctx;
  const done = writeTransaction(db, () => {
    const row = requireAnySession(db, sessionId);
    const op = redo ? firstUndoneOp(db, row.sid) : lastDoneOp(db, row.sid);
    if (!op) return null;
    if (row.deleted_at !== null && (redo || op.kind !== "delete")) {
      throw new ApiFailure("conflict", `Session ${sessionId} is deleted; restore it first`);
    }
    const touched = applyOp(ctx, row, op, redo);
    setOpState(db, op.op_id, redo ? "done" : "undone");
    return { kind: op.kind as EditOperation, touched };
  })();
  if (!done) return result(db, sessionId, null);
  const restored = redo ? done.kind === "restore" : done.kind === "delete";
  if (restored) catchUpWithFile(ctx, sessionId);
  announce(ctx, done.touched);
  return result(db, sessionId, done.kind);
}
