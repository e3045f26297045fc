/**
 * What context:get read and parsed for the path it built last, kept for its next call on the same
 * session while that session is unchanged: arrow moves in the tree ask for neighbouring leaves,
 * whose paths share every entry but one, and reading and parsing the ~29,000 entries of a long
 * path was most of each answer. Kept for one session per library, while nothing at all was
 * written to the library (by this connection or any other), and let go after a minute unused.
 * With them, the last few answers' message sources, so that a caller holding one of those
 * answers is sent only the messages past the start it shares with the new one.
 */
import { randomUUID } from "node:crypto";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import type { EntryLink } from "../store/repos/entries.ts";
import { dataVersion } from "../store/repos/session-changes.ts";
import { stmt } from "../store/statements.ts";

/** Unused this long, what is kept is let go (a long path's entries hold tens of MB). */
export const KEEP_UNUSED_MS = 60_000;
/** Answers kept per library: the page's own, and the ones it was sent but passed over. */
export const KEPT_ANSWERS = 4;

/**
 * An answer's messages by where they came from: the parsed entry of each (undefined: none), and
 * what else they depend on (`shape`: the options and templates they were built with).
 */
export interface AnswerSources {
  shape: string;
  entries: readonly (SessionEntry | undefined)[];
}

interface Kept {
  sid: number;
  /** The library's writes when this was read (writesMark). */
  writes: string;
  links: EntryLink[];
  byPk: Map<number, SessionEntry>;
  answers: (AnswerSources & { id: string })[];
  timer: ReturnType<typeof setTimeout>;
}

const keptBy = new WeakMap<Database, Kept>();
/** Answer ids name this process's answers only: a page that outlives a server never names a stranger's. */
const processTag = randomUUID().slice(0, 8);
let answersMade = 0;

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
      keptBy.set(db, { sid, writes, links, byPk, answers: current?.answers ?? [], timer });
    },
  };
}

/**
 * How many messages at the start of the answer made of `sources` are the same as those of the
 * kept answer `since`: each from the same parsed entry object (only a load with nothing written
 * since hands out the same objects), built the same way (a message is built from its entry
 * alone). 0 when `since` is not kept (let go, another session, another process).
 */
export function sharedAnswerStart(db: Database, sid: number, since: string, sources: AnswerSources): number {
  const kept = keptBy.get(db);
  const base = kept?.sid === sid ? kept.answers.find((answer) => answer.id === since) : undefined;
  if (!base || base.shape !== sources.shape) return 0;
  const end = Math.min(base.entries.length, sources.entries.length);
  let shared = 0;
  while (shared < end && sources.entries[shared] !== undefined && base.entries[shared] === sources.entries[shared])
    shared++;
  return shared;
}

/**
 * Keeps the sources of an answer of session `sid` (the one a load just kept entries for) under
 * a new id, for a later sharedAnswerStart; null when nothing is kept for the session (a
 * session with tree problems is loaded whole, never reused).
 */
export function keepAnswer(db: Database, sid: number, sources: AnswerSources): string | null {
  const kept = keptBy.get(db);
  if (kept?.sid !== sid) return null;
  const id = `${processTag}.${++answersMade}`;
  kept.answers = [...kept.answers.slice(-(KEPT_ANSWERS - 1)), { ...sources, id }];
  return id;
}

/** Lets go of what is kept for `db` (tests; a closed library). */
export function forgetPathReuse(db: Database): void {
  release(db);
}
