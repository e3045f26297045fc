/**
 * Where a compaction cuts the path (SPEC §5.2 with D6 and D18): valid cut points, the turn a cut
 * falls in, and findCutPoint, which keeps the newest `keepRecentTokens` (heuristic units) and
 * decides whether the cut splits a turn. The anchor's false split turns (E3, E7, E8) are
 * available behind an option, for comparison only.
 */
import type { AgentMessage, SessionEntry } from "../session/entries.ts";
import { estimateTokens } from "./tokens.ts";
import type { CutPoint } from "./types.ts";

type Loose = { [key: string]: unknown };

/** Message roles a kept region may start with (§5.2 step 1; `custom` added by D18). */
const CUT_ROLES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "bashExecution",
  "hookMessage",
  "custom",
  "branchSummary",
  "compactionSummary",
]);

/**
 * Message roles that open a turn. The anchor: `user` and `bashExecution`. Canopy also counts
 * `custom`/`hookMessage` message entries, which are the same data as a `custom_message` entry
 * (a turn start in the anchor) stored the v2 way.
 */
const TURN_ROLES: ReadonlySet<string> = new Set(["user", "bashExecution", "custom", "hookMessage"]);

/** The message of a `message` entry, or undefined when the entry is not one or is malformed. */
export function messageOfEntry(entry: SessionEntry | undefined): AgentMessage | undefined {
  if (entry?.type !== "message") return undefined;
  const m = (entry as Loose).message;
  return typeof m === "object" && m !== null && typeof (m as Loose).role === "string"
    ? (m as AgentMessage)
    : undefined;
}

function roleOf(entry: SessionEntry | undefined): string | undefined {
  return messageOfEntry(entry)?.role;
}

/** §5.2 step 1 plus D18: message entries of the cut roles, branch_summary and custom_message. */
export function isValidCutPoint(entry: SessionEntry | undefined): boolean {
  if (entry === undefined) return false;
  if (entry.type === "branch_summary" || entry.type === "custom_message") return true;
  const role = roleOf(entry);
  return role !== undefined && CUT_ROLES.has(role);
}

/** Entries a turn starts with: branch_summary, custom_message, or a turn-role message. */
export function isTurnStart(entry: SessionEntry | undefined): boolean {
  if (entry === undefined) return false;
  if (entry.type === "branch_summary" || entry.type === "custom_message") return true;
  const role = roleOf(entry);
  return role !== undefined && TURN_ROLES.has(role);
}

/** Scanning `index, index-1, …, startIndex`: the first turn start, or -1. */
export function findTurnStartIndex(
  entries: readonly SessionEntry[],
  index: number,
  startIndex: number,
): number {
  for (let i = index; i >= startIndex; i--) if (isTurnStart(entries[i])) return i;
  return -1;
}

function nextCutPoint(entries: readonly SessionEntry[], from: number, endIndex: number): number {
  for (let i = from; i < endIndex; i++) if (isValidCutPoint(entries[i])) return i;
  return -1;
}

/** Entries that stop the metadata pull-back (§5.2 step 5). */
function stopsPullBack(entry: SessionEntry | undefined): boolean {
  return entry === undefined || entry.type === "compaction" || entry.type === "message";
}

export interface FindCutPointOptions {
  /**
   * Reproduce the anchor's split-turn rule: any cut not on a user message searches back for a
   * turn start, so metadata pulled in front of a user message (E3) and cuts on a custom_message,
   * branch_summary or bashExecution (E7, E8) are reported as split turns. Default false (D6).
   */
  anchorSplitTurns?: boolean;
}

/**
 * SPEC §5.2: the first kept entry of `entries[startIndex, endIndex)` so that the kept messages
 * hold at least `keepRecentTokens`, at a valid cut point, with metadata in front of it pulled in.
 * D6: the cut splits a turn only when the kept region does not begin with a turn start (after
 * any pulled-in metadata); then the prefix runs from that turn's start to the cut. So a cut on a
 * user message, a custom_message, a branch_summary or a bashExecution is never a split.
 */
export function findCutPoint(
  entries: readonly SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
  options: FindCutPointOptions = {},
): CutPoint {
  const noSplit = (firstKeptEntryIndex: number): CutPoint => ({
    firstKeptEntryIndex,
    turnStartIndex: -1,
    isSplitTurn: false,
  });
  const firstCut = nextCutPoint(entries, startIndex, endIndex);
  if (firstCut === -1) return noSplit(startIndex);

  let cutIndex = firstCut;
  let accumulated = 0;
  for (let i = endIndex - 1; i >= startIndex; i--) {
    // Only message entries count (custom_message/branch_summary entries are skipped, §5.2 step 4).
    const message = messageOfEntry(entries[i]);
    if (message === undefined) continue;
    accumulated += estimateTokens(message);
    if (accumulated >= keepRecentTokens) {
      const cut = nextCutPoint(entries, i, endIndex);
      if (cut !== -1) cutIndex = cut;
      break;
    }
  }

  while (cutIndex > startIndex && !stopsPullBack(entries[cutIndex - 1])) cutIndex--;

  if (options.anchorSplitTurns) {
    if (roleOf(entries[cutIndex]) === "user") return noSplit(cutIndex);
    const turnStartIndex = findTurnStartIndex(entries, cutIndex, startIndex);
    return { firstKeptEntryIndex: cutIndex, turnStartIndex, isSplitTurn: turnStartIndex !== -1 };
  }

  // The first entry at or after the cut that carries content (the pull-back only crosses
  // metadata, custom_message and branch_summary entries, so this is at most the original cut).
  let head = cutIndex;
  while (head < endIndex && !isValidCutPoint(entries[head]) && messageOfEntry(entries[head]) === undefined) {
    head++;
  }
  if (isTurnStart(entries[head])) return noSplit(cutIndex);
  const turnStartIndex = findTurnStartIndex(entries, cutIndex, startIndex);
  if (turnStartIndex === -1) return noSplit(cutIndex);
  return { firstKeptEntryIndex: cutIndex, turnStartIndex, isSplitTurn: true };
}
