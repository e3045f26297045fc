/**
 * Branch summarization planning (SPEC §2.7, §2.8 step 8, §8.2): the abandoned entries between an
 * old leaf and the common ancestor with a navigation target, the budgeted messages and file
 * operations a branch summary is built from, and where the leaf goes after navigating.
 */
import { compactionToMessage, entryToMessage } from "../session/context.ts";
import type { AgentMessage, CompactionEntry, SessionEntry } from "../session/entries.ts";
import type { TreeIndex } from "../session/tree.ts";
import { addFileOpsFromMessage, createFileOps, seedFileOpsFromDetails } from "./file-ops.ts";
import { entryToCompactionMessage, isFromExtension } from "./prepare.ts";
import { estimateTokens } from "./tokens.ts";
import type { FileOperations } from "./types.ts";

type Loose = { [key: string]: unknown };

export interface BranchCollection {
  /** The abandoned entries, root side first (compactions and branch summaries included). */
  entries: SessionEntry[];
  commonAncestorId: string | null;
}

/**
 * §2.7: the entries on the old leaf's path below the deepest entry it shares with the target's
 * path. Uses the index's repaired paths, so a broken tree cannot make it loop.
 */
export function collectEntriesForBranchSummary(
  index: TreeIndex,
  oldLeafId: string | null,
  targetId: string,
): BranchCollection {
  if (oldLeafId === null) return { entries: [], commonAncestorId: null };
  const oldPath = index.pathTo(oldLeafId);
  const position = new Map<string, number>();
  oldPath.forEach((entry, i) => {
    position.set(entry.id, i);
  });
  const targetPath = index.pathTo(targetId);
  for (let i = targetPath.length - 1; i >= 0; i--) {
    const id = targetPath[i]?.id;
    const at = id === undefined ? undefined : position.get(id);
    if (id !== undefined && at !== undefined) {
      return { entries: oldPath.slice(at + 1), commonAncestorId: id };
    }
  }
  return { entries: oldPath, commonAncestorId: null };
}

/**
 * §8.2 mapping: `message` → its message except tool results; `custom_message` → `custom`;
 * `branch_summary` → `branchSummary` (even empty); `compaction` → `compactionSummary`.
 */
function branchEntryToMessage(entry: SessionEntry): AgentMessage | undefined {
  if (entry.type === "compaction") {
    const summary: unknown = entry.summary;
    return compactionToMessage({
      ...entry,
      summary: typeof summary === "string" ? summary : "",
    } as CompactionEntry);
  }
  if (entry.type === "message") {
    const message = entryToMessage(entry);
    return message?.role === "toolResult" ? undefined : message;
  }
  return entryToCompactionMessage(entry);
}

/**
 * §8.2: whether a branch summary gets a message from `entry` (tool results and bookkeeping
 * entries give none). The rule prepareBranchEntries applies, for callers that only ask.
 */
export function givesBranchMessage(entry: SessionEntry): boolean {
  return branchEntryToMessage(entry) !== undefined;
}

export interface PreparedBranchEntries {
  /** Chronological. */
  messages: AgentMessage[];
  fileOps: FileOperations;
  /** Heuristic tokens of `messages`; may exceed the budget (the summary exception). */
  totalTokens: number;
  /** Index of the entry at which the budget stopped the walk (null: every entry was visited). */
  stoppedAt: number | null;
}

/**
 * §8.2: files recorded by earlier agent-generated branch summaries, then the newest messages that
 * fit `tokenBudget` (≤ 0: no limit). A compaction or branch summary that overflows is still taken
 * while less than 90 % of the budget is used; the walk stops at the first overflow. Tool-call
 * files are taken from every visited message, including the one that overflows.
 */
export function prepareBranchEntries(
  entries: readonly SessionEntry[],
  tokenBudget = 0,
): PreparedBranchEntries {
  const fileOps = createFileOps();
  for (const entry of entries) {
    if (entry.type === "branch_summary" && !isFromExtension(entry))
      seedFileOpsFromDetails(fileOps, entry.details);
  }
  const newestFirst: AgentMessage[] = [];
  let totalTokens = 0;
  let stoppedAt: number | null = null;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    const message = entry === undefined ? undefined : branchEntryToMessage(entry);
    if (entry === undefined || message === undefined) continue;
    addFileOpsFromMessage(fileOps, message);
    const tokens = estimateTokens(message);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      const isSummary = entry.type === "compaction" || entry.type === "branch_summary";
      if (isSummary && totalTokens < 0.9 * tokenBudget) {
        newestFirst.push(message);
        totalTokens += tokens;
      }
      stoppedAt = i;
      break;
    }
    newestFirst.push(message);
    totalTokens += tokens;
  }
  return { messages: newestFirst.reverse(), fileOps, totalTokens, stoppedAt };
}

export interface NavigationLeaf {
  /** The leaf after navigating (null: the next entry is a new root). */
  newLeafId: string | null;
  /** Text to put back in the editor when the target was a user or custom message. */
  editorText?: string;
}

function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content as Loose[]) {
    if (block?.type === "text" && typeof block.text === "string") text += block.text;
  }
  return text;
}

/**
 * §2.8 step 8: navigating to a user message or a custom_message re-edits it (the leaf becomes its
 * parent and its text goes back to the editor); any other target becomes the leaf itself. With
 * an index, the parent is the repaired one (an orphan's or cycle-closer's parent is null).
 */
export function newLeafForNavigation(target: SessionEntry, index?: TreeIndex): NavigationLeaf {
  const parentOf = (): string | null => {
    if (index !== undefined) return index.parentOf(target.id);
    return typeof target.parentId === "string" ? target.parentId : null;
  };
  if (target.type === "custom_message") {
    return { newLeafId: parentOf(), editorText: textOfContent(target.content) };
  }
  const message = target.type === "message" ? entryToMessage(target) : undefined;
  if (message?.role === "user") return { newLeafId: parentOf(), editorText: textOfContent(message.content) };
  return { newLeafId: target.id };
}
