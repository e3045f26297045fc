/**
 * Library-wide message search for the API: FTS5 matches with a snippet, best first. Any user
 * input is safe (tokens are quoted by the store), so a typo never surfaces as an error.
 */
import type { SearchHit } from "../../core/api/dto.ts";
import type { Database } from "../store/open.ts";
import { type SearchOptions, searchEntryText } from "../store/repos/search.ts";

export function searchMessages(
  db: Database,
  query: string,
  limit = 50,
  options: Omit<SearchOptions, "limit"> = {},
): SearchHit[] {
  return searchEntryText(db, query, { ...options, limit }).map((r) => ({
    sessionId: r.session_id,
    entryId: r.entry_id ?? "",
    sessionTitle: r.session_title,
    role: r.role,
    snippet: r.snippet,
  }));
}
