/**
 * A leaf's path read upwards one entry at a time through the (sid, id) index, for plans that stop
 * near the leaf (a compaction window ends at the path's last compaction): the session's links are
 * listed whole only once the walk goes past BULK_AFTER entries, where one scan is the cheaper way.
 * Same path as loadPathLinks (same leaf, same errors); null for a session with tree problems.
 */
import { notFound } from "../api/errors.ts";
import { getViewLeaf, requireSession } from "../library/load.ts";
import { lastIndexOfId, pathPositions } from "../library/path-walk.ts";
import type { Database } from "../store/open.ts";
import { type EntryLink, entryLinkById, listEntryLinks } from "../store/repos/entries.ts";

/** Index lookups before the walk lists every link of the session instead. */
const BULK_AFTER = 2048;

export class PathUpwards {
  readonly #db: Database;
  readonly #sid: number;
  /** links[u]: the u-th entry up from the leaf (0 is the leaf). */
  readonly #links: EntryLink[] = [];
  #ended: boolean;

  constructor(db: Database, sid: number, leaf: EntryLink | null) {
    this.#db = db;
    this.#sid = sid;
    if (leaf !== null) this.#links.push(leaf);
    this.#ended = leaf === null || leaf[2] === null;
  }

  /** The u-th entry up from the leaf, or undefined above the root. */
  at(u: number): EntryLink | undefined {
    while (this.#links.length <= u && !this.#ended) this.#step();
    return this.#links[u];
  }

  /** Entries from the leaf to the root (walks the whole path). */
  get length(): number {
    while (!this.#ended) this.#step();
    return this.#links.length;
  }

  #step(): void {
    const last = this.#links[this.#links.length - 1] as EntryLink;
    const parent = last[2];
    if (parent === null) {
      this.#ended = true;
      return;
    }
    if (this.#links.length >= BULK_AFTER) {
      this.#listRest(last);
      return;
    }
    const link = entryLinkById(this.#db, this.#sid, parent);
    // No entry with that id: an orphan, which a session without tree problems cannot have.
    if (link === undefined) this.#ended = true;
    else this.#links.push(link);
  }

  /** The rest of the path from the session's whole listing, as loadPathLinks walks it. */
  #listRest(from: EntryLink): void {
    const links = listEntryLinks(this.#db, this.#sid);
    const up = pathPositions(links, lastIndexOfId(links, from[1] as string));
    for (let u = 1; u < up.length; u++) this.#links.push(links[up[u] as number] as EntryLink);
    this.#ended = true;
  }
}

export interface OpenedPath {
  viewLeafId: string | null;
  leafId: string | null;
  /** Empty for the null leaf. */
  up: PathUpwards;
}

/** The leaf's path, to be read upwards (loadPathLinks' leaf, errors and null). */
export function openPathUpwards(db: Database, sessionId: string, leafId?: string | null): OpenedPath | null {
  const viewLeafId = getViewLeaf(db, sessionId);
  const row = requireSession(db, sessionId);
  if (row.problem_count > 0) return null;
  const leaf = leafId === undefined ? viewLeafId : leafId;
  if (leaf === null) return { viewLeafId, leafId: null, up: new PathUpwards(db, row.sid, null) };
  const link = entryLinkById(db, row.sid, leaf);
  if (link === undefined) throw notFound(`Session ${sessionId} has no entry ${leaf}`);
  return { viewLeafId, leafId: leaf, up: new PathUpwards(db, row.sid, link) };
}
