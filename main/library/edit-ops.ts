/**
 * What Canopy's edit operations record on a session's undo stack (each kind's data, stored as
 * JSON in `edit_ops`) and the plumbing every operation and its undo share: the view-leaf state,
 * re-inserting a fork, telling every client, and the result with the undo/redo state after it.
 */
import type { EditOperation, EditResultDto } from "../../core/api/dto.ts";
import type { SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import { ApiFailure } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Database } from "../store/open.ts";
import { entryIdExists } from "../store/repos/entries.ts";
import { getSessionRow, insertSession, type SessionRow, updateSession } from "../store/repos/sessions.ts";
import { editHistory, effectiveViewLeaf, requireAnySession, requireSession } from "./load.ts";
import { appendSessionEntries } from "./write.ts";
import { toJson } from "../../core/text/json-deep.ts";

/** The view leaf as stored: the chosen id, or "follow the file's last entry" (set = 0). */
export interface LeafState {
  id: string | null;
  set: 0 | 1;
}

/** edit-message, label: the entries appended and the view leaf before/after. */
export interface AppendOp {
  entries: SessionEntry[];
  before: LeafState;
  after: LeafState;
  /**
   * Set while an edit-message is undone by hiding its copy (a reply or other entry hung below
   * it, which undo never removes): the view leaf at the undo and where the undo left it, and the
   * entries the undo archived (none when the copy was an archived root already). Redo shows the
   * branch again, moves the view leaf back if it is still where the undo left it, and clears this.
   */
  hidden?: { leaf: LeafState; left: LeafState; archived: string[] };
  /**
   * Set while the entries are undone (removed): the lines (seq) they were on. Redo puts them back
   * there when those are still free, so what the agent appended meanwhile stays after them (the
   * export's order and its last line, where an agent resumes, are as before the undo).
   */
  seqs?: number[];
}
/** undo-summary: only the view leaf moved. */
export interface LeafOp {
  before: LeafState;
  after: LeafState;
}
/** The new session of a fork, whole: what forkSession inserts. */
export interface ForkCopy {
  forkSessionId: string;
  dialect: "pi" | "omp";
  header: SessionHeader;
  entries: SessionEntry[];
}
/**
 * fork: the new session's id only (undo deletes it from the library, redo restores it, both
 * kept whole). Records of older versions hold the whole copy (ForkCopy): redo re-inserts it
 * when the session is gone, as their undo removed it.
 */
export interface ForkOp {
  forkSessionId: string;
}
export interface RenameOp {
  before: string | null;
  after: string | null;
}
export interface ArchiveOp {
  entryId: string;
  archived: boolean;
}

export function leafState(row: SessionRow): LeafState {
  return { id: row.view_leaf_id, set: row.view_leaf_set };
}

export function restoreLeaf(db: Database, sessionId: string, leaf: LeafState): void {
  const { sid } = requireSession(db, sessionId);
  if (leaf.set === 1 && leaf.id !== null && !entryIdExists(db, sid, leaf.id)) {
    throw new ApiFailure("conflict", `Entry ${leaf.id} no longer exists; the view leaf cannot be restored`);
  }
  updateSession(db, sessionId, { view_leaf_id: leaf.id, view_leaf_set: leaf.set });
}

export function insertFork(db: Database, fork: ForkCopy): void {
  const now = new Date().toISOString();
  // The labels carried come after the path (SPEC §2.6): the view leaf is the entry forked at, the
  // last of the path, not the last label entry (D14, D15), so replies hang below the entry.
  const path = fork.entries.filter((entry) => entry.type !== "label");
  const leaf = path[path.length - 1]?.id ?? null;
  const pinned = leaf !== null && leaf !== fork.entries[fork.entries.length - 1]?.id;
  insertSession(db, {
    id: fork.forkSessionId,
    header_id: fork.header.id,
    dialect: fork.dialect,
    original_version: 3,
    header_json: toJson(fork.header),
    header_line: 1,
    cwd: typeof fork.header.cwd === "string" ? fork.header.cwd : "",
    created: typeof fork.header.timestamp === "string" ? fork.header.timestamp : now,
    modified: now,
    ...(pinned ? { view_leaf_id: leaf, view_leaf_set: 1 as const } : {}),
  });
  appendSessionEntries(db, fork.forkSessionId, fork.entries);
}

export function announce(ctx: AppContext, sessionIds: readonly string[]): void {
  for (const sessionId of sessionIds) {
    const row = getSessionRow(ctx.db, sessionId);
    if (row) ctx.events.emit("session:changed", { sessionId, viewLeafId: effectiveViewLeaf(row) });
  }
  ctx.events.emit("library:changed", { sessionIds: [...sessionIds] });
}

/** The result of an operation (or of undo/redo) on a session, deleted or not. */
export function result(
  db: Database,
  sessionId: string,
  operation: EditOperation | null,
  extra: Partial<EditResultDto> = {},
): EditResultDto {
  const row = requireAnySession(db, sessionId);
  return {
    sessionId,
    operation,
    viewLeafId: effectiveViewLeaf(row),
    ...extra,
    history: editHistory(db, row.sid),
  };
}
