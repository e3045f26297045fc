/**
 * Canopy's edits of a session (issue 6): edit a message as a new branch, fork to a new session,
 * undo a summary, rename, label, archive — each one transaction that records an operation with
 * what it changed, so undo/redo (edit-history.ts) restore the previous state exactly. Only
 * entries Canopy appended (origin 'canopy') are ever removed; the agents' entries and files are
 * never altered.
 */
import { randomUUID } from "node:crypto";
import type { EditOperation, EditResultDto } from "../../core/api/dto.ts";
import type { LabelEntry, SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import { contentWithText, isUneditedText } from "../../core/session/edit-text.ts";
import { randomEntryId, type UsedIds } from "../../core/session/ids.ts";
import { buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import { ApiFailure, invalidInput, notFound } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import type { Database } from "../store/open.ts";
import { archivedRoots, recordOp, setArchived } from "../store/repos/edits.ts";
import {
  type EntryRow,
  entryIdExists,
  getEntryRowById,
  lastEntryId,
  StoredEntryIds,
} from "../store/repos/entries.ts";
import { listPrunedEntryRows, replaceEntryJson } from "../store/repos/entry-json.ts";
import { getSessionRow, updateSession } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import {
  type AppendOp,
  type ArchiveOp,
  announce,
  type ForkOp,
  insertFork,
  type LeafOp,
  leafState,
  type RenameOp,
  result,
} from "./edit-ops.ts";
import { entryTokens } from "./entry-rows.ts";
import { effectiveViewLeaf, loadSessionEntries, requireSession } from "./load.ts";
import { currentLabel, structuralIndex } from "./structure-index.ts";
import { appendSessionEntries } from "./write.ts";
import { toJson } from "../../core/text/json-deep.ts";

type Loose = Record<string, unknown>;

/** Every entry parsed (fork copies the path); the other edits take the structural index. */
function fullIndex(db: Database, sessionId: string): TreeIndex {
  return buildTreeIndex(loadSessionEntries(db, sessionId));
}

/** Ids, links, types and labels without parsing every entry (structure-index.ts). */
function sessionIndex(db: Database, sessionId: string): TreeIndex {
  return structuralIndex(db, requireSession(db, sessionId).sid);
}

function requireEntry(index: TreeIndex, sessionId: string, entryId: string): SessionEntry {
  const entry = index.byId.get(entryId);
  if (!entry) throw notFound(`Session ${sessionId} has no entry ${entryId}`);
  return entry;
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

/** structuredClone, which recurses: an entry nested thousands of levels deep is copied through its JSON. */
function deepCopy(entry: SessionEntry): SessionEntry {
  try {
    return structuredClone(entry);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return JSON.parse(toJson(entry)) as SessionEntry;
  }
}

function editedCopy(
  entry: SessionEntry,
  id: string,
  parentId: string | null,
  text: string,
  now: Date,
): SessionEntry {
  const copy = deepCopy(entry) as SessionEntry & Loose;
  copy.id = id;
  copy.parentId = parentId;
  copy.timestamp = now.toISOString();
  if (entry.type === "custom_message") {
    copy.content = contentWithText(copy.content, text);
    return copy;
  }
  const message = copy.message as Loose;
  // A system-injected prompt (auto-continue) the user rewrote is the user's own message now.
  if (!isUneditedText(message.content, text)) delete message.synthetic;
  message.content = contentWithText(message.content, text);
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
  kind: EditOperation,
  build: (used: UsedIds) => { entries: SessionEntry[]; leafTo: string | null | undefined },
): EditResultDto {
  const { db } = ctx;
  const entryId = writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    const { entries, leafTo } = build(new StoredEntryIds(db, row.sid));
    // Nothing to append nor to move: no change, and no undo step.
    if (entries.length === 0 && leafTo === undefined) return null;
    const before = leafState(row);
    appendSessionEntries(db, sessionId, entries);
    if (leafTo !== undefined) updateSession(db, sessionId, { view_leaf_id: leafTo, view_leaf_set: 1 });
    const after = leafState(requireSession(db, sessionId));
    recordOp(db, row.sid, kind, { entries, before, after } satisfies AppendOp);
    return entries[0]?.id;
  })();
  if (entryId === null) return result(db, sessionId, null);
  announce(ctx, [sessionId]);
  return result(db, sessionId, kind, entryId === undefined ? {} : { entryId });
}

export function editMessage(
  ctx: AppContext,
  sessionId: string,
  entryId: string,
  text: string,
): EditResultDto {
  return appendOp(ctx, sessionId, "edit-message", (used) => {
    const index = sessionIndex(ctx.db, sessionId);
    requireEntry(index, sessionId, entryId);
    // The index holds stubs: the entry itself is read (the last one with that id, as in byId).
    const entry = JSON.parse(
      (getEntryRowById(ctx.db, requireSession(ctx.db, sessionId).sid, entryId) as EntryRow).json,
    ) as SessionEntry;
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
  return appendOp(ctx, sessionId, "label", (used) => {
    // No tree needed: the target exists, and its label comes from the label entries alone.
    const row = requireSession(ctx.db, sessionId);
    const { sid } = row;
    if (!entryIdExists(ctx.db, sid, targetId)) throw notFound(`Session ${sessionId} has no entry ${targetId}`);
    // The label it already has (or clearing one it does not have): nothing to append.
    if (currentLabel(ctx.db, sid, targetId) === (label ?? "")) return { entries: [], leafTo: undefined };
    const entry: LabelEntry = {
      type: "label",
      id: randomEntryId(used),
      parentId: lastEntryId(ctx.db, sid),
      timestamp: new Date().toISOString(),
      targetId,
    };
    if (label !== null && label !== "") entry.label = label;
    // A view leaf that follows the last entry (no file leaf: a fork) would follow onto the label
    // entry, and the next reply would hang below it: it stays where it is, set (undo unsets it).
    const follows = row.view_leaf_set === 0 && row.file_leaf_id === null;
    return { entries: [entry], leafTo: follows ? effectiveViewLeaf(row) : undefined };
  });
}

// ── undo a compaction / branch summary (view leaf only) ─────────────────────

export function undoSummary(ctx: AppContext, sessionId: string, entryId: string): EditResultDto {
  const { db } = ctx;
  writeTransaction(db, () => {
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

function randomHex16(): string {
  return randomUUID().replaceAll("-", "").slice(0, 16);
}

export function forkSession(ctx: AppContext, sessionId: string, entryId: string): EditResultDto {
  const { db } = ctx;
  const fork = writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    const index = fullIndex(db, sessionId);
    requireEntry(index, sessionId, entryId);
    // The path without its label entries. An entry whose parent was one of them hangs from the
    // nearest entry kept above it: left pointing at the dropped label, it would be an orphan and
    // the fork's context (and an agent loading its export) would lose everything above it.
    // A compaction that kept from a dropped label keeps from the entry after it (the same context).
    const kept: SessionEntry[] = [];
    const keptFrom = new Map<string, string>();
    let dropped: string[] = [];
    for (const entry of index.pathTo(entryId)) {
      if (entry.type === "label") {
        dropped.push(entry.id);
        continue;
      }
      for (const id of dropped) keptFrom.set(id, entry.id);
      dropped = [];
      const above = kept[kept.length - 1]?.id ?? null;
      let copy = entry.parentId === above ? entry : { ...entry, parentId: above };
      const firstKept: unknown = entry.type === "compaction" ? (entry as Loose).firstKeptEntryId : undefined;
      const first = typeof firstKept === "string" ? keptFrom.get(firstKept) : undefined;
      if (first !== undefined) copy = { ...copy, firstKeptEntryId: first } as SessionEntry;
      kept.push(copy);
    }
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
      // The id the agents know (the file's header), not the library's `<id>~<suffix>` of a copy.
      parentSession: row.header_id,
    };
    // Tool outputs pruned in the source are copied with their originals (D9): the fork stores the
    // original, then the notice over it, so `--originals` and restore work on the fork too.
    const originals = new Map(listPrunedEntryRows(db, row.sid).map((r) => [r.id, r.originalJson]));
    const pruned = kept.filter((entry) => originals.has(entry.id));
    const stored = kept.map((entry) => {
      const original = originals.get(entry.id);
      return original === undefined
        ? entry
        : ({ ...JSON.parse(original), parentId: entry.parentId } as SessionEntry);
    });
    insertFork(db, { forkSessionId, dialect: row.dialect, header, entries: [...stored, ...labels] });
    const forkSid = requireSession(db, forkSessionId).sid;
    for (const entry of pruned) replaceEntryJson(db, forkSid, entry.id, toJson(entry), entryTokens(entry));
    // Not the entries: undo and redo delete and restore the new session itself (edit-history.ts).
    recordOp(db, row.sid, "fork", { forkSessionId } satisfies ForkOp);
    return forkSessionId;
  })();
  announce(ctx, [sessionId, fork]);
  return result(db, sessionId, "fork", { forkSessionId: fork });
}

// ── rename (library only; written on export) ────────────────────────────────

export function renameSession(ctx: AppContext, sessionId: string, title: string | null): EditResultDto {
  const { db } = ctx;
  const changed = writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    const after = title === null || title.trim() === "" ? null : title.trim();
    // The same title again: nothing changes, and nothing is left to undo.
    if (after === row.canopy_title) return false;
    updateSession(db, sessionId, { canopy_title: after });
    recordOp(db, row.sid, "rename", { before: row.canopy_title, after } satisfies RenameOp);
    return true;
  })();
  if (!changed) return result(db, sessionId, null);
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
  writeTransaction(db, () => {
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
