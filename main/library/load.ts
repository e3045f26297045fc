/**
 * Read side of the library for the API layer: session summaries (SPEC §10.3 plus Canopy's
 * figures), a session's entries in line order, its detail view, and Canopy's own view leaf
 * (D14), which lives only in the database and defaults to the file's last entry.
 */
import type {
  EditHistoryDto,
  EditOperation,
  MalformedLineDto,
  SessionDetail,
  SessionProblem,
  SessionSummary,
  StoredEntry,
} from "../../core/api/dto.ts";
import type { SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import { StoreError } from "../store/errors.ts";
import type { Database } from "../store/open.ts";
import { archivedRoots, isBelow, nextOpKinds } from "../store/repos/edits.ts";
import {
  entryIdExists,
  forEachEntryNodeSource,
  getEntryRowById,
  listEntryRows,
  listMalformed,
} from "../store/repos/entries.ts";
import { getSessionRow, listSessionRows, type SessionRow, updateSession } from "../store/repos/sessions.ts";
import { fileLineAt, parseLineMarks } from "./file-lines.ts";

export { searchMessages } from "./search.ts";

/** The session's row, deleted or not (undo/redo and restore reach deleted sessions). */
export function requireAnySession(db: Database, sessionId: string): SessionRow {
  const row = getSessionRow(db, sessionId);
  if (!row) throw new StoreError("not_found", `No session ${sessionId} in the library`);
  return row;
}

/** The row of a session in the library; a deleted one is not found (undo brings it back). */
export function requireSession(db: Database, sessionId: string): SessionRow {
  const row = requireAnySession(db, sessionId);
  if (row.deleted_at !== null) {
    throw new StoreError(
      "not_found",
      `Session ${sessionId} was deleted from the library (undo or \`canopy undelete\` brings it back)`,
    );
  }
  return row;
}

/** The leaf Canopy shows: the one the user chose, else the file's last entry (the agent's leaf). */
export function effectiveViewLeaf(row: SessionRow): string | null {
  return row.view_leaf_set === 1 ? row.view_leaf_id : (row.file_leaf_id ?? row.last_leaf_id);
}

export function toSessionSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    title: row.canopy_title ?? row.title ?? row.display_name ?? row.compaction_title,
    firstMessage: row.first_message ?? "(no messages)",
    cwd: row.cwd,
    created: row.created,
    modified: row.modified,
    sourcePath: row.source_path,
    dialect: row.dialect,
    originalVersion: row.original_version,
    entryCount: row.entry_count,
    messageCount: row.message_count,
    compactionCount: row.compaction_count,
    branchSummaryCount: row.branch_summary_count,
    malformedCount: row.malformed_count,
    problemCount: row.problem_count,
    fileSize: row.file_size,
    viewLeafId: effectiveViewLeaf(row),
    fileLeafId: row.file_leaf_id,
    isDemo: row.is_demo === 1,
    ...(row.deleted_at === null ? {} : { deletedAt: row.deleted_at }),
  };
}

/** Every session, most recently modified first (`deleted`: only the deleted ones). */
export function listSessions(db: Database, options: { deleted?: boolean } = {}): SessionSummary[] {
  const deleted = options.deleted === true;
  return listSessionRows(db)
    .filter((row) => (row.deleted_at !== null) === deleted)
    .map(toSessionSummary);
}

/** What undo and redo would do next on a session (its own edit stack). */
export function editHistory(db: Database, sid: number): EditHistoryDto {
  const { undo, redo } = nextOpKinds(db, sid);
  return { undo: undo as EditOperation | null, redo: redo as EditOperation | null };
}

export function getSessionSummary(db: Database, sessionId: string): SessionSummary {
  return toSessionSummary(requireSession(db, sessionId));
}

export function getSessionHeader(db: Database, sessionId: string): SessionHeader {
  return JSON.parse(requireSession(db, sessionId).header_json) as SessionHeader;
}

/** Parsed entries in line order (what buildTreeIndex / buildSessionContext take). */
export function loadSessionEntries(db: Database, sessionId: string): SessionEntry[] {
  const { sid } = requireSession(db, sessionId);
  return listEntryRows(db, sid).map((r) => JSON.parse(r.json) as SessionEntry);
}

/** Entries with their line (seq) and token estimate, in line order. */
export function loadStoredEntries(db: Database, sessionId: string): StoredEntry[] {
  const { sid } = requireSession(db, sessionId);
  return listEntryRows(db, sid).map((r) => ({
    entry: JSON.parse(r.json) as SessionEntry,
    line: r.seq,
    tokens: r.tokens,
  }));
}

/**
 * Entries by id, in the order asked (the last entry with each id, as the tree's byId has it);
 * ids the session does not have are left out. Each is one lookup through the id index; one in
 * an archived branch says so (an open plan tells an archived leaf from one gone: plan-follow.ts).
 */
export function loadEntriesById(db: Database, sessionId: string, ids: readonly string[]): StoredEntry[] {
  const { sid } = requireSession(db, sessionId);
  const roots = [...archivedRoots(db, sid)];
  const out: StoredEntry[] = [];
  for (const id of ids) {
    const row = getEntryRowById(db, sid, id);
    if (!row) continue;
    const archived = roots.length > 0 && isBelow(db, sid, id, roots);
    out.push({
      entry: JSON.parse(row.json) as SessionEntry,
      line: row.seq,
      tokens: row.tokens,
      ...(archived ? { archived: true as const } : {}),
    });
  }
  return out;
}

export function loadMalformedLines(db: Database, sessionId: string): MalformedLineDto[] {
  const { sid, line_marks } = requireSession(db, sessionId);
  // Malformed lines are the file's own: their line in it, where Canopy's rows pushed them on.
  const marks = parseLineMarks(line_marks);
  return listMalformed(db, sid).map((m) => ({ line: fileLineAt(marks, m.seq), raw: m.raw, error: m.error }));
}

/** Labels applied in line order: non-empty sets, absent/empty clears (SPEC §2.1, global). */
function labelsOf(entries: readonly StoredEntry[]): Record<string, string> {
  const labels = new Map<string, string>();
  for (const { entry } of entries) {
    if (entry.type !== "label") continue;
    const target: unknown = entry.targetId;
    const label: unknown = entry.label;
    if (typeof target !== "string") continue;
    if (typeof label === "string" && label !== "") labels.set(target, label);
    else labels.delete(target);
  }
  return Object.fromEntries(labels);
}

/**
 * The whole session (every entry parsed; `canopy show` and `canopy chat` no longer need it).
 * Entries are read without their originals (a pruned tool output's can be megabytes) and
 * without a per-row copy of the row.
 */
export function getSessionDetail(db: Database, sessionId: string): SessionDetail {
  const row = requireSession(db, sessionId);
  const entries: StoredEntry[] = [];
  forEachEntryNodeSource(db, row.sid, (stored) => {
    entries.push({ entry: JSON.parse(stored.json()) as SessionEntry, line: stored.seq, tokens: stored.tokens });
  });
  return {
    summary: toSessionSummary(row),
    header: JSON.parse(row.header_json) as SessionHeader,
    entries,
    malformed: loadMalformedLines(db, sessionId),
    problems: JSON.parse(row.problems_json) as SessionProblem[],
    labels: labelsOf(entries),
    history: editHistory(db, row.sid),
  };
}

export function getViewLeaf(db: Database, sessionId: string): string | null {
  return effectiveViewLeaf(requireSession(db, sessionId));
}

/**
 * Moves Canopy's view leaf. `null` is an explicit empty view (before the first entry). The file's
 * last entry is where the agent resumes: a view leaf put there follows the file again (as one
 * never moved does), so the agent's next lines take it on. Never touches the agent's file.
 */
export function setViewLeaf(db: Database, sessionId: string, leafId: string | null): SessionSummary {
  placeViewLeaf(db, requireSession(db, sessionId), leafId);
  return getSessionSummary(db, sessionId);
}

/** setViewLeaf on a row already read, deleted or not (a job's result saved in a session deleted meanwhile). */
export function placeViewLeaf(db: Database, row: SessionRow, leafId: string | null): void {
  if (leafId !== null && !entryIdExists(db, row.sid, leafId)) {
    throw new StoreError("not_found", `Session ${row.id} has no entry ${leafId}`);
  }
  const follows = leafId !== null && leafId === row.file_leaf_id;
  updateSession(db, row.id, follows ? { view_leaf_id: null, view_leaf_set: 0 } : { view_leaf_id: leafId, view_leaf_set: 1 });
}

export function resetViewLeaf(db: Database, sessionId: string): SessionSummary {
  requireSession(db, sessionId);
  updateSession(db, sessionId, { view_leaf_id: null, view_leaf_set: 0 });
  return getSessionSummary(db, sessionId);
}
