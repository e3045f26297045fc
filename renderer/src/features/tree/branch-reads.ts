/**
 * Whether a branch summary would find anything to read in the entries of the branch left (SPEC
 * §8.2: messages but tool results, custom messages, branch summaries, compactions). Pure.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";

/** True when none of `ids` gives the summary a message (an entry not known counts as one). */
export function summaryReadsNothing(
  ids: readonly string[],
  entryOf: (id: string) => TreeNodeDto | undefined,
): boolean {
  return ids.every((id) => {
    const node = entryOf(id);
    if (node === undefined) return false;
    if (node.type === "message") return node.kind === "toolResult";
    return node.type !== "custom_message" && node.type !== "branch_summary" && node.type !== "compaction";
  });
}
