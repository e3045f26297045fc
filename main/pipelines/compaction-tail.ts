/**
 * The part of a leaf's path a compaction plan reads (SPEC §5.1 with D5), without parsing a
 * 100k-entry session: from the window start (the last compaction's first kept entry on the
 * path, else that compaction) to the leaf, found walking up from the leaf through the id index
 * (path-upwards.ts) rather than listing the whole session's links, parsed with the
 * token estimates the library stores. Nothing above the tail is read: a usage from before the
 * compaction in effect measures no part of the window (prepare.ts).
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import { type EntryLink, entryJson, entryJsonAndTokensByPk } from "../store/repos/entries.ts";
import { openPathUpwards } from "./path-upwards.ts";

export interface CompactionTail {
  sessionId: string;
  viewLeafId: string | null;
  leafId: string | null;
  /** The leaf's path from at or before the window start to the leaf (empty for the null leaf). */
  path: SessionEntry[];
  /** The library's token estimate of each entry of `path`. */
  tokens: Map<SessionEntry, number>;
  /** Entries parsed for this load. */
  parsed: number;
}

/**
 * The tail of the path loadSessionState would give for this leaf (same leaf, same errors), or
 * null for a session with tree problems (D3): then plan on the whole session.
 */
export function loadCompactionTail(
  db: Database,
  sessionId: string,
  leafId?: string | null,
): CompactionTail | null {
  const walked = openPathUpwards(db, sessionId, leafId);
  if (walked === null) return null;
  const { up } = walked;

  // The path runs leaf (0) → root: the tail is 0..start, start being the window start or the compaction.
  let compactionAt = -1;
  for (let u = 0, link = up.at(0); link !== undefined; link = up.at(++u)) {
    if (link[3] === "compaction") {
      compactionAt = u;
      break;
    }
  }
  // No compaction on the path: the tail is all of it. A path ending in a compaction plans nothing
  // ("Already compacted"): its last entry (start 0) says so.
  let start = compactionAt < 0 ? up.length - 1 : compactionAt;
  if (compactionAt > 0) {
    const json = entryJson(db, (up.at(compactionAt) as EntryLink)[0]);
    const firstKept =
      json === null ? undefined : (JSON.parse(json) as { firstKeptEntryId?: unknown }).firstKeptEntryId;
    if (typeof firstKept === "string") {
      // Ids are unique in a session without tree problems: the entry, if on the path, is the one.
      for (let u = compactionAt + 1, link = up.at(u); link !== undefined; link = up.at(++u)) {
        if (link[1] === firstKept) {
          start = u;
          break;
        }
      }
    }
  }

  const pks: number[] = [];
  for (let u = start; u >= 0; u--) pks.push((up.at(u) as EntryLink)[0]);
  const tokens = new Map<SessionEntry, number>();
  const path = entryJsonAndTokensByPk(db, pks).map(({ json, tokens: estimate }) => {
    const entry = JSON.parse(json) as SessionEntry;
    tokens.set(entry, estimate);
    return entry;
  });

  return {
    sessionId,
    viewLeafId: walked.viewLeafId,
    leafId: walked.leafId,
    path,
    tokens,
    parsed: path.length,
  };
}
