/**
 * What the outcome line says when a compaction or branch summary ends, in the window that
 * started it and in every other window that shows its session.
 */
import type { JobEndedDto } from "../../../core/api/dto-jobs.ts";

export type JobMessage = { kind: "ok" | "error"; text: string };

export function compactionAdded(entryId: string): string {
  return `Compaction ${entryId} added; the LLM view now starts with its summary.`;
}

export const COMPACTION_CANCELLED = "Compaction cancelled; nothing changed.";
export const BRANCH_SUMMARY_CANCELLED = "Branch summarization cancelled; nothing changed.";

/** The line for a job this window heard end (one it did not start: its own call says the rest). */
export function jobEndedMessage(job: JobEndedDto): JobMessage {
  const compaction = job.kind === "compaction";
  if (job.outcome === "cancelled")
    return { kind: "ok", text: compaction ? COMPACTION_CANCELLED : BRANCH_SUMMARY_CANCELLED };
  if (job.outcome === "failed") {
    return {
      kind: "error",
      text: `${compaction ? "Compaction" : "Branch summary"} failed: ${job.errorMessage ?? "unknown error"}`,
    };
  }
  if (compaction)
    return { kind: "ok", text: job.entryId ? compactionAdded(job.entryId) : "Compaction done." };
  return {
    kind: "ok",
    text: job.entryId
      ? `Branch summary ${job.entryId} added; the view leaf moved to it.`
      : "The view leaf moved.",
  };
}
