/**
 * Canopy's edit operations (a per-session undo/redo stack, migration 2) and archived subtree
 * roots. Done operations form the undo stack; undone ones after them the redo stack, cleared
 * when a new operation is recorded. Functions take the session's internal key `sid`.
 */
import type { Database } from "better-sqlite3";
import { nowIso, stmt } from "../statements.ts";
import { type EntryShape, entryLinkById } from "./entries.ts";
import { toJson } from "../../../core/text/json-deep.ts";

export type OpState = "done" | "undone";

export interface EditOpRow {
  op_id: number;
  kind: string;
  state: OpState;
  data_json: string;
}

/** Records a done operation and drops the redo stack; returns the operation id. */
export function recordOp(db: Database, sid: number, kind: string, data: unknown): number {
  stmt(db, "DELETE FROM edit_ops WHERE sid = ? AND state = 'undone'").run(sid);
  const result = stmt(
    db,
    "INSERT INTO edit_ops (sid, kind, state, data_json, created_at) VALUES (?, ?, 'done', ?, ?)",
  ).run(sid, kind, toJson(data), nowIso());
  return Number(result.lastInsertRowid);
}

/** The operation `undo` would revert (the newest done one). */
export function lastDoneOp(db: Database, sid: number): EditOpRow | undefined {
  return stmt(
    db,
    "SELECT op_id, kind, state, data_json FROM edit_ops WHERE sid = ? AND state = 'done' ORDER BY op_id DESC LIMIT 1",
  ).get(sid) as EditOpRow | undefined;
}

/** The operation `redo` would re-apply (the oldest undone one). */
export function firstUndoneOp(db: Database, sid: number): EditOpRow | undefined {
  return stmt(
    db,
    "SELECT op_id, kind, state, data_json FROM edit_ops WHERE sid = ? AND state = 'undone' ORDER BY op_id LIMIT 1",
  ).get(sid) as EditOpRow | undefined;
}

/** The undone operations of one kind, the most recently undone (newest) first. */
export function undoneOps(db: Database, sid: number, kind: string): EditOpRow[] {
  return stmt(
    db,
    "SELECT op_id, kind, state, data_json FROM edit_ops WHERE sid = ? AND state = 'undone' AND kind = ? ORDER BY op_id DESC",
  ).all(sid, kind) as EditOpRow[];
}

/** Kinds of the operations undo and redo would take next (without their data). */
export function nextOpKinds(db: Database, sid: number): { undo: string | null; redo: string | null } {
  const undo = stmt(
    db,
    "SELECT kind FROM edit_ops WHERE sid = ? AND state = 'done' ORDER BY op_id DESC LIMIT 1",
  )
    .pluck(true)
    .get(sid) as string | undefined;
  const redo = stmt(db, "SELECT kind FROM edit_ops WHERE sid = ? AND state = 'undone' ORDER BY op_id LIMIT 1")
    .pluck(true)
    .get(sid) as string | undefined;
  return { undo: undo ?? null, redo: redo ?? null };
}

/** Rewrites what an operation recorded (undo of an edit notes how it was undone, for its redo). */
export function setOpData(db: Database, opId: number, data: unknown): void {
  stmt(db, "UPDATE edit_ops SET data_json = ? WHERE op_id = ?").run(toJson(data), opId);
}

export function setOpState(db: Database, opId: number, state: OpState): void {
  stmt(db, "UPDATE edit_ops SET state = ? WHERE op_id = ?").run(state, opId);
}

export function archivedRoots(db: Database, sid: number): Set<string> {
  const ids = stmt(db, "SELECT entry_id FROM archived_entries WHERE sid = ?")
    .pluck(true)
    .all(sid) as string[];
  return new Set(ids);
}

/**
 * True when `leafId` is one of `rootIds` or below one, walking up its parents through the id
 * index. An entry is stored after its parent (pk grows with every insert), so the walk stops at
 * the first entry older than the roots — a few steps from a reply below the edit — instead of
 * reading the session's whole structure (seconds on a 100k-entry session). Only an entry that
 * named an id before the id existed (an orphan then) could hang below a root from further up.
 */
export function isBelow(db: Database, sid: number, leafId: string, rootIds: readonly string[]): boolean {
  const roots = new Set(rootIds);
  const pks = rootIds.map((id) => entryLinkById(db, sid, id)?.[0]).filter((pk) => pk !== undefined);
  if (pks.length === 0) return false;
  const oldest = Math.min(...pks);
  const seen = new Set<string>();
  let cursor: string | null = leafId;
  while (cursor !== null && !seen.has(cursor)) {
    if (roots.has(cursor)) return true;
    seen.add(cursor);
    const link = entryLinkById(db, sid, cursor);
    if (link === undefined || link[0] < oldest) return false;
    cursor = link[2];
  }
  return false;
}

export function setArchived(db: Database, sid: number, entryId: string, archived: boolean): void {
  if (archived)
    stmt(db, "INSERT OR IGNORE INTO archived_entries (sid, entry_id) VALUES (?, ?)").run(sid, entryId);
  else stmt(db, "DELETE FROM archived_entries WHERE sid = ? AND entry_id = ?").run(sid, entryId);
}

/** Removes entries Canopy appended (origin 'canopy' only; a file entry is never touched). */
export function deleteCanopyEntries(db: Database, sid: number, ids: readonly string[]): number {
  const remove = stmt(db, "DELETE FROM entries WHERE sid = ? AND id = ? AND origin = 'canopy'");
  let removed = 0;
  for (const id of ids) removed += remove.run(sid, id).changes;
  return removed;
}

/** The structural columns of the rows deleteCanopyEntries removes for these ids (EntryShape). */
export function canopyEntryShapes(db: Database, sid: number, ids: readonly string[]): EntryShape[] {
  const query = stmt(
    db,
    "SELECT pk, seq, id, parent_id, type, role, model, origin FROM entries WHERE sid = ? AND id = ? AND origin = 'canopy'",
  ).raw(true);
  return ids.flatMap((id) => query.all(sid, id) as EntryShape[]);
}

/** Whether no entry and no malformed line of the session is on any of these lines (seq). */
export function seqsFree(db: Database, sid: number, seqs: readonly number[]): boolean {
  const entry = stmt(db, "SELECT 1 FROM entries WHERE sid = ? AND seq = ?").pluck(true);
  const malformed = stmt(db, "SELECT 1 FROM malformed_lines WHERE sid = ? AND seq = ?").pluck(true);
  return seqs.every((seq) => entry.get(sid, seq) === undefined && malformed.get(sid, seq) === undefined);
}

/** Origins of the rows holding these ids (to refuse removing anything not Canopy's). */
export function originsOf(db: Database, sid: number, ids: readonly string[]): string[] {
  const query = stmt(db, "SELECT origin FROM entries WHERE sid = ? AND id = ?").pluck(true);
  return ids.flatMap((id) => query.all(sid, id) as string[]);
}

/** Ids of entries whose parent is one of `ids` (children that would be orphaned). */
export function childIdsOf(db: Database, sid: number, ids: readonly string[]): string[] {
  const query = stmt(db, "SELECT id FROM entries WHERE sid = ? AND parent_id = ?").pluck(true);
  return ids.flatMap((id) => query.all(sid, id) as string[]);
}

/** Entries of a session that did not come from Canopy (a fork holding any is not removed). */
export function countNonCanopyEntries(db: Database, sid: number): number {
  return stmt(db, "SELECT count(*) FROM entries WHERE sid = ? AND origin <> 'canopy'")
    .pluck(true)
    .get(sid) as number;
}
