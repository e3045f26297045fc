/**
 * What the pruning panel and its outcome line say (SPEC §7, D9): the plan in one sentence —
 * how many old tool outputs, which tools, the tokens saved — or plainly why nothing would be
 * pruned, and what a prune or a restore did. Pure: the panel and the store only show these.
 */
import type { PrunePlanDto, PruneResultDto } from "../../../../core/api/dto.ts";
import { DEFAULT_PRUNING } from "../../../../core/compaction/pruning.ts";
import { counted } from "../../../../core/session/describe.ts";

const n = (value: number) => value.toLocaleString("en-US");

/** "3 bash, 1 edit": the candidates by tool, most first (ties in path order), as the plan counts them. */
export function toolsCounted(tools: PrunePlanDto["tools"]): string {
  return tools.map(({ toolName, count }) => `${count} ${toolName}`).join(", ");
}

/** The plan in one sentence: what Prune would do, or why it would do nothing. */
export function planSentence(plan: PrunePlanDto): string {
  const { protectTokens, minimumSavings, protectedTools } = DEFAULT_PRUNING;
  if (plan.candidateCount === 0 && plan.alreadyPruned > 0) {
    const pruned = counted(plan.alreadyPruned, "old tool output");
    return `Nothing more to prune: ${pruned} on this path ${plan.alreadyPruned === 1 ? "is" : "are"} pruned already (Restore pruned outputs puts them back); the newest ${n(protectTokens)} tokens of tool output, and ${protectedTools.join(" and ")} outputs, are kept.`;
  }
  if (plan.candidateCount === 0) {
    return `Nothing to prune: no tool output is old enough (the newest ${n(protectTokens)} tokens of tool output, and ${protectedTools.join(" and ")} outputs, are kept).`;
  }
  const outputs = counted(plan.candidateCount, "old tool output");
  if (!plan.willPrune) {
    return `Nothing to prune: the ${outputs} it could replace would save only ~${n(plan.tokensSaved)} tokens, under the ${n(minimumSavings)}-token minimum.`;
  }
  return `Replaces ${outputs} (${toolsCounted(plan.tools)}) with a one-line notice, saving ~${n(plan.tokensSaved)} tokens (estimated). The originals stay in the library.`;
}

/** The confirm button's label (only offered when the plan will prune). */
export function applyLabel(plan: PrunePlanDto): string {
  return `Prune ${counted(plan.candidateCount, "output")}`;
}

/** The outcome line of a prune. */
export function prunedSentence(result: PruneResultDto): string {
  if (result.prunedCount === 0)
    return "Nothing was pruned: the session changed since the plan was made (the plan shown is the one now).";
  return `Pruned ${counted(result.prunedCount, "tool output")}, ~${n(result.tokensSaved)} tokens saved; the LLM view shows their notices.`;
}

/** The outcome line of a restore. */
export function restoredSentence(result: PruneResultDto): string {
  if (result.prunedCount === 0) return "Nothing to restore: no tool output of this session is pruned.";
  return `Restored ${counted(result.prunedCount, "pruned tool output")}; the LLM view shows them as they were.`;
}
