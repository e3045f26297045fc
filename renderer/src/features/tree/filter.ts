/**
 * The canvas filters of SPEC §10.4 and the per-kind styling categories of tree nodes. Pure: no
 * React, no DOM, so that the layout tests run in plain Node.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";

/** SPEC §10.4 filters. */
export type TreeFilter = "default" | "no-tools" | "user-only" | "labeled-only" | "all";

export const TREE_FILTERS: readonly { value: TreeFilter; label: string }[] = [
  { value: "default", label: "Default" },
  { value: "no-tools", label: "No tool results" },
  { value: "user-only", label: "User messages" },
  { value: "labeled-only", label: "Labelled" },
  { value: "all", label: "All entries" },
];

/** Entry types the default filter hides (bookkeeping the user rarely needs to see). */
const DEFAULT_HIDDEN_TYPES = new Set(["label", "custom", "model_change", "thinking_level_change"]);

/**
 * An assistant reply without any text block (only tool calls or thinking) is noise in the tree,
 * unless it ended abnormally (error, abort, length): then it is the interesting point.
 */
function isSilentAssistant(node: TreeNodeDto): boolean {
  return (
    node.kind === "assistant" &&
    node.hasText === false &&
    (node.stopReason === "stop" || node.stopReason === "toolUse")
  );
}

/** Whether the filter shows the entry (the caller forces the view leaf and pinned entries in). */
export function passesFilter(node: TreeNodeDto, filter: TreeFilter): boolean {
  if (isSilentAssistant(node)) return false;
  switch (filter) {
    case "all":
      return true;
    case "default":
      return !DEFAULT_HIDDEN_TYPES.has(node.type);
    case "no-tools":
      return !DEFAULT_HIDDEN_TYPES.has(node.type) && node.kind !== "toolResult";
    case "user-only":
      return node.kind === "user";
    case "labeled-only":
      return typeof node.label === "string" && node.label !== "";
  }
}

/** Visual families of entries; each has its own colour on the canvas. */
export type KindCategory =
  | "user"
  | "assistant"
  | "tool"
  | "exec"
  | "compaction"
  | "branch-summary"
  | "custom"
  | "metadata";

export function kindCategory(node: Pick<TreeNodeDto, "kind" | "type">): KindCategory {
  if (node.type === "compaction") return "compaction";
  if (node.type === "branch_summary") return "branch-summary";
  if (node.type === "custom_message") return "custom";
  if (node.type === "message") {
    switch (node.kind) {
      case "user":
        return "user";
      case "assistant":
        return "assistant";
      case "toolResult":
        return "tool";
      case "bashExecution":
      case "pythonExecution":
        return "exec";
      case "compactionSummary":
        return "compaction";
      case "branchSummary":
        return "branch-summary";
      case "custom":
      case "hookMessage":
      case "fileMention":
        return "custom";
      default:
        return "metadata";
    }
  }
  return "metadata";
}

/** A short human name for the entry's kind. */
export function kindLabel(node: Pick<TreeNodeDto, "kind" | "type" | "toolName">): string {
  switch (node.kind) {
    case "user":
      return "User";
    case "assistant":
      return "Assistant";
    case "toolResult":
      return node.toolName ? `Tool · ${node.toolName}` : "Tool result";
    case "bashExecution":
      return "Bash";
    case "pythonExecution":
      return "Python";
    case "compaction":
      return "Compaction";
    case "branch_summary":
      return "Branch summary";
    case "custom_message":
      return "Custom message";
    case "model_change":
      return "Model";
    case "thinking_level_change":
      return "Thinking level";
    default:
      return node.kind.replace(/_/g, " ");
  }
}

/** 1234 → "1.2k", for token badges. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 100_000) return `${(tokens / 1000).toFixed(1)}k`;
  return `${Math.round(tokens / 1000)}k`;
}
