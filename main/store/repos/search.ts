/**
 * Full-text search over message text (FTS5). User queries are turned into quoted tokens so any
 * input is a valid FTS query: punctuation and operators are searched for, never interpreted.
 */
import type { Database } from "better-sqlite3";
import { stmt } from "../statements.ts";

/** Adds the searchable text of one entry; `pk` is the entry row's pk (shared FTS rowid). */
export function indexEntryText(
  db: Database,
  pk: number,
  sessionId: string,
  entryId: string | null,
  role: string | null,
  text: string,
): void {
  stmt(db, "INSERT INTO entry_text (rowid, text, session_id, entry_id, role) VALUES (?, ?, ?, ?, ?)").run(
    pk,
    text,
    sessionId,
    entryId,
    role,
  );
}

/**
 * Turns free text into an FTS5 query: every whitespace-separated token becomes a quoted phrase
 * (inner quotes doubled), all must match; the last token also matches as a prefix so results
 * show while typing. Returns null when nothing searchable is left.
 */
export function toFtsQuery(input: string): string | null {
  const tokens = input
    .split(/\s+/u)
    // Keep only tokens with something the tokenizer indexes; "--" or "*" alone would match nothing.
    .filter((t) => /[\p{L}\p{N}]/u.test(t))
    .slice(0, 32);
  if (tokens.length === 0) return null;
  return tokens.map((t, i) => `"${t.replaceAll('"', '""')}"${i === tokens.length - 1 ? "*" : ""}`).join(" ");
}

export interface SearchRow {
  session_id: string;
  entry_id: string | null;
  role: string | null;
  snippet: string;
  session_title: string | null;
}

export interface SearchOptions {
  limit?: number;
  /** Restrict to one session. */
  sessionId?: string;
  /** Markers around matched words in the snippet. */
  highlight?: [before: string, after: string];
}

/** Best matches first (bm25). Never throws on user input. */
export function searchEntryText(db: Database, query: string, options: SearchOptions = {}): SearchRow[] {
  const fts = toFtsQuery(query);
  if (fts === null) return [];
  const limit = Math.max(1, Math.min(500, Math.floor(options.limit ?? 50)));
  const [before, after] = options.highlight ?? ["[", "]"];
  const sessionFilter = options.sessionId === undefined ? "" : "AND t.session_id = ?";
  const sql = `
    SELECT t.session_id AS session_id, t.entry_id AS entry_id, t.role AS role,
           snippet(entry_text, 0, ?, ?, '…', 16) AS snippet,
           coalesce(s.title, s.display_name, s.compaction_title) AS session_title
    FROM entry_text AS t
    JOIN sessions AS s ON s.id = t.session_id
    WHERE entry_text MATCH ? ${sessionFilter}
    ORDER BY t.rank
    LIMIT ?`;
  const params: unknown[] = [before, after, fts];
  if (options.sessionId !== undefined) params.push(options.sessionId);
  params.push(limit);
  return stmt(db, sql).all(...params) as SearchRow[];
}
