/**
 * What `canopy show` prints, read in one pass over a session's rows: each entry's JSON is parsed
 * only while its one-line facts (kind, the start of its text, compaction fields) are taken, and
 * the tree index is built from small stubs that keep just the fields a tree walk reads. A
 * 100,000-entry session is never held parsed at once (session:get holds it all).
 */
import type { SessionProblem, SessionSummary } from "../../core/api/dto.ts";
import { entryKind, entrySnippet } from "../../core/session/describe.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import { addUsage, emptyUsageTotals, messageUsage, type UsageTotals } from "../../core/session/usage-totals.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import type { Database } from "../store/open.ts";
import { archivedRoots } from "../store/repos/edits.ts";
import { forEachEntryNodeSource } from "../store/repos/entries.ts";
import { subtreeIds } from "./edits.ts";
import { requireSession, toSessionSummary } from "./load.ts";
import { sessionFileProblems } from "./session-file-problems.ts";
import { LEAN_NODE_CHARS } from "./tree-nodes.ts";

/** Characters of an entry's text a line of `canopy show` shows (flattened, "…" when cut). */
export const OUTLINE_TEXT_CHARS = 80;

/** What a line shows of its entry besides the tree: its kind and the start of its text. */
export interface OutlineFacts {
  kind: string;
  /** flatten(entryText(entry), OUTLINE_TEXT_CHARS or the textChars asked for); "" for compactions (they show their fields). */
  text: string;
}

export interface SessionOutline {
  summary: SessionSummary;
  /**
   * Built from stubs: `type`, `id`, `parentId`, `timestamp` as the entry has them, plus
   * `targetId`/`label` of labels and `firstKeptEntryId`/`tokensBefore` of compactions.
   */
  index: TreeIndex;
  facts: ReadonlyMap<SessionEntry, OutlineFacts>;
  /** Malformed lines and tree problems, in file order. */
  problems: SessionProblem[];
  /** Tokens and cost the agent recorded, all branches (SPEC §2.1), taken in the same pass. */
  usage: UsageTotals;
  /** Ids of the entries in archived branches (Archive branch, an undone answered edit): hidden in the app. */
  archived: ReadonlySet<string>;
  /** The roots of those branches (the entries Restore branch takes). */
  archivedRoots: ReadonlySet<string>;
}

type Loose = Record<string, unknown>;

const TREE_FIELDS = ["type", "id", "parentId", "timestamp"] as const;
const LABEL_FIELDS = ["targetId", "label"] as const;
const COMPACTION_FIELDS = ["firstKeptEntryId", "tokensBefore"] as const;

/** The fields buildTreeIndex and the show text read, each present only when the entry has it. */
function stubOf(entry: Loose): SessionEntry {
  const stub: Loose = {};
  const copy = (keys: readonly string[]) => {
    for (const key of keys) if (Object.hasOwn(entry, key)) stub[key] = entry[key];
  };
  copy(TREE_FIELDS);
  if (entry.type === "label") copy(LABEL_FIELDS);
  if (entry.type === "compaction") copy(COMPACTION_FIELDS);
  return stub as SessionEntry;
}

/**
 * A message's long strings come cut (parseLean) when its JSON is large: only their beginning is
 * shown, and parseLean keeps far more of it than a line's text needs.
 */
function parseEntry(type: string, json: string): Loose {
  return (type === "message" && json.length > LEAN_NODE_CHARS ? parseLean(json) : JSON.parse(json)) as Loose;
}

/** `textChars`: how much of each entry's text is kept (a wide terminal shows more of it). */
export function loadSessionOutline(
  db: Database,
  sessionId: string,
  textChars = OUTLINE_TEXT_CHARS,
): SessionOutline {
  const row = requireSession(db, sessionId);
  const stubs: SessionEntry[] = [];
  const facts = new Map<SessionEntry, OutlineFacts>();
  const usage = emptyUsageTotals();
  forEachEntryNodeSource(db, row.sid, (stored) => {
    const entry = parseEntry(stored.type, stored.json()) as SessionEntry;
    if (entry.type === "message") addUsage(usage, messageUsage(entry.message));
    const stub = stubOf(entry);
    const compaction = entry.type === "compaction";
    facts.set(stub, {
      kind: entryKind(entry),
      text: compaction ? "" : entrySnippet(entry, textChars),
    });
    stubs.push(stub);
  });
  const index = buildTreeIndex(stubs);
  const roots = archivedRoots(db, row.sid);
  return {
    summary: toSessionSummary(row),
    index,
    facts,
    problems: sessionFileProblems(db, sessionId, row),
    usage,
    archived: roots.size === 0 ? roots : subtreeIds(index, roots),
    archivedRoots: new Set([...roots].filter((id) => index.byId.has(id))),
  };
}
