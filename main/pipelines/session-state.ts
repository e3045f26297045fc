/**
 * What a pipeline needs to know about a session at the moment it plans: all entries, the tree
 * index, the leaf it works on (default: the view leaf) and that leaf's path.
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import { buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import { notFound } from "../api/errors.ts";
import { getViewLeaf, loadStoredEntries } from "../library/load.ts";
import type { Database } from "../store/open.ts";

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
