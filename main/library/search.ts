/**
 * Library-wide message search: keeps the FTS index caught up with imported entries (imports
 * store entries only; tokenizing happens here, in chunks) and turns matches into hits with a
 * snippet cut from the entry's own text. Any user input is safe; a typo never throws.
 */
import type { SearchHit } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import {
  countPendingText,
  insertEntryText,
  pendingTextRows,
  queryWords,
  searchEntryText,
  searchWatermark,
  setSearchWatermark,
} from "../store/repos/search.ts";
import { writeTransaction } from "../store/transactions.ts";
import { searchTextOf } from "./entry-rows.ts";

export interface CatchUpOptions {
  /** Stop after about this many entries (default: all pending). */
  maxRows?: number;
  /** Entries per transaction. */
  chunkRows?: number;
}

export interface CatchUpResult {
  indexed: number;
  remaining: number;
}

/**
 * Indexes the text of entries imported since the last call. The app's import thread calls it
 * after an import (in slices of `maxRows`); `searchMessages` also calls it first. Each slice
 * reads the watermark inside its own write transaction, so two connections catching up at once
 * never index an entry twice.
 */
export function indexPendingSearchText(db: Database, options: CatchUpOptions = {}): CatchUpResult {
  const maxRows = options.maxRows ?? Number.POSITIVE_INFINITY;
  const chunkRows = options.chunkRows ?? 2000;
  let indexed = 0;
  const slice = writeTransaction(db, (limit: number): number => {
    const rows = pendingTextRows(db, searchWatermark(db), limit);
    for (const [pk, json] of rows) {
      const text = searchTextOf(JSON.parse(json) as SessionEntry);
      if (text !== "") insertEntryText(db, pk, text);
    }
    const last = rows.at(-1);
    if (last) setSearchWatermark(db, last[0]);
    return rows.length;
  });
  while (indexed < maxRows) {
    // An immediate transaction: the write lock is taken before the watermark is read (see above).
    const done = slice(Math.min(chunkRows, maxRows - indexed));
    indexed += done;
    if (done === 0) return { indexed, remaining: 0 };
  }
  return { indexed, remaining: countPendingText(db) };
}

export interface SearchMessagesOptions {
  sessionId?: string;
  /** Markers around matched words in the snippet (default "[" and "]"). */
  highlight?: [before: string, after: string];
  /** Index pending entries first (default true) so results cover everything imported. */
  catchUp?: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** ~`width` chars of `text` around the first match, matches wrapped in the markers. */
export function makeSnippet(text: string, words: string[], highlight: [string, string], width = 160): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  if (words.length === 0) return flat.slice(0, width);
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${words.map(escapeRegExp).join("|")})[\\p{L}\\p{N}]*`,
    "giu",
  );
  const first = pattern.exec(flat);
  const center = first ? first.index : 0;
  let start = Math.max(0, center - Math.floor(width / 3));
  let end = Math.min(flat.length, start + width);
  start = Math.max(0, end - width);
  // Do not cut words in half at the edges.
  if (start > 0) start = flat.indexOf(" ", start) + 1 || start;
  if (end < flat.length) end = flat.lastIndexOf(" ", end) > start ? flat.lastIndexOf(" ", end) : end;
  const window = flat.slice(start, end).replace(pattern, (m) => `${highlight[0]}${m}${highlight[1]}`);
  return `${start > 0 ? "…" : ""}${window}${end < flat.length ? "…" : ""}`;
}

export function searchMessages(
  db: Database,
  query: string,
  limit = 50,
  options: SearchMessagesOptions = {},
): SearchHit[] {
  if (options.catchUp !== false) indexPendingSearchText(db);
  const words = queryWords(query).flat();
  const highlight = options.highlight ?? ["[", "]"];
  const rows = searchEntryText(db, query, {
    limit,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  return rows.map((r) => ({
    sessionId: r.session_id,
    entryId: r.entry_id ?? "",
    sessionTitle: r.session_title,
    role: r.role ?? r.type,
    snippet: makeSnippet(searchTextOf(JSON.parse(r.json) as SessionEntry), words, highlight),
  }));
}
