/**
 * The last way a job's result keeps its place: the leaf it was planned on removed for good by
 * another Canopy meanwhile (an undo whose redo a later edit dropped), stored again from the path
 * the job loaded, as a hidden (archived) branch the result can hang below.
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import { appendSessionEntries } from "../library/write.ts";
import type { Database } from "../store/open.ts";
import { setArchived } from "../store/repos/edits.ts";
import { entryIdExists } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";

/**
 * Stores again the entries of `path` (root → leaf, as the job loaded it) that are gone, from the
 * leaf up to the first one still stored, and archives the topmost; true when done. False when the
 * path does not end at `leafId` (a plan on another leaf) or the gone entries do not chain onto
 * what is stored (the loaded path skipped entries there): nothing is written then.
 */
export function keepLostLeaf(
  db: Database,
  row: SessionRow,
  leafId: string,
  path: readonly SessionEntry[] | undefined,
): boolean {
  if (path === undefined || path.at(-1)?.id !== leafId) return false;
  const gone: SessionEntry[] = [];
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i] as SessionEntry;
    if (entryIdExists(db, row.sid, entry.id)) break;
    const below = gone.at(-1);
    if (below !== undefined && below.parentId !== entry.id) return false;
    gone.push(entry);
  }
  const top = gone.at(-1);
  if (top === undefined) return false;
  if (top.parentId !== null && !entryIdExists(db, row.sid, top.parentId)) return false;
  appendSessionEntries(db, row.id, gone.reverse());
  setArchived(db, row.sid, top.id, true);
  return true;
}
