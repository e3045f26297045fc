/**
 * Tool-output pruning policy (SPEC §7.1 with D9): which tool results of a path would be replaced
 * by a `[Output truncated - N tokens]` notice, and what that saves. Pure planning: keeping the
 * originals and writing the pruned messages is the caller's job (D9: pruning never destroys data).
 */
import type { SessionEntry, ToolResultMessage } from "../session/entries.ts";
import { messageOfEntry } from "./cut-point.ts";
import { estimateTokens } from "./tokens.ts";

export interface PruningConfig {
  /** The newest tool outputs up to this many tokens are never pruned. */
  protectTokens: number;
  /** Nothing is pruned unless the candidates together save at least this much. */
  minimumSavings: number;
  /** Outputs of these tools are never pruned. */
  protectedTools: readonly string[];
}

/** D9: `read` is protected as well as `skill` (the seed's rule; the anchor protects only `skill`). */
export const DEFAULT_PRUNING: PruningConfig = {
  protectTokens: 40_000,
  minimumSavings: 20_000,
  protectedTools: ["skill", "read"],
};

export interface PruneCandidate {
  entryId: string;
  /** Estimated tokens of the original output. */
  tokens: number;
}

export interface PruningPlan {
  /** Tool results that would be pruned, path order (oldest first). */
  candidates: PruneCandidate[];
  /** Estimated savings when pruning happens, else 0. */
  tokensSaved: number;
  /** Number of results pruned: the candidates when pruning happens, else 0. */
  prunedCount: number;
  willPrune: boolean;
  /** Estimated savings of the candidates even when below `minimumSavings` (for the UI). */
  candidateSavings: number;
  /** Tool results on the path pruned already (why a path with old outputs may have no candidate). */
  alreadyPruned: number;
}

export function pruneNotice(tokens: number): string {
  return `[Output truncated - ${tokens} tokens]`;
}

/** What the §7.1 rule looks at in one tool result (so a caller may read it without the entry). */
export interface ToolOutput {
  /** The entry's id (an entry without one is never a candidate). */
  entryId: string | undefined;
  /** estimateTokens of the result as it is now (a pruned one: its notice). */
  tokens: number;
  /** `message.toolName`; a reader may leave a pruned result's null (the rule never reads it). */
  toolName: unknown;
  /** `prunedAt` is set (not undefined, not null). */
  pruned: boolean;
}

/** The tool results of a path, newest first, as the rule sees them. */
export function* toolOutputsNewestFirst(pathEntries: readonly SessionEntry[]): Generator<ToolOutput> {
  for (let i = pathEntries.length - 1; i >= 0; i--) {
    const entry = pathEntries[i];
    const message = messageOfEntry(entry);
    if (entry === undefined || message?.role !== "toolResult") continue;
    yield {
      entryId: typeof entry.id === "string" ? entry.id : undefined,
      tokens: estimateTokens(message),
      toolName: message.toolName,
      pruned: message.prunedAt !== undefined && message.prunedAt !== null,
    };
  }
}

/**
 * §7.1: walking tool results newest → oldest with a running total (taken before adding each
 * one), a result is a candidate when it is not already pruned, the total so far has reached
 * `protectTokens` and its tool is not protected. Pruning happens only when the candidates save at
 * least `minimumSavings` (each saves its tokens minus the notice's).
 */
export function planPruning(
  pathEntries: readonly SessionEntry[],
  config: PruningConfig = DEFAULT_PRUNING,
): PruningPlan {
  return planPruningOf(toolOutputsNewestFirst(pathEntries), config);
}

/** planPruning over a path's tool results given newest first (see toolOutputsNewestFirst). */
export function planPruningOf(outputs: Iterable<ToolOutput>, config: PruningConfig = DEFAULT_PRUNING): PruningPlan {
  const protectedTools: ReadonlySet<unknown> = new Set(config.protectedTools);
  const candidates: PruneCandidate[] = [];
  let accumulated = 0;
  let savings = 0;
  let alreadyPruned = 0;
  for (const output of outputs) {
    const { tokens } = output;
    const isProtected = accumulated < config.protectTokens || protectedTools.has(output.toolName);
    accumulated += tokens;
    if (output.pruned) alreadyPruned++;
    // An entry without an id cannot be referred to, so it is never a candidate.
    if (output.pruned || isProtected || output.entryId === undefined) continue;
    candidates.push({ entryId: output.entryId, tokens });
    savings += Math.max(0, tokens - Math.ceil(pruneNotice(tokens).length / 4));
  }
  candidates.reverse();
  const willPrune = candidates.length > 0 && savings >= config.minimumSavings;
  return {
    candidates,
    tokensSaved: willPrune ? savings : 0,
    prunedCount: willPrune ? candidates.length : 0,
    willPrune,
    candidateSavings: savings,
    alreadyPruned,
  };
}

/** The pruned form of a tool result: one text block with the notice, and `prunedAt` (ms). */
export function applyPruningToMessage(
  message: ToolResultMessage,
  tokens: number,
  prunedAt: number,
): ToolResultMessage {
  return { ...message, content: [{ type: "text", text: pruneNotice(tokens) }], prunedAt };
}
