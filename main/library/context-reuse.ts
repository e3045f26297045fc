/**
 * What context:get read and parsed for the path it built last, kept for its next call on the same
 * session while that session is unchanged: arrow moves in the tree ask for neighbouring leaves,
 * whose paths share every entry but one, and reading and parsing the ~29,000 entries of a long
 * path was most of each answer. Kept for one session per library, while nothing at all was
 * written to the library (by this connection or any other), and let go after a minute unused.
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import type { EntryLink } from "../store/repos/entries.ts";
import { dataVersion } from "../store/repos/session-changes.ts";
import { stmt } from "../store/statements.ts";

/** Unused this long, what is kept is let go (a long path's entries hold tens of MB). */
export const KEEP_UNUSED_MS = 60_000;

interface Kept {
  sid: number;
  /** The library's writes when this was read (writtenSince). */
  writes: string;
  links: EntryLink[];
  byPk: Map<number, SessionEntry>;
  timer: ReturnType<typeof setTimeout>;
}

const keptBy = new WeakMap<Database, Kept>();

/** What a load of one path reuses and hands on (context-path.ts). */
export interface PathReuse {
  /** The session's entry links as kept, else read by `read` (and kept). */
  links(read: () => EntryLink[]): EntryLink[];
  /** The parsed entry of `pk` kept from the last load, if any. */
  entry(pk: number): SessionEntry | undefined;
  /** Keeps exactly these parsed entries (the path just loaded) for the next load. */
  keep(byPk: Map<number, SessionEntry>): void;
}

/**
 * A mark that moves with any write to the library: another connection's commit moves
 * data_version, a row this connection changed moves total_changes(). Not the session's seq in
 * session_changes: pruning rewrites entries without touching the session's row.
 */
function writesMark(db: Database): string {
  const changes = stmt(db, "SELECT total_changes() AS n").get() as { n: number };
  return `${dataVersion(db)}:${changes.n}`;
}

function release(db: Database): void {
  const kept = keptBy.get(db);
  if (kept) clearTimeout(kept.timer);
  keptBy.delete(db);
}

/** The reuse for a load of session `sid`; what was kept for another session or version is let go. */
export function pathReuse(db: Database, sid: number): PathReuse {
  const writes = writesMark(db);
  let kept = keptBy.get(db);
  if (kept && (kept.sid !== sid || kept.writes !== writes)) {
    release(db);
    kept = undefined;
  }
  const current = kept;
  if (current) current.timer.refresh();
  let links: EntryLink[] | undefined = current?.links;
  return {
    links(read) {
      links ??= read();
      return links;
    },
    entry: (pk) => current?.byPk.get(pk),
    keep(byPk) {
      release(db);
      if (!links) return;
      const timer = setTimeout(() => {
        if (keptBy.get(db)?.timer === timer) keptBy.delete(db);
      }, KEEP_UNUSED_MS);
      // What is kept never holds a process (the CLI, a test) open.
      timer.unref?.();
      keptBy.set(db, { sid, writes, links, byPk, timer });
    },
  };
}

/** Lets go of what is kept for `db` (tests; a closed library). */
export function forgetPathReuse(db: Database): void {
  release(db);
}
