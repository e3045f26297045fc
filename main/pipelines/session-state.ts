/**
 * What a pipeline needs to know about a session at the moment it plans: all entries, the tree
 * index, the leaf it works on (default: the view leaf) and that leaf's path; or, for a chat turn,
 * only the view leaf's context entries (loadViewState), or for a preview only the leaf's path on
 * the structural columns (loadPathLinks), without parsing the whole session.
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import { buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import { notFound } from "../api/errors.ts";
import { loadContextEntries } from "../library/context-path.ts";
import { effectiveViewLeaf, getViewLeaf, loadStoredEntries, requireSession } from "../library/load.ts";
import type { Database } from "../store/open.ts";
import { lastIndexOfId, pathPositions } from "../library/path-walk.ts";
import { type EntryLink, entryIdExists, listEntryLinks } from "../store/repos/entries.ts";

export interface SessionState {
  sessionId: string;
  entries: SessionEntry[];
  /** The library's token estimate of each entry's message (computed at import). */
  tokens: Map<SessionEntry, number>;
  index: TreeIndex;
  viewLeafId: string | null;
  leafId: string | null;
  path: SessionEntry[];
}

/** The session and leaf a pipeline appends its result to (persist.ts re-checks them). */
export type RunTarget = Pick<SessionState, "sessionId" | "leafId" | "viewLeafId"> & {
  /**
   * The leaf's path as the plan loaded it, ending at the leaf (when it did): stored again, hidden,
   * if another Canopy removes the leaf for good before the result is saved (lost-leaf.ts).
   */
  path?: readonly SessionEntry[];
};

export function loadSessionState(db: Database, sessionId: string, leafId?: string | null): SessionState {
  const viewLeafId = getViewLeaf(db, sessionId);
  const stored = loadStoredEntries(db, sessionId);
  const entries = stored.map((row) => row.entry);
  const tokens = new Map(stored.map((row) => [row.entry, row.tokens]));
  const index = buildTreeIndex(entries);
  const leaf = leafId === undefined ? viewLeafId : leafId;
  if (leaf !== null && !index.byId.has(leaf)) throw notFound(`Session ${sessionId} has no entry ${leaf}`);
  const path = leaf === null ? [] : index.pathTo(leaf);
  return { sessionId, entries, tokens, index, viewLeafId, leafId: leaf, path };
}

/** What a chat turn needs at the view leaf, without parsing the whole session. */
export interface ViewState {
  sessionId: string;
  viewLeafId: string | null;
  leafId: string | null;
  /** The entries the view is built from (context-path.ts: the path reduced to what the view needs). */
  entries: SessionEntry[];
  index: TreeIndex;
  /** Those entries root → leaf: every message of the view, and the last reply on the full path. */
  path: SessionEntry[];
}

/** The view leaf's context entries only; like loadSessionState, a view leaf gone is not_found. */
export function loadViewState(db: Database, sessionId: string): ViewState {
  const row = requireSession(db, sessionId);
  const viewLeafId = effectiveViewLeaf(row);
  if (viewLeafId !== null && !entryIdExists(db, row.sid, viewLeafId)) {
    throw notFound(`Session ${sessionId} has no entry ${viewLeafId}`);
  }
  const loaded = loadContextEntries(db, sessionId, viewLeafId);
  const index = loaded.index ?? buildTreeIndex(loaded.entries);
  const path = viewLeafId === null ? [] : index.pathTo(viewLeafId);
  return { sessionId, viewLeafId, leafId: viewLeafId, entries: loaded.entries, index, path };
}

/** A leaf's path on the structural columns, no entry parsed (see loadPathLinks). */
export interface PathLinks {
  sessionId: string;
  viewLeafId: string | null;
  leafId: string | null;
  /** Every entry of the session in seq order: [pk, id, parentId, type, role]. */
  links: EntryLink[];
  /** Positions in `links` of the leaf's path, leaf first, root last (empty for the null leaf). */
  up: number[];
}

/**
 * The path loadSessionState would give (same leaf, same errors), as positions in the session's
 * links. Null for a session with tree problems (D3): core's repairs need the full index.
 */
export function loadPathLinks(db: Database, sessionId: string, leafId?: string | null): PathLinks | null {
  const viewLeafId = getViewLeaf(db, sessionId);
  const row = requireSession(db, sessionId);
  if (row.problem_count > 0) return null;
  const leaf = leafId === undefined ? viewLeafId : leafId;
  const links = listEntryLinks(db, row.sid);
  if (leaf === null) return { sessionId, viewLeafId, leafId: null, links, up: [] };
  const leafIndex = lastIndexOfId(links, leaf);
  if (leafIndex < 0) throw notFound(`Session ${sessionId} has no entry ${leaf}`);
  return { sessionId, viewLeafId, leafId: leaf, links, up: pathPositions(links, leafIndex) };
}
