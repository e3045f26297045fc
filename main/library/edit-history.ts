/**
 * Undo and redo of Canopy's own edits (issue 6): the session's newest done operation is reverted,
 * or its oldest undone one re-applied, exactly and in one transaction. Only entries Canopy
 * appended (origin 'canopy') are ever removed, never what hangs below them: an edited message
 * that has been answered since is hidden (archived) instead; a deleted session can only be restored.
 */
import type { EditOperation, EditResultDto } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { ApiFailure } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Database } from "../store/open.ts";
import {
  archivedRoots,
  canopyEntryShapes,
  childIdsOf,
  countNonCanopyEntries,
  deleteCanopyEntries,
  type EditOpRow,
  firstUndoneOp,
  isBelow,
  lastDoneOp,
  originsOf,
  setArchived,
  seqsFree,
  setOpData,
  setOpState,
  undoneOps,
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
import { effectiveViewLeaf, requireAnySession } from "./load.ts";
import { statsAfterRemove } from "./remove-stats.ts";
import { refreshSessionStats } from "./stats.ts";
import { appendSessionEntries } from "./write.ts";

/** Entries below the appended ones that are not among them (what removing them would orphan). */
function childrenBelow(db: Database, sid: number, entries: readonly SessionEntry[]): string[] {
  const ids = entries.map((entry) => entry.id);
  const own = new Set(ids);
  return childIdsOf(db, sid, ids).filter((id) => !own.has(id));
}

/** What hangs below an edit, as the messages name it. */
function describeChild(db: Database, sid: number, child: string): string {
  const what =
    originsOf(db, sid, [child])[0] === "canopy" ? "a reply or summary" : "an entry of the agent's file";
  return `${child} (${what})`;
}

/**
 * Removes entries Canopy appended and updates the session's figures, refusing when any is not
 * Canopy's or has other children (`children`: childrenBelow, worked out by the caller).
 */
function removeAppended(
  db: Database,
  row: SessionRow,
  entries: readonly SessionEntry[],
  children: readonly string[],
): number[] | undefined {
  const { sid } = row;
  const ids = entries.map((entry) => entry.id);
  if (originsOf(db, sid, ids).some((origin) => origin !== "canopy")) {
    throw new ApiFailure("conflict", "An entry of this edit is no longer Canopy's own; nothing was undone");
  }
  if (children.length > 0) {
    // Later edits were undone before this one, so what hangs below it is no edit of the stack: a
    // chat reply, a compaction or summary, or the agent's own entry, none of which undo removes.
    // (An edited message is hidden instead: hideEdit.) A label entry hangs below the last entry
    // and never becomes the view leaf (D15, setLabel), so only a reply continued from the label
    // entry itself, or an agent's line naming it, hangs below one: removing the label would
    // orphan that entry, which undo never removes, so the undo is refused with the way out.
    throw new ApiFailure(
      "conflict",
      `Entry ${describeChild(db, sid, children[0] as string)} hangs below this label, and undo does not remove it; nothing was undone (archive the branch to hide it)`,
    );
  }
  const removed = canopyEntryShapes(db, sid, ids);
  deleteCanopyEntries(db, sid, ids);
  // From the removed rows where that is exact, instead of a recount of every row.
  const patch = statsAfterRemove(db, row, removed);
  if (patch === null) refreshSessionStats(db, row);
  else updateSession(db, row.id, patch);
  // The lines they were on, in the entries' order (one row per id, or none to put back).
  const seqOf = new Map(removed.map((shape) => [shape[2], shape[1]]));
  const seqs = ids.map((id) => seqOf.get(id));
  return removed.length === ids.length && seqs.every((seq) => seq !== undefined)
    ? (seqs as number[])
    : undefined;
}

/**
 * Undo of an edited message that has grown a reply (or a summary, or the agent's entries) below
 * it: removing the copy would orphan or lose them, so the copy's branch is archived instead —
 * what Archive branch does, hidden unless "Show archived" — and the view leaf goes back as when
 * the copy is removed. Nothing is lost: redo (showEdit) or Restore branch shows it again.
 */
function hideEdit(db: Database, row: SessionRow, op: EditOpRow, data: AppendOp, child: string): string {
  const ids = new Set(data.entries.map((entry) => entry.id));
  const roots = data.entries.filter((entry) => entry.parentId === null || !ids.has(entry.parentId));
  const already = archivedRoots(db, row.sid);
  const archived = roots.map((entry) => entry.id).filter((id) => !already.has(id));
  for (const id of archived) setArchived(db, row.sid, id, true);
  const leaf = leafState(row);
  const rootIds = roots.map((entry) => entry.id);
  const below = (id: string | null) => id !== null && isBelow(db, row.sid, id, rootIds);
  if (below(effectiveViewLeaf(row)) || sameLeaf(leaf, data.after)) {
    restoreLeaf(db, row.id, data.before);
    // A view leaf that follows the session's last entry (no file leaf: a fork, or a file whose
    // last line has no id) would still be in the hidden branch: it stays where the edit branched.
    const branchedAt = roots[0]?.parentId ?? null;
    if (below(effectiveViewLeaf(requireAnySession(db, row.id))) && branchedAt !== null) {
      restoreLeaf(db, row.id, { id: branchedAt, set: 1 });
    }
  }
  const left = leafState(requireAnySession(db, row.id));
  setOpData(db, op.op_id, { ...data, hidden: { leaf, left, archived } } satisfies AppendOp);
  return `The edited message has entry ${describeChild(db, row.sid, child)} below it, which undo never removes: its branch is archived instead (Redo, or Restore branch under Show archived, brings it back)`;
}

/**
 * A job's result (a chat reply, a summary) planned below an edited message that an undo in
 * another Canopy (the CLI, a second window's server) removed while the model wrote: that undo
 * could not know of the job, which this process's undo waits for. The edit comes back as the
 * undo of an answered edit leaves it (hideEdit: its entries stored again, its branch archived,
 * the view leaf where the undo put it), so the result can be saved below it and nothing is lost;
 * redo shows it. False when no undone edit holds the entry (it is gone for good).
 */
export function keepUndoneEditFor(db: Database, row: SessionRow, entryId: string): boolean {
  for (const op of undoneOps(db, row.sid, "edit-message")) {
    const data = JSON.parse(op.data_json) as AppendOp;
    if (data.hidden || !data.entries.some((entry) => entry.id === entryId)) continue;
    if (data.entries.some((entry) => entryIdExists(db, row.sid, entry.id))) return false;
    const { seqs, ...rest } = data;
    const back = seqs !== undefined && seqsFree(db, row.sid, seqs) ? seqs : undefined;
    appendSessionEntries(db, row.id, data.entries, back);
    hideEdit(db, requireAnySession(db, row.id), op, rest, entryId);
    return true;
  }
  return false;
}

/** Redo of a hidden edit: the branch is shown again and the view leaf goes back where it was. */
function showEdit(db: Database, row: SessionRow, op: EditOpRow, data: AppendOp): string {
  const { hidden, ...rest } = data;
  if (!hidden) throw new ApiFailure("internal", "showEdit needs a hidden edit");
  for (const id of hidden.archived) setArchived(db, row.sid, id, false);
  if (sameLeaf(leafState(row), hidden.left)) {
    const back =
      hidden.leaf.id === null || entryIdExists(db, row.sid, hidden.leaf.id) ? hidden.leaf : data.after;
    restoreLeaf(db, row.id, back);
  }
  setOpData(db, op.op_id, rest satisfies AppendOp);
  return "The edited message's branch is shown again, with what was added below it";
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

/** What applying or reverting an operation did: the sessions it touched, and a note to show. */
interface Applied {
  touched: string[];
  note?: string;
}

/** Applies (`redo` true) or reverts one operation. */
function applyOp(ctx: AppContext, row: SessionRow, op: EditOpRow, redo: boolean): Applied {
  const { db } = ctx;
  const data: unknown = JSON.parse(op.data_json);
  switch (op.kind as EditOperation) {
    case "edit-message":
    case "label": {
      const append = data as AppendOp;
      const { entries, before, after } = append;
      if (redo) {
        if (append.hidden) return { touched: [row.id], note: showEdit(db, row, op, append) };
        if (entries.some((entry) => entryIdExists(db, row.sid, entry.id))) {
          throw new ApiFailure("conflict", "An entry of this edit exists again; nothing was redone");
        }
        const { seqs, ...rest } = append;
        const back = seqs !== undefined && seqsFree(db, row.sid, seqs) ? seqs : undefined;
        appendSessionEntries(db, row.id, entries, back);
        if (seqs !== undefined) setOpData(db, op.op_id, rest satisfies AppendOp);
        if (sameLeaf(leafState(row), before)) restoreLeaf(db, row.id, after);
      } else {
        const children = childrenBelow(db, row.sid, entries);
        const child = children[0];
        if (op.kind === "edit-message" && child !== undefined) {
          return { touched: [row.id], note: hideEdit(db, row, op, append, child) };
        }
        // The view leaf goes back only if it is still where this edit left it (a label never
        // moved it), or if it is one of the entries removed now.
        const leaf = leafState(row);
        const removed = entries.some((entry) => entry.id === leaf.id);
        const seqs = removeAppended(db, row, entries, children);
        if (seqs !== undefined) setOpData(db, op.op_id, { ...append, seqs } satisfies AppendOp);
        if (removed || sameLeaf(leaf, after)) restoreLeaf(db, row.id, before);
      }
      return { touched: [row.id] };
    }
    case "undo-summary": {
      const { before, after } = data as LeafOp;
      // As for the other edits: the view leaf moves only if it is still where this step left it
      // (undo) or found it (redo); one the user moved since stays where it is, and the note says
      // so, the step having nothing else to show.
      if (!sameLeaf(leafState(row), redo ? before : after)) {
        return { touched: [row.id], note: `The view leaf stays at ${effectiveViewLeaf(row) ?? "the start"}, where it was moved since` };
      }
      restoreLeaf(db, row.id, redo ? after : before);
      return { touched: [row.id] };
    }
    case "fork": {
      const { forkSessionId } = data as ForkOp;
      if (redo) redoFork(ctx, data as ForkOp | ForkCopy);
      else undoFork(ctx, forkSessionId);
      return { touched: [row.id, forkSessionId] };
    }
    case "rename": {
      const { before, after } = data as RenameOp;
      updateSession(db, row.id, { canopy_title: redo ? after : before });
      return { touched: [row.id] };
    }
    case "archive":
    case "unarchive": {
      const { entryId, archived } = data as ArchiveOp;
      setArchived(db, row.sid, entryId, redo ? archived : !archived);
      return { touched: [row.id] };
    }
    case "delete":
    case "restore": {
      const deletes = op.kind === "delete";
      setDeleted(ctx, row.id, redo ? deletes : !deletes);
      return { touched: [row.id] };
    }
    default:
      throw new ApiFailure("internal", `Unknown edit operation ${op.kind}`);
  }
}

export async function undoOrRedo(ctx: AppContext, sessionId: string, redo: boolean): Promise<EditResultDto> {
  const { db } = ctx;
  const done = writeTransaction(db, () => {
    const row = requireAnySession(db, sessionId);
    const op = redo ? firstUndoneOp(db, row.sid) : lastDoneOp(db, row.sid);
    if (!op) return null;
    // A deleted session takes only what brings it back: undo of its delete, redo of its restore
    // (refused, the user's way back, library:restore, would drop the edits still to redo).
    if (row.deleted_at !== null && op.kind !== (redo ? "restore" : "delete")) {
      throw new ApiFailure("conflict", `Session ${sessionId} is deleted; restore it first`);
    }
    // Undoing an edited message or a label removes entries; a reply (or summary) being written
    // meanwhile may be about to hang below one of them, and would then be refused and lost.
    const job = ctx.jobs.get(row.id);
    if (!redo && job !== undefined && (op.kind === "edit-message" || op.kind === "label")) {
      const what =
        job.kind === "chat" ? "chat turn" : job.kind === "compaction" ? "compaction" : "branch summary";
      throw new ApiFailure(
        "conflict",
        `A ${what} is running for this session and may write below what this undo would remove; undo once it is done, or cancel it first`,
      );
    }
    const applied = applyOp(ctx, row, op, redo);
    setOpState(db, op.op_id, redo ? "done" : "undone");
    return { kind: op.kind as EditOperation, ...applied };
  })();
  if (!done) return result(db, sessionId, null);
  const restored = redo ? done.kind === "restore" : done.kind === "delete";
  if (restored) await catchUpWithFile(ctx, sessionId);
  announce(ctx, done.touched);
  return result(db, sessionId, done.kind, done.note === undefined ? {} : { note: done.note });
}
