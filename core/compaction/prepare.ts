/**
 * prepareCompaction (SPEC §5.1 with D5, D10, behaviour 47): the plan of a compaction for a path —
 * window, cut, the messages to summarize / of the turn prefix / kept, the previous summary, file
 * operations and tokensBefore — with no model call. Also the entry → message mapping used inside
 * compaction (§5.4) and the human reason when there is nothing to plan.
 */
import { compactionToMessage, entryToMessage } from "../session/context.ts";
import type {
  AgentMessage,
  BranchSummaryMessage,
  CompactionEntry,
  SessionEntry,
} from "../session/entries.ts";
import { findCutPoint } from "./cut-point.ts";
import { addFileOpsFromMessage, createFileOps, seedFileOpsFromDetails } from "./file-ops.ts";
import {
  calculateContextTokens,
  calculatePromptTokens,
  estimateTokens,
  getLastAssistantUsage,
} from "./tokens.ts";
import type { CompactionPreparation, CompactionSettings } from "./types.ts";

type Loose = { [key: string]: unknown };

export interface PrepareCompactionOptions {
  /** Replaces `settings.keepRecentTokens` (before the adaptation from measured usage). */
  keepRecentTokensOverride?: number;
  /**
   * Already known estimates of the message an entry produces (the library stores one per
   * entry at import); entries it returns undefined for are estimated here.
   */
  tokensOf?: (entry: SessionEntry) => number | undefined;
}

export const ALREADY_COMPACTED = "Already compacted";
export const NOTHING_TO_COMPACT = "Nothing to compact (session too small)";

function toMs(timestamp: unknown): number {
  return typeof timestamp === "string" ? new Date(timestamp).getTime() : Number.NaN;
}

/**
 * §5.4: `message` → its message (all roles, tool results included); `custom_message` → `custom`;
 * `branch_summary` → `branchSummary` even with an empty summary; everything else → nothing.
 */
export function entryToCompactionMessage(entry: SessionEntry): AgentMessage | undefined {
  if (entry.type !== "branch_summary") return entryToMessage(entry);
  const e = entry as Loose;
  const message: BranchSummaryMessage = {
    role: "branchSummary",
    summary: typeof e.summary === "string" ? e.summary : "",
    fromId: typeof e.fromId === "string" ? e.fromId : "",
    timestamp: toMs(e.timestamp),
  };
  return message;
}

/** Produced by a hook or extension (omp `fromExtension`, pi `fromHook`, D1). */
export function isFromExtension(entry: SessionEntry): boolean {
  return entry.fromExtension === true || entry.fromHook === true;
}

function lastCompactionIndex(path: readonly SessionEntry[]): number {
  for (let i = path.length - 1; i >= 0; i--) if (path[i]?.type === "compaction") return i;
  return -1;
}

/**
 * D5: the window starts at the previous compaction's firstKeptEntryId when that entry is on the
 * path before it (the first such entry, as buildSessionContext finds it), else right after it.
 * The window is then exactly what the current LLM view shows besides the previous summary.
 */
export function compactionWindowStart(path: readonly SessionEntry[], prevIndex: number): number {
  if (prevIndex < 0) return 0;
  const firstKept: unknown = path[prevIndex]?.firstKeptEntryId;
  if (typeof firstKept === "string") {
    for (let i = 0; i < prevIndex; i++) if (path[i]?.id === firstKept) return i;
  }
  return prevIndex + 1;
}

interface Slice {
  ids: string[];
  messages: AgentMessage[];
}

/** Messages (§5.4) of `path[from, to)`, read from the window's message cache. */
function collect(
  path: readonly SessionEntry[],
  cache: readonly (AgentMessage | undefined)[],
  windowStart: number,
  from: number,
  to: number,
): Slice {
  const slice: Slice = { ids: [], messages: [] };
  for (let i = from; i < to; i++) {
    const message = cache[i - windowStart];
    if (message === undefined) continue;
    slice.messages.push(message);
    const id = path[i]?.id;
    if (typeof id === "string") slice.ids.push(id);
  }
  return slice;
}

/**
 * The plan of a compaction of `pathEntries` (root → leaf). Undefined for an empty path, a path
 * ending in a compaction, or a first kept entry without an id (unmigrated file).
 */
export function prepareCompaction(
  pathEntries: readonly SessionEntry[],
  settings: CompactionSettings,
  options: PrepareCompactionOptions = {},
): CompactionPreparation | undefined {
  const path = pathEntries;
  const end = path.length;
  if (end === 0 || path[end - 1]?.type === "compaction") return undefined;

  const prevIndex = lastCompactionIndex(path);
  const previous = prevIndex >= 0 ? (path[prevIndex] as CompactionEntry) : undefined;
  const windowStart = compactionWindowStart(path, prevIndex);

  // One pass over the window: its heuristic size is both the current LLM view's estimate
  // (with the previous summary, D10) and the denominator of the budget adaptation (§5.1 step 5).
  // The messages are cached for the partitions below.
  const cache: (AgentMessage | undefined)[] = [];
  let windowEstimate = 0;
  for (let i = windowStart; i < end; i++) {
    const entry = path[i];
    const message = entry === undefined ? undefined : entryToCompactionMessage(entry);
    cache.push(message);
    if (message !== undefined) windowEstimate += options.tokensOf?.(entry as SessionEntry) ?? estimateTokens(message);
  }
  const summaryEstimate =
    previous !== undefined && typeof previous.summary === "string"
      ? estimateTokens(compactionToMessage(previous))
      : 0;
  const tokensBeforeEstimated = summaryEstimate + windowEstimate;

  // A usage from before the compaction in effect measured the context that compaction replaced
  // (SPEC §4.4 quirk; the LLM view calls it stale): it is no figure of this window, neither for
  // tokensBefore (D10) nor for scaling the keep budget (§5.1 step 5), which it would shrink
  // by the compaction's whole ratio. Only replies after that compaction count.
  const lastUsage = getLastAssistantUsage(prevIndex < 0 ? path : path.slice(prevIndex + 1));
  const measured = calculateContextTokens(lastUsage);
  // A usage object of all zeros measures nothing: fall back to the estimate (D10).
  const tokensBeforeMeasured = lastUsage !== undefined && measured > 0 ? measured : null;

  let keep = options.keepRecentTokensOverride ?? settings.keepRecentTokens;
  if (lastUsage !== undefined) {
    const ratio = windowEstimate > 0 ? calculatePromptTokens(lastUsage) / windowEstimate : 0;
    if (Number.isFinite(ratio) && ratio > 1) keep = Math.max(1, Math.floor(keep / ratio));
  }

  const cut = findCutPoint(path, windowStart, end, keep);
  const firstKept = path[cut.firstKeptEntryIndex];
  if (firstKept === undefined || typeof firstKept.id !== "string" || firstKept.id === "") return undefined;

  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const history = collect(path, cache, windowStart, windowStart, historyEnd);
  const prefix = cut.isSplitTurn
    ? collect(path, cache, windowStart, cut.turnStartIndex, cut.firstKeptEntryIndex)
    : undefined;
  const kept = collect(path, cache, windowStart, cut.firstKeptEntryIndex, end);

  const fileOps = createFileOps();
  if (previous !== undefined && !isFromExtension(previous)) seedFileOpsFromDetails(fileOps, previous.details);
  for (const message of history.messages) addFileOpsFromMessage(fileOps, message);
  for (const message of prefix?.messages ?? []) addFileOpsFromMessage(fileOps, message);

  return {
    firstKeptEntryId: firstKept.id,
    firstKeptEntryIndex: cut.firstKeptEntryIndex,
    windowStartIndex: windowStart,
    turnStartIndex: cut.turnStartIndex,
    isSplitTurn: cut.isSplitTurn,
    summarizeEntryIds: history.ids,
    turnPrefixEntryIds: prefix?.ids ?? [],
    keptEntryIds: kept.ids,
    messagesToSummarize: history.messages,
    turnPrefixMessages: prefix?.messages ?? [],
    recentMessages: kept.messages,
    tokensBefore: tokensBeforeMeasured ?? tokensBeforeEstimated,
    tokensBeforeMeasured,
    tokensBeforeEstimated,
    keepRecentTokens: keep,
    previousSummary:
      previous !== undefined && typeof previous.summary === "string" ? previous.summary : undefined,
    previousCompactionId: previous !== undefined && typeof previous.id === "string" ? previous.id : null,
    fileOps,
    settings,
  };
}

/**
 * Behaviour 39: why `prepareCompaction` gives nothing for this path ("Already compacted" when it
 * ends in a compaction, else "Nothing to compact (session too small)"), or undefined when it
 * gives a plan.
 */
export function compactionPlanReason(
  pathEntries: readonly SessionEntry[],
  settings: CompactionSettings,
): string | undefined {
  if (pathEntries.at(-1)?.type === "compaction") return ALREADY_COMPACTED;
  return prepareCompaction(pathEntries, settings) === undefined ? NOTHING_TO_COMPACT : undefined;
}
