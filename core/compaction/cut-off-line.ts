/**
 * The sentence a user reads when a compaction or branch summary was saved although a model reply
 * stopped at its output limit (finish_reason "length"): which part, at what limit, and what to do.
 * Shared by the app's outcome line and the CLI's stderr.
 */
import type { SummaryCutOff, SummaryPurpose } from "./types.ts";

const PART: Record<SummaryPurpose, string> = {
  history: "history summary",
  update: "history summary",
  "turn-prefix": "turn-prefix summary",
  short: "short summary",
  branch: "branch summary",
};

/** E.g. "The history summary was cut off at the output limit (13107 tokens) and saved as it came; …". */
export function cutOffLine(cutOff: readonly SummaryCutOff[] | undefined): string {
  if (cutOff === undefined || cutOff.length === 0) return "";
  const parts = cutOff.map((c) => `the ${PART[c.purpose]}`);
  const limits = cutOff.map((c) => `${c.maxTokens} tokens`);
  const what = parts.join(" and ");
  const subject = what.charAt(0).toUpperCase() + what.slice(1);
  const verb = cutOff.length > 1 ? "were" : "was";
  const branch = cutOff.every((c) => c.purpose === "branch");
  const retry = branch
    ? "undo and summarize again with instructions asking for a shorter summary"
    : "undo and compact again with instructions asking for a shorter summary, or a larger compaction.reserveTokens";
  return `${subject} ${verb} cut off at the output limit (${limits.join(", ")}) and saved as it came; to get it whole, ${retry}.`;
}
