/**
 * Canopy's edits of a session (issue 6): edit a message as a new branch, fork to a new session,
 * undo a summary, rename, label, archive — each one transaction that records an operation with
 * what it changed, so undo/redo restore the previous state exactly. Only entries Canopy
 * appended (origin 'canopy') are ever removed; the agents' entries and files are never altered.
 */
import { randomUUID } from "node:crypto";
import type { EditResultDto } from "../../core/api/dto.ts";
import type { LabelEntry, SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import { randomEntryId } from "../../core/session/ids.ts";
import { buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import { ApiFailure, invalidInput, notFound } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Database } from "../store/open.ts";
import {
  archivedRoots,
  childIdsOf,
  countNonCanopyEntries,
  deleteCanopyEntries,
  type EditOpRow,
  firstUndoneOp,
  lastDoneOp,
  originsOf,
  recordOp,
  setArchived,
  setOpState,
} from "../store/repos/edits.ts";
import { entryIdExists, lastEntryId, storedEntryIds } from "../store/repos/entries.ts";
import {
  deleteSession,
  getSessionRow,
  insertSession,
  type SessionRow,
  updateSession,
} from "../store/repos/sessions.ts";
import { effectiveViewLeaf, loadSessionEntries, requireSession } from "./load.ts";
import { refreshSessionStats } from "./stats.ts";
import { appendSessionEntries } from "./write.ts";

type Loose = Record<string, unknown>;

/** The view leaf as stored: the chosen id, or "follow the file's last entry" (set = 0). */
interface LeafState {
  id: string | null;
  set: 0 | 1;
}

interface AppendOp {
  entries: SessionEntry[];
  before: LeafState;
  after: LeafState;
}
interface LeafOp {
  before: LeafState;
  after: LeafState;
}
interface ForkOp {
  forkSessionId: string;
  dialect: "pi" | "omp";
  header: SessionHeader;
  entries: SessionEntry[];
}
interface RenameOp {
  before: string | null;
  after: string | null;
}
interface ArchiveOp {
  entryId: string;
  archived: boolean;
}

function leafState(row: SessionRow): LeafState {
  return { id: row.view_leaf_id, set: row.view_leaf_set };
}

function restoreLeaf(db: Database, sessionId: string, leaf: LeafState): void {
  const { sid } = requireSession(db, sessionId);
  if (leaf.set === 1 && leaf.id !== null && !entryIdExists(db, sid, leaf.id)) {
    throw new ApiFailure("conflict", `Entry ${leaf.id} no longer exists; the view leaf cannot be restored`);
  }
  updateSession(db, sessionId, { view_leaf_id: leaf.id, view_leaf_set: leaf.set });
}

function sessionIndex(db: Database, sessionId: string): TreeIndex {
  return buildTreeIndex(loadSessionEntries(db, sessionId));
}

function requireEntry(index: TreeIndex, sessionId: string, entryId: string): SessionEntry {
  const entry = index.byId.get(entryId);
  if (!entry) throw notFound(`Session ${sessionId} has no entry ${entryId}`);
  return entry;
}

function announce(ctx: AppContext, sessionIds: readonly string[]): void {
  for (const sessionId of sessionIds) {
    const row = getSessionRow(ctx.db, sessionId);
    if (row) ctx.events.emit("session:changed", { sessionId, viewLeafId: effectiveViewLeaf(row) });
  }
  ctx.events.emit("library:changed", { sessionIds: [...sessionIds] });
}

function result(
  db: Database,
  sessionId: string,
  operation: string | null,
  extra: Partial<EditResultDto> = {},
): EditResultDto {
  return { sessionId, operation, viewLeafId: effectiveViewLeaf(requireSession(db, sessionId)), ...extra };
}

/** Entry ids in the subtrees below (and including) `roots`. */
export function subtreeIds(index: TreeIndex, roots: Iterable<string>): Set<string> {
  const out = new Set<string>();
  const stack = [...roots].filter((id) => index.byId.has(id));
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (out.has(id)) continue;
    out.add(id);
    for (const child of index.children(id)) if (typeof child.id === "string") stack.push(child.id);
  }
  return out;
}

/** The ids of every archived entry of a session (archived roots and everything below them). */
export function archivedEntryIds(db: Database, sessionId: string, index?: TreeIndex): Set<string> {
  const { sid } = requireSession(db, sessionId);
  const roots = archivedRoots(db, sid);
  if (roots.size === 0) return roots;
  return subtreeIds(index ?? sessionIndex(db, sessionId), roots);
}

// ── edit a message as a new branch ──────────────────────────────────────────

function replaceText(content: unknown, text: string): unknown {
  if (!Array.isArray(content)) return text;
  const out: unknown[] = [];
  let placed = false;
  for (const block of content) {
    if ((block as Loose | null)?.type === "text") {
      if (!placed) out.push({ ...(block as Loose), text });
      placed = true;
    } else out.push(block);
  }
  if (!placed) out.unshift({ type: "text", text });
  return out;
}

function editedCopy(
  entry: SessionEntry,
  id: string,
  parentId: string | null,
  text: string,
  now: Date,
): SessionEntry {
  const copy = structuredClone(entry) as SessionEntry & Loose;
  copy.id = id;
  copy.parentId = parentId;
  copy.timestamp = now.toISOString();
  if (entry.type === "custom_message") {
    copy.content = replaceText(copy.content, text);
    return copy;
  }
  const message = copy.message as Loose;
  message.content = replaceText(message.content, text);
  if (typeof message.timestamp === "number") message.timestamp = now.getTime();
  return copy;
}

function isEditable(entry: SessionEntry): boolean {
  if (entry.type === "custom_message") return true;
  if (entry.type !== "message") return false;
  const role = (entry.message as Loose | undefined)?.role;
  return role === "user" || role === "custom";
}

/** Appends entries (as a recorded operation) and optionally moves the view leaf to `leafTo`. */
function appendOp(
  ctx: AppContext,
  sessionId: string,
  kind: string,
  build: (
    used: Set<string>,
    index: TreeIndex,
  ) => { entries: SessionEntry[]; leafTo: string | null | undefined },
): EditResultDto {
  const { db } = ctx;
  const entryId = db.transaction(() => {
    const row = requireSession(db, sessionId);
    const index = sessionIndex(db, sessionId);
    const { entries, leafTo } = build(storedEntryIds(db, row.sid), index);
    const before = leafState(row);
    appendSessionEntries(db, sessionId, entries);
    if (leafTo !== undefined) updateSession(db, sessionId, { view_leaf_id: leafTo, view_leaf_set: 1 });
    const after = leafState(requireSession(db, sessionId));
    recordOp(db, row.sid, kind, { entries, before, after } satisfies AppendOp);
    return entries[0]?.id;
  })();
  announce(ctx, [sessionId]);
  return result(db, sessionId, kind, entryId === undefined ? {} : { entryId });
}

export function editMessage(
  ctx: AppContext,
  sessionId: string,
  entryId: string,
  text: string,
): EditResultDto {
  return appendOp(ctx, sessionId, "edit-message", (used, index) => {
    const entry = requireEntry(index, sessionId, entryId);
    if (!isEditable(entry)) {
      throw invalidInput(
        `Entry ${entryId} is a ${entry.type === "message" ? `${String((entry.message as Loose | undefined)?.role)} message` : entry.type}; only user and custom messages can be edited`,
      );
    }
    const copy = editedCopy(entry, randomEntryId(used), index.parentOf(entryId), text, new Date());
    return { entries: [copy], leafTo: copy.id };
  });
}

/**
 * A label set from the canvas (D15): the label entry hangs below the session's last entry (the
 * agent's resume leaf stays the same path) and the view leaf does not move.
 */
export function setLabel(
  ctx: AppContext,
  sessionId: string,
  targetId: string,
  label: string | null,
): EditResultDto {
  return appendOp(ctx, sessionId, "label", (used, index) => {
    requireEntry(index, sessionId, targetId);
    const { sid } = requireSession(ctx.db, sessionId);
    const entry: LabelEntry = {
      type: "label",
      id: randomEntryId(used),
      parentId: lastEntryId(ctx.db, sid),
      timestamp: new Date().toISOString(),
      targetId,
    };
    if (label !== null && label !== "") entry.label = label;
    return { entries: [entry], leafTo: undefined };
  });
}

// ── undo a compaction / branch summary (view leaf only) ─────────────────────

export function undoSummary(ctx: AppContext, sessionId: string, entryId: string): EditResultDto {
  const { db } = ctx;
  db.transaction(() => {
    const row = requireSession(db, sessionId);
    const index = sessionIndex(db, sessionId);
    const entry = requireEntry(index, sessionId, entryId);
    if (entry.type !== "compaction" && entry.type !== "branch_summary") {
      throw invalidInput(`Entry ${entryId} is a ${entry.type}, not a compaction or branch summary`);
    }
    const before = leafState(row);
    updateSession(db, sessionId, { view_leaf_id: index.parentOf(entryId), view_leaf_set: 1 });
    recordOp(db, row.sid, "undo-summary", {
      before,
      after: leafState(requireSession(db, sessionId)),
    } satisfies LeafOp);
  })();
  announce(ctx, [sessionId]);
  return result(db, sessionId, "undo-summary");
}

// ── fork to a new session (SPEC §2.6 createBranchedSession) ─────────────────

function insertFork(db: Database, fork: ForkOp): void {
  const now = new Date().toISOString();
  insertSession(db, {
    id: fork.forkSessionId,
    header_id: fork.header.id,
    dialect: fork.dialect,
    original_version: 3,
    header_json: JSON.stringify(fork.header),
    header_line: 1,
    cwd: typeof fork.header.cwd === "string" ? fork.header.cwd : "",
    created: typeof fork.header.timestamp === "string" ? fork.header.timestamp : now,
    modified: now,
  });
  appendSessionEntries(db, fork.forkSessionId, fork.entries);
}

function randomHex16(): string {
  return randomUUID().replaceAll("-", "").slice(0, 16);
}

export function forkSession(ctx: AppContext, sessionId: string, entryId: string): EditResultDto {
  const { db } = ctx;
  const fork = db.transaction(() => {
    const row = requireSession(db, sessionId);
    const index = sessionIndex(db, sessionId);
    requireEntry(index, sessionId, entryId);
    const kept = index.pathTo(entryId).filter((entry) => entry.type !== "label");
    const used = new Set(kept.map((entry) => entry.id));
    const timestamp = new Date().toISOString();
    let parentId: string | null = kept[kept.length - 1]?.id ?? null;
    const labels: LabelEntry[] = [];
    for (const entry of kept) {
      const label = index.labels.get(entry.id);
      if (label === undefined) continue;
      const id = randomEntryId(used);
      used.add(id);
      labels.push({ type: "label", id, parentId, timestamp, targetId: entry.id, label });
      parentId = id;
    }
    let forkSessionId = row.dialect === "omp" ? randomHex16() : randomUUID();
    while (getSessionRow(db, forkSessionId)) forkSessionId = randomUUID();
    const header: SessionHeader = {
      type: "session",
      version: 3,
      id: forkSessionId,
      timestamp,
      cwd: row.cwd,
      parentSession: row.id,
    };
    const op: ForkOp = { forkSessionId, dialect: row.dialect, header, entries: [...kept, ...labels] };
    insertFork(db, op);
    recordOp(db, row.sid, "fork", op);
    return op;
  })();
  announce(ctx, [sessionId, fork.forkSessionId]);
  return result(db, sessionId, "fork", { forkSessionId: fork.forkSessionId });
}

// ── rename (library only; written on export) ────────────────────────────────

export function renameSession(ctx: AppContext, sessionId: string, title: string | null): EditResultDto {
  const { db } = ctx;
  db.transaction(() => {
    const row = requireSession(db, sessionId);
    const after = title === null || title.trim() === "" ? null : title.trim();
    updateSession(db, sessionId, { canopy_title: after });
    recordOp(db, row.sid, "rename", { before: row.canopy_title, after } satisfies RenameOp);
  })();
  announce(ctx, [sessionId]);
  return result(db, sessionId, "rename");
}

// ── archive ─────────────────────────────────────────────────────────────────

export function archiveSubtree(
  ctx: AppContext,
  sessionId: string,
  entryId: string,
  archived: boolean,
  confirm: boolean,
): EditResultDto {
  const { db } = ctx;
  const kind = archived ? "archive" : "unarchive";
  db.transaction(() => {
    const row = requireSession(db, sessionId);
    const index = sessionIndex(db, sessionId);
    requireEntry(index, sessionId, entryId);
    const roots = archivedRoots(db, row.sid);
    if (roots.has(entryId) === archived) {
      throw invalidInput(
        `Entry ${entryId} is ${archived ? "already" : "not"} the root of an archived branch`,
      );
    }
    const leaf = effectiveViewLeaf(row);
    if (archived && !confirm && leaf !== null && subtreeIds(index, [entryId]).has(leaf)) {
      throw new ApiFailure(
        "conflict",
        `The branch below ${entryId} holds the view leaf ${leaf}; archiving hides what you are looking at. Confirm to archive it anyway (CLI: --yes).`,
      );
    }
    setArchived(db, row.sid, entryId, archived);
    recordOp(db, row.sid, kind, { entryId, archived } satisfies ArchiveOp);
  })();
  announce(ctx, [sessionId]);
  return result(db, sessionId, kind);
}

// ── undo / redo ─────────────────────────────────────────────────────────────

/** Removes entries Canopy appended, refusing when any is not Canopy's or has other children. */
function removeAppended(db: Database, sid: number, entries: readonly SessionEntry[]): void {
  const ids = entries.map((entry) => entry.id);
  if (originsOf(db, sid, ids).some((origin) => origin !== "canopy")) {
    throw new ApiFailure("conflict", "An entry of this edit is no longer Canopy's own; nothing was undone");
  }
  const own = new Set(ids);
  const children = childIdsOf(db, sid, ids).filter((id) => !own.has(id));
  if (children.length > 0) {
    throw new ApiFailure("conflict", `Entry ${children[0]} was added below this edit; undo that first`);
  }
  deleteCanopyEntries(db, sid, ids);
}

/** Applies (`redo` true) or reverts one operation; returns the sessions it touched. */
function applyOp(db: Database, row: SessionRow, op: EditOpRow, redo: boolean): string[] {
  const data: unknown = JSON.parse(op.data_json);
  switch (op.kind) {
    case "edit-message":
    case "label": {
      const { entries, before, after } = data as AppendOp;
      if (redo) {
        const used = storedEntryIds(db, row.sid);
        if (entries.some((entry) => used.has(entry.id))) {
          throw new ApiFailure("conflict", "An entry of this edit exists again; nothing was redone");
        }
        appendSessionEntries(db, row.id, entries);
        restoreLeaf(db, row.id, after);
      } else {
        removeAppended(db, row.sid, entries);
        refreshSessionStats(db, row);
        restoreLeaf(db, row.id, before);
      }
      return [row.id];
    }
    case "undo-summary": {
      const { before, after } = data as LeafOp;
      restoreLeaf(db, row.id, redo ? after : before);
      return [row.id];
    }
    case "fork": {
      const fork = data as ForkOp;
      if (redo) {
        if (getSessionRow(db, fork.forkSessionId)) {
          throw new ApiFailure("conflict", `Session ${fork.forkSessionId} exists again; nothing was redone`);
        }
        insertFork(db, fork);
      } else {
        const forkRow = getSessionRow(db, fork.forkSessionId);
        if (forkRow) {
          if (countNonCanopyEntries(db, forkRow.sid) > 0 || forkRow.source_path !== null) {
            throw new ApiFailure(
              "conflict",
              `Session ${fork.forkSessionId} now has entries from a file; it is kept`,
            );
          }
          deleteSession(db, fork.forkSessionId);
        }
      }
      return [row.id, fork.forkSessionId];
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
    default:
      throw new ApiFailure("internal", `Unknown edit operation ${op.kind}`);
  }
}

export function undoOrRedo(ctx: AppContext, sessionId: string, redo: boolean): EditResultDto {
  const { db } = ctx;
  const done = db.transaction(() => {
    const row = requireSession(db, sessionId);
    const op = redo ? firstUndoneOp(db, row.sid) : lastDoneOp(db, row.sid);
    if (!op) return null;
    const touched = applyOp(db, row, op, redo);
    setOpState(db, op.op_id, redo ? "done" : "undone");
    return { kind: op.kind, touched };
  })();
  if (!done) return result(db, sessionId, null);
  announce(ctx, done.touched);
  return result(db, sessionId, done.kind);
}
