/**
 * What changes in the model's input between two LLM views (two leaves, or the leaf before and
 * after a compaction): messages are matched by the entry they come from, so a message that
 * survives a compaction or a branch switch is "kept" even when its position moves, and a message
 * that disappeared because a new compaction or branch summary replaces it is "summarized" rather
 * than plainly "removed". Pure: the renderer feeds it two ContextViews and the tree's links.
 */
import { toJson } from "../text/json-deep.ts";

export type ContextChange = "added" | "removed" | "kept" | "summarized";

/** One side of the comparison: the parallel arrays of a ContextView. */
export interface ContextSide {
  leafId: string | null;
  messageEntryIds: readonly (string | null)[];
  messageTokens: readonly number[];
  /** When given, a kept message whose content differs (e.g. a pruned tool output) is flagged. */
  messages?: readonly unknown[];
}

/** The entries one summary entry stands for in the model's input. */
export interface SummaryCoverage {
  summaryEntryId: string;
  coveredEntryIds: ReadonlySet<string>;
}

export interface ContextDiffRow {
  change: ContextChange;
  entryId: string | null;
  /** Position in the "before" view (null for added rows). */
  beforeIndex: number | null;
  /** Position in the "after" view (null for removed and summarized rows). */
  afterIndex: number | null;
  tokens: number;
  /** Kept rows only: the message text differs between the two views. */
  contentChanged: boolean;
  /** Summarized rows only: the compaction or branch summary that now stands for the message. */
  summaryEntryId: string | null;
}

export interface ContextDiff {
  beforeLeafId: string | null;
  afterLeafId: string | null;
  rows: ContextDiffRow[];
  counts: Record<ContextChange, number>;
  /** Estimated tokens per change (kept counts the "after" estimate). */
  tokens: Record<ContextChange, number>;
  beforeTokens: number;
  afterTokens: number;
}

/** The minimum the coverage rules need to know about an entry. */
/** Entry id → its link: a Map, or any lookup by id (the page layers an append on its last one). */
export interface EntryLinks {
  get(id: string): EntryLink | undefined;
}

export interface EntryLink {
  parentId: string | null;
  type: string;
  /**
   * branch_summary: the agents' `fromId`, which is the summary's own attachment point (its
   * parent) or "root" — never the abandoned leaf (SPEC §1.5, §13.11); not used for coverage.
   */
  fromId?: string | null;
  /** Creation time (ms), when known: an entry newer than a summary cannot be covered by it. */
  time?: number;
}

export const CONTEXT_CHANGES: readonly ContextChange[] = ["added", "removed", "kept", "summarized"];

function zeroes(): Record<ContextChange, number> {
  return { added: 0, removed: 0, kept: 0, summarized: 0 };
}

/**
 * Keys messages by entry id and occurrence, so an entry that yields several messages matches
 * them in order. Messages without a source entry never match: nothing says they are the same.
 */
function keysOf(ids: readonly (string | null)[]): (string | null)[] {
  const seen = new Map<string, number>();
  return ids.map((id) => {
    if (id === null) return null;
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    return `${n}\u0000${id}`;
  });
}

function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return toJson(a) === toJson(b);
}

export function diffContexts(
  before: ContextSide,
  after: ContextSide,
  coverage: readonly SummaryCoverage[] = [],
): ContextDiff {
  const beforeKeys = keysOf(before.messageEntryIds);
  const afterKeys = keysOf(after.messageEntryIds);
  const beforeIndexOf = new Map<string, number>();
  beforeKeys.forEach((key, i) => {
    if (key !== null) beforeIndexOf.set(key, i);
  });
  const matchOf = afterKeys.map((key) => (key === null ? undefined : beforeIndexOf.get(key)));
  const matchedBefore = new Set(matchOf.filter((i): i is number => i !== undefined));

  // Only a summary that is new in "after" can explain why a message disappeared.
  const addedIds = new Set(
    after.messageEntryIds.filter((id, j): id is string => id !== null && matchOf[j] === undefined),
  );
  const activeCoverage = coverage.filter((c) => addedIds.has(c.summaryEntryId));
  const summaryFor = (entryId: string | null): string | null => {
    if (entryId === null) return null;
    return activeCoverage.find((c) => c.coveredEntryIds.has(entryId))?.summaryEntryId ?? null;
  };

  const beforeSummary = before.messageEntryIds.map(summaryFor);
  const coveredBy = new Map<string, number[]>();
  beforeSummary.forEach((summaryId, i) => {
    if (summaryId === null || matchedBefore.has(i)) return;
    const list = coveredBy.get(summaryId);
    if (list) list.push(i);
    else coveredBy.set(summaryId, [i]);
  });

  const rows: ContextDiffRow[] = [];
  const emitted = new Set<number>();
  const emitBefore = (i: number) => {
    if (matchedBefore.has(i) || emitted.has(i)) return;
    emitted.add(i);
    const entryId = before.messageEntryIds[i] ?? null;
    const summaryEntryId = beforeSummary[i] ?? null;
    rows.push({
      change: summaryEntryId ? "summarized" : "removed",
      entryId,
      beforeIndex: i,
      afterIndex: null,
      tokens: before.messageTokens[i] ?? 0,
      contentChanged: false,
      summaryEntryId,
    });
  };
  let cursor = 0;
  const flushBefore = (limit: number) => {
    for (; cursor < limit; cursor++) emitBefore(cursor);
  };

  after.messageEntryIds.forEach((entryId, j) => {
    const i = matchOf[j];
    const tokens = after.messageTokens[j] ?? 0;
    if (i === undefined) {
      rows.push({
        change: "added",
        entryId,
        beforeIndex: null,
        afterIndex: j,
        tokens,
        contentChanged: false,
        summaryEntryId: null,
      });
      // What a new summary replaces is listed right under it.
      for (const k of entryId === null ? [] : (coveredBy.get(entryId) ?? [])) emitBefore(k);
      return;
    }
    // Messages the "before" view had up to this one, and "after" does not, go right before it.
    if (i >= cursor) {
      flushBefore(i);
      cursor = i + 1;
    }
    const contentChanged =
      before.messages !== undefined &&
      after.messages !== undefined &&
      !sameContent(before.messages[i], after.messages[j]);
    rows.push({
      change: "kept",
      entryId,
      beforeIndex: i,
      afterIndex: j,
      tokens,
      contentChanged,
      summaryEntryId: null,
    });
  });
  flushBefore(before.messageEntryIds.length);

  const counts = zeroes();
  const tokens = zeroes();
  for (const row of rows) {
    counts[row.change] += 1;
    tokens[row.change] += row.tokens;
  }
  const sum = (values: readonly number[]) => values.reduce((total, t) => total + t, 0);
  return {
    beforeLeafId: before.leafId,
    afterLeafId: after.leafId,
    rows,
    counts,
    tokens,
    beforeTokens: sum(before.messageTokens),
    afterTokens: sum(after.messageTokens),
  };
}

/** The entry and its ancestors, root last; stops at a missing parent or a cycle. */
function pathUp(id: string | null | undefined, links: EntryLinks): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let current = id ?? null;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    out.push(current);
    current = links.get(current)?.parentId ?? null;
  }
  return out;
}

/**
 * What a summary entry stands for: a compaction replaces everything before it on its path (the
 * kept part is matched as "kept" before coverage is consulted); a branch summary replaces the
 * abandoned branch. No entry field names that branch (`fromId` is the attachment point, SPEC
 * §13.11), so `abandonedLeafId` — the other side of a comparison — stands in for it: its path
 * below the common ancestor with the summary (SPEC §2.7), minus entries newer than the summary.
 * Other entries summarize nothing (null).
 */
export function summaryCoverage(
  summaryEntryId: string,
  links: EntryLinks,
  abandonedLeafId: string | null = null,
): SummaryCoverage | null {
  const link = links.get(summaryEntryId);
  if (!link) return null;
  if (link.type === "compaction") {
    return { summaryEntryId, coveredEntryIds: new Set(pathUp(link.parentId, links)) };
  }
  if (link.type === "branch_summary") {
    const shared = new Set(pathUp(summaryEntryId, links));
    const createdBefore = (id: string): boolean => {
      const time = links.get(id)?.time;
      return time === undefined || link.time === undefined || time <= link.time;
    };
    const covered = pathUp(abandonedLeafId, links).filter((id) => !shared.has(id) && createdBefore(id));
    return { summaryEntryId, coveredEntryIds: new Set(covered) };
  }
  return null;
}

/** diffContexts with the coverage of every summary entry that is new in "after". */
export function diffContextsWithLinks(
  before: ContextSide,
  after: ContextSide,
  links: EntryLinks,
): ContextDiff {
  const beforeIds = new Set(before.messageEntryIds);
  const coverage = after.messageEntryIds
    .filter((id): id is string => id !== null && !beforeIds.has(id))
    .map((id) => summaryCoverage(id, links, before.leafId))
    .filter((c): c is SummaryCoverage => c !== null);
  return diffContexts(before, after, coverage);
}
