/**
 * A library search as the contract answers it. In the app (a background SearchIndexer) it
 * answers at once from what is indexed, indexing first only what little waits, and says how far
 * indexing is. In the CLI (no indexer) it indexes what waits first, with progress events
 * (SEARCH_INDEX_JOB_ID) when that takes a while.
 */
import { SEARCH_INDEX_JOB_ID } from "../../core/api/contract.ts";
import type { SearchResultDto } from "../../core/api/dto.ts";
import type { AppContext } from "../api/types.ts";
import { countPendingParts, countPendingTextUpTo } from "../store/repos/search.ts";
import { indexPendingSearchText, indexSearchSlice, searchIndexProgress, searchMessages } from "./search.ts";

/** The app indexes this many waiting entries before answering (tens of ms); more, it answers at once. */
export const SEARCH_CATCH_UP_ROWS = 1000;
/** From this many waiting entries on, the CLI's catch-up sends progress events. */
export const LONG_CATCH_UP_ROWS = 20_000;
/**
 * The catch-up's progress label: entries imported since the last search, the one-time re-check
 * of those indexed by an earlier version (after an upgrade: migration 10), or both.
 */
export const SEARCH_INDEX_LABELS = {
  fresh: "Indexing for search",
  recheck: "Updating the search index",
  both: "Indexing for search and updating the index",
} as const;
/** Entries per transaction (and per progress event) of the CLI's catch-up. */
const CATCH_UP_CHUNK_ROWS = 2000;

export interface SearchInput {
  query: string;
  limit?: number | undefined;
  highlight?: [string, string] | undefined;
}

export async function searchLibrary(ctx: AppContext, input: SearchInput): Promise<SearchResultDto> {
  const { db, imports, searchIndexer } = ctx;
  // The CLI's runner indexes nothing on its own; an app without an indexer (tests) waits for the thread's.
  if (searchIndexer === null) await imports.searchIndexed();
  // While an import thread writes (or holds the write gate), catching up here would wait for its
  // write lock.
  if (!imports.busy && !imports.indexingSearch && ctx.writes.open) {
    if (searchIndexer === null) catchUp(ctx);
    else if (countPendingTextUpTo(db, SEARCH_CATCH_UP_ROWS + 1) <= SEARCH_CATCH_UP_ROWS)
      indexPendingSearchText(db);
  }
  const hits = searchMessages(db, input.query, input.limit ?? 50, {
    ...(input.highlight ? { highlight: input.highlight } : {}),
    catchUp: false,
  });
  const indexing = searchIndexProgress(db);
  if (indexing !== null) searchIndexer?.kick();
  return { hits, indexing };
}

/** Indexes everything that waits; a long catch-up is told as job:progressed events. */
function catchUp(ctx: AppContext): void {
  const { db, events } = ctx;
  if (countPendingTextUpTo(db, LONG_CATCH_UP_ROWS) < LONG_CATCH_UP_ROWS) {
    indexPendingSearchText(db);
    return;
  }
  const { fresh, recheck } = countPendingParts(db);
  const total = fresh + recheck;
  const label = recheck === 0 ? SEARCH_INDEX_LABELS.fresh : fresh === 0 ? SEARCH_INDEX_LABELS.recheck : SEARCH_INDEX_LABELS.both;
  events.emit("job:progressed", { jobId: SEARCH_INDEX_JOB_ID, label, done: 0, total });
  let done = 0;
  for (let more = true; more; ) {
    const slice = indexSearchSlice(db, CATCH_UP_CHUNK_ROWS);
    done += slice.indexed;
    more = slice.more;
    events.emit("job:progressed", { jobId: SEARCH_INDEX_JOB_ID, label, done: Math.min(done, total), total });
  }
  events.emit("job:progressed", { jobId: SEARCH_INDEX_JOB_ID, label, done, total, ended: true });
}
