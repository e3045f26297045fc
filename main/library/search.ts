/**
 * Library-wide message search: keeps the FTS index caught up with imported entries (imports
 * store entries only; tokenizing happens here, in chunks) and turns matches into hits with a
 * snippet cut from the entry's own text. Any user input is safe; a typo never throws.
 */
import type { SearchHit, SearchIndexingDto } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { endsWithCjk, hasCjk, NON_CJK_WORD_CHAR, startsWithCjk } from "../../core/text/cjk.ts";
import type { Database } from "../store/open.ts";
import {
  cjkRecheckRange,
  countEntries,
  countPendingText,
  deleteEntryText,
  hasPendingText,
  insertEntryText,
  pendingTextRows,
  queryWords,
  type RecheckRange,
  recheckTextRows,
  searchEntryText,
  searchWatermark,
  setCjkRecheckAfter,
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

/** Entries read per query inside a slice with a time budget: the budget is checked between them. */
const BUDGET_BATCH_ROWS = 32;

export interface SliceOptions {
  /** Stop once the slice has taken this long (checked every BUDGET_BATCH_ROWS entries). */
  budgetMs?: number;
  /** The clock the budget is measured on (default performance.now). */
  now?: () => number;
}

export interface SliceResult {
  indexed: number;
  /** False when the slice found nothing more waiting. */
  more: boolean;
}

/**
 * Indexes the text of up to `maxRows` entries imported since the last call, in one write
 * transaction, stopping early once `budgetMs` is spent. The slice reads the watermark inside
 * its own immediate transaction, so two connections catching up at once never index an entry twice.
 * Entries indexed before CJK characters were words (migration 10) are re-checked first: those
 * with CJK text are indexed again; they count as entries indexed.
 */
export function indexSearchSlice(db: Database, maxRows: number, options: SliceOptions = {}): SliceResult {
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  const now = options.now ?? (() => performance.now());
  return writeTransaction(db, (): SliceResult => {
    const started = now();
    let indexed = 0;
    const watermark = searchWatermark(db);
    let after = watermark;
    const recheck = cjkRecheckRange(db);
    let rechecking = recheck !== null;
    let more = true;
    while (more && indexed < maxRows && (indexed === 0 || now() - started < budget)) {
      const limit = Math.min(Number.isFinite(budget) ? BUDGET_BATCH_ROWS : maxRows, maxRows - indexed);
      if (rechecking && recheck !== null) {
        const done = recheckSearchText(db, recheck, limit);
        indexed += done;
        // Over: on to the entries above the watermark (this slice or the next one).
        if (done < limit) {
          recheck.after = recheck.upto;
          rechecking = false;
        }
        continue;
      }
      const pending = pendingTextRows(db, after, limit);
      for (const [pk, json] of pending) {
        const text = searchTextOf(JSON.parse(json) as SessionEntry);
        if (text !== "") insertEntryText(db, pk, text);
        after = pk;
      }
      indexed += pending.length;
      more = pending.length === limit;
    }
    if (recheck !== null) setCjkRecheckAfter(db, recheck);
    if (after > watermark) setSearchWatermark(db, after);
    return { indexed, more };
  })();
}

/** Indexes again, CJK characters as words, the entries of `range` whose text has any; moves `range.after` on. */
function recheckSearchText(db: Database, range: RecheckRange, limit: number): number {
  const rows = recheckTextRows(db, range, limit);
  const again: [pk: number, text: string][] = [];
  for (const [pk, json] of rows) {
    // Most entries have no CJK character in their JSON (\u escapes aside): not even parsed.
    if (hasCjk(json) || json.includes("\\u")) {
      const text = searchTextOf(JSON.parse(json) as SessionEntry);
      if (hasCjk(text)) again.push([pk, text]);
    }
    range.after = pk;
  }
  // All deletes first: FTS5 writes out what it holds in memory before a delete that follows an
  // insert, so delete, insert, delete, … would write a tiny segment per entry (3–4 times slower).
  for (const [pk] of again) deleteEntryText(db, pk);
  for (const [pk, text] of again) insertEntryText(db, pk, text);
  return rows.length;
}

/**
 * Indexes the text of entries imported since the last call, `chunkRows` per transaction. The
 * app indexes in the background (search-indexer.ts, and the import thread after its imports);
 * `searchMessages` calls it first unless told not to.
 */
export function indexPendingSearchText(db: Database, options: CatchUpOptions = {}): CatchUpResult {
  const maxRows = options.maxRows ?? Number.POSITIVE_INFINITY;
  const chunkRows = options.chunkRows ?? 2000;
  let indexed = 0;
  while (indexed < maxRows) {
    const slice = indexSearchSlice(db, Math.min(chunkRows, maxRows - indexed));
    indexed += slice.indexed;
    if (!slice.more) return { indexed, remaining: 0 };
  }
  return { indexed, remaining: countPendingText(db) };
}

/** How far the index is: entries indexed of all entries; null when none waits to be indexed. */
export function searchIndexProgress(db: Database): SearchIndexingDto | null {
  if (!hasPendingText(db)) return null;
  const total = countEntries(db);
  return { indexed: total - countPendingText(db), total };
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

/**
 * How far past the query word a match runs at most: longer than any snippet, and short enough
 * for V8's regexp backtracking stack (an unbounded run over a 10-million-character word, a hex
 * dump in a tool output, overflowed it and failed the whole search).
 */
const MAX_WORD_TAIL = 1000;

/**
 * The pattern of a query word in text: at the start of a word, and on to its end (the search
 * matches words by their start; at most MAX_WORD_TAIL characters on). CJK characters are words
 * of their own, so a word that begins or ends with one is matched there, inside a run of them,
 * and no further.
 */
function wordPattern(word: string): string {
  const before = startsWithCjk(word) ? "" : `(?<!${NON_CJK_WORD_CHAR})`;
  const rest = endsWithCjk(word) ? "" : `${NON_CJK_WORD_CHAR}{0,${MAX_WORD_TAIL}}`;
  return `${before}${escapeRegExp(word)}${rest}`;
}

/** Where a snippet may be cut without cutting a word: anywhere next to a CJK character. */
function cjkAt(text: string, index: number): boolean {
  return hasCjk(text.slice(Math.max(0, index - 1), index + 1));
}

/** ~`width` chars of `text` around the first match, matches wrapped in the markers. */
export function makeSnippet(text: string, words: string[], highlight: [string, string], width = 160): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  if (words.length === 0) return flat.slice(0, width);
  const pattern = new RegExp(words.map(wordPattern).join("|"), "giu");
  const first = pattern.exec(flat);
  const center = first ? first.index : 0;
  const centerEnd = first ? first.index + first[0].length : 0;
  let start = Math.max(0, center - Math.floor(width / 3));
  let end = Math.min(flat.length, start + width);
  start = Math.max(0, end - width);
  // Do not cut words in half at the edges (CJK text has no spaces: cut it anywhere), nor cut off the match.
  if (start > 0 && !cjkAt(flat, start)) {
    const space = flat.indexOf(" ", start);
    if (space !== -1 && space < center) start = space + 1;
  }
  if (end < flat.length && !cjkAt(flat, end)) {
    const space = flat.lastIndexOf(" ", end);
    if (space > start && space >= centerEnd) end = space;
  }
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
    sessionFirstMessage: r.first_message,
    role: r.role ?? r.type,
    snippet: makeSnippet(searchTextOf(JSON.parse(r.json) as SessionEntry), words, highlight),
  }));
}
