/**
 * Session rows: identity, the source file's import state (size, hashes, byte offset for
 * append-only re-import), Canopy's view leaf (D14) and cached list figures.
 */
import type { Database } from "better-sqlite3";
import { nowIso, stmt } from "../statements.ts";

export interface SessionRow {
  /** Internal integer key used by entries and malformed lines. */
  sid: number;
  /** Canopy's session id: the header id, or a derived one for a second file with that id. */
  id: string;
  header_id: string;
  source_path: string | null;
  dialect: "pi" | "omp";
  original_version: number;
  header_json: string;
  header_line: number;
  cwd: string;
  title: string | null;
  created: string;
  modified: string;
  file_size: number;
  file_mtime_ms: number | null;
  file_hash: string | null;
  /** Bytes of the file imported so far: always ends right after a `\n`. */
  imported_bytes: number;
  /** sha256 (hex) of the first `imported_bytes` bytes. */
  imported_hash: string | null;
  /** Physical lines inside `imported_bytes`. */
  imported_lines: number;
  /** Seq of an unterminated last line stored provisionally; re-read on the next import. */
  provisional_seq: number | null;
  /** seq = physical line + line_shift for lines read from the tail of the file. */
  line_shift: number;
  /**
   * JSON [fromSeq, shift] pairs, by fromSeq (migration 8): the file's rows from fromSeq on are at
   * seq = line in the file + shift (main/library/file-lines.ts); none: seq = line.
   */
  line_marks: string;
  view_leaf_id: string | null;
  view_leaf_set: 0 | 1;
  is_demo: 0 | 1;
  entry_count: number;
  message_count: number;
  compaction_count: number;
  branch_summary_count: number;
  malformed_count: number;
  problem_count: number;
  problems_json: string;
  first_message: string | null;
  display_name: string | null;
  compaction_title: string | null;
  file_leaf_id: string | null;
  last_leaf_id: string | null;
  /** The user's rename (migration 2): shown in the library, written only on export. */
  canopy_title: string | null;
  /** When the session was deleted from the library (migration 3); null while it is listed. */
  deleted_at: string | null;
  imported_at: string;
  updated_at: string;
}

/** A session's line_marks (JSON), by sid. */
export function sessionLineMarks(db: Database, sid: number): string {
  return (stmt(db, "SELECT line_marks FROM sessions WHERE sid = ?").pluck().get(sid) as string | undefined) ?? "[]";
}

/** Columns a caller may set; `id`, `imported_at` and `updated_at` are managed here. */
export type SessionPatch = Partial<Omit<SessionRow, "sid" | "id" | "imported_at" | "updated_at">>;
export type NewSession = Pick<
  SessionRow,
  "id" | "header_id" | "dialect" | "original_version" | "header_json" | "cwd" | "created" | "modified"
> &
  SessionPatch;

const PATCHABLE = new Set<string>([
  "header_id",
  "source_path",
  "dialect",
  "original_version",
  "header_json",
  "header_line",
  "cwd",
  "title",
  "created",
  "modified",
  "file_size",
  "file_mtime_ms",
  "file_hash",
  "imported_bytes",
  "imported_hash",
  "imported_lines",
  "provisional_seq",
  "line_shift",
  "line_marks",
  "view_leaf_id",
  "view_leaf_set",
  "is_demo",
  "entry_count",
  "message_count",
  "compaction_count",
  "branch_summary_count",
  "malformed_count",
  "problem_count",
  "problems_json",
  "first_message",
  "display_name",
  "compaction_title",
  "file_leaf_id",
  "last_leaf_id",
  "canopy_title",
  "deleted_at",
]);

function checkedColumns(patch: SessionPatch): string[] {
  const columns = Object.keys(patch).filter((k) => patch[k as keyof SessionPatch] !== undefined);
  for (const column of columns) {
    // Column names are interpolated into SQL, so only known names may pass.
    if (!PATCHABLE.has(column)) throw new Error(`unknown session column: ${column}`);
  }
  return columns;
}

/** Inserts a session row and returns its internal key (`sid`). */
export function insertSession(db: Database, row: NewSession): number {
  const { id, ...rest } = row;
  const columns = checkedColumns(rest);
  const now = nowIso();
  const names = ["id", ...columns, "imported_at", "updated_at"];
  const values = [id, ...columns.map((c) => rest[c as keyof SessionPatch]), now, now];
  // Column sets repeat (same callers), so the cached statement is reused across imports.
  const result = stmt(
    db,
    `INSERT INTO sessions (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
  ).run(...values);
  return Number(result.lastInsertRowid);
}

export function updateSession(db: Database, id: string, patch: SessionPatch): void {
  const columns = checkedColumns(patch);
  const sets = [...columns.map((c) => `${c} = ?`), "updated_at = ?"];
  const values = [...columns.map((c) => patch[c as keyof SessionPatch]), nowIso(), id];
  stmt(db, `UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`).run(...values);
}

export function getSessionRow(db: Database, id: string): SessionRow | undefined {
  return stmt(db, "SELECT * FROM sessions WHERE id = ?").get(id) as SessionRow | undefined;
}

export function sessionExists(db: Database, id: string): boolean {
  return stmt(db, "SELECT 1 FROM sessions WHERE id = ?").get(id) !== undefined;
}

/**
 * Rows in import order. Sorted here, not by SQLite: an ORDER BY on these wide rows takes a temp
 * B-tree even for no row, which made each lookup (two per imported file) ~7x slower.
 */
function inImportOrder(rows: SessionRow[]): SessionRow[] {
  return rows.length < 2
    ? rows
    : rows.sort((a, b) => (a.imported_at < b.imported_at ? -1 : a.imported_at > b.imported_at ? 1 : 0));
}

/** The sessions imported from the file at `sourcePath`, oldest import first. */
export function findSessionsByPath(db: Database, sourcePath: string): SessionRow[] {
  return inImportOrder(
    stmt(db, "SELECT * FROM sessions WHERE source_path = ?").all(sourcePath) as SessionRow[],
  );
}

/** The sessions whose header id is `headerId`, oldest import first. */
export function findSessionsByHeaderId(db: Database, headerId: string): SessionRow[] {
  return inImportOrder(stmt(db, "SELECT * FROM sessions WHERE header_id = ?").all(headerId) as SessionRow[]);
}

/** All sessions, most recently modified first (SPEC §10.3). */
export function listSessionRows(db: Database): SessionRow[] {
  return stmt(db, "SELECT * FROM sessions ORDER BY modified DESC, id").all() as SessionRow[];
}

/** Deletes the session with its entries, malformed lines and search text (cascade + trigger). */
export function deleteSession(db: Database, id: string): boolean {
  return stmt(db, "DELETE FROM sessions WHERE id = ?").run(id).changes > 0;
}
