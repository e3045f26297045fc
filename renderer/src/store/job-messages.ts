/**
 * What the outcome line says when a job ends — a compaction or branch summary (the line at the
 * top), a chat turn (the composer's line) — in the window that started it and in every other
 * window that shows its session.
 */
import type { ChatTurnResultDto } from "../../../core/api/dto-app.ts";
import type { JobEndedDto } from "../../../core/api/dto-jobs.ts";
import { cutOffLine } from "../../../core/compaction/cut-off-line.ts";
import { failureLine } from "../../../core/compaction/failure-line.ts";
import type { SummaryCutOff } from "../../../core/compaction/types.ts";
import { modelErrorInWords } from "../../../core/llm/error-words.ts";
import { toolsNotRunText } from "../../../core/session/tools-not-run.ts";

/** A branch summary that failed, as it was asked for: the outcome line offers to run it again. */
export type NavigationRetry = {
  sessionId: string;
  targetId: string;
  customInstructions?: string;
  /** The instructions replace the branch-summary prompt (D13). */
  replacePrompt?: boolean;
};

export type JobMessage = { kind: "ok" | "error"; text: string; retry?: NavigationRetry };

export function compactionAdded(entryId: string): string {
  return `Compaction ${entryId} added; the LLM view now starts with its summary.`;
}

/** An outcome line followed by what was cut off at the output limit, if anything was. */
export function withCutOff(text: string, cutOff: readonly SummaryCutOff[] | undefined): string {
  const line = cutOffLine(cutOff);
  return line === "" ? text : `${text} ${line}`;
}

export const COMPACTION_CANCELLED = "Compaction cancelled; nothing changed.";
export const BRANCH_SUMMARY_CANCELLED = "Branch summarization cancelled; nothing changed.";
export const REPLY_CANCELLED = "Reply cancelled; nothing was saved.";

/** What a chat turn did: the reply (or its failure), tools not run, its automatic compaction. */
export function chatTurnMessage(result: ChatTurnResultDto): JobMessage {
  const auto = result.autoCompaction;
  const parts: string[] = [];
  let kind: JobMessage["kind"] = "ok";
  if (result.stopReason === "error" || result.stopReason === "aborted") {
    kind = "error";
    // The stored reply keeps the raw text (status, retry hints); shown, a rate limit is said in words.
    parts.push(`The reply failed: ${result.errorMessage ? modelErrorInWords(result.errorMessage) : result.stopReason}`);
  } else {
    parts.push(`Reply ${result.assistantEntryId} added.`);
  }
  if (result.toolCallsNotRun) parts.push(toolsNotRunText(result.toolCallsNotRun));
  if (auto) {
    if (auto.errorMessage) {
      kind = "error";
      parts.push(modelErrorInWords(auto.errorMessage));
    } else if (auto.aborted) {
      parts.push("The automatic compaction was cancelled; nothing was compacted.");
    } else if (auto.entryId) {
      parts.push(
        auto.reason === "overflow"
          ? `The context overflowed: compaction ${auto.entryId} summarized the history and the turn was retried.`
          : `The context passed the threshold: compaction ${auto.entryId} summarized the history.`,
      );
      const cut = cutOffLine(auto.cutOff);
      if (cut !== "") parts.push(cut);
    }
  }
  if (result.cancelled && !auto?.aborted) parts.push("The rest of the turn was cancelled; what was written stays.");
  return { kind, text: parts.join(" ") };
}

/**
 * Where a move onto a label entry (bookkeeping: one Canopy wrote hangs below the file's last
 * entry, whichever entry it labels) left the view leaf: the entry it labels is not where the LLM
 * view ends. `node.text` is the tree's "<labelled id> = <label>" (core describe).
 */
export function labelMoveLine(node: { id: string; parentId: string | null; text: string; cut?: boolean }): string {
  const split = node.text.indexOf(" = ");
  const labelled = split < 0 ? "?" : node.text.slice(0, split);
  const label = split < 0 ? "" : `${node.text.slice(split + 3)}${node.cut ? "…" : ""}`;
  const what = label === "(cleared)" ? `the label entry clearing ${labelled}'s label` : `the label entry “${label}” of ${labelled}`;
  const where = node.parentId === null ? "at the start of the session: the LLM view is empty" : `below ${node.parentId}: the LLM view ends with ${node.parentId}`;
  return `Moved to ${node.id}, ${what}, ${where}`;
}

/** A chat turn this window heard end (one it did not start: its own call says the rest). */
function chatEndedMessage(job: JobEndedDto): JobMessage {
  if (job.outcome === "cancelled") return { kind: "ok", text: REPLY_CANCELLED };
  if (job.outcome === "failed") return { kind: "error", text: job.errorMessage ?? "The reply failed." };
  if (job.turn) return chatTurnMessage(job.turn);
  return { kind: "ok", text: job.entryId ? `Reply ${job.entryId} added.` : "The turn ended." };
}

/**
 * A branch summary the model failed, or refused because the view leaf moved meanwhile (or the
 * library was busy): asking again can work, from any window showing the session, as asked.
 */
export function branchRetry(job: JobEndedDto): NavigationRetry | undefined {
  const { asked, errorCode } = job;
  if (!asked || (errorCode !== "model_error" && errorCode !== "conflict")) return undefined;
  const instructions = asked.customInstructions?.trim() ? asked.customInstructions : undefined;
  return {
    sessionId: job.sessionId,
    targetId: asked.targetId,
    ...(instructions ? { customInstructions: instructions } : {}),
    ...(instructions && asked.replacePrompt ? { replacePrompt: true } : {}),
  };
}

/** The line for a job this window heard end (one it did not start: its own call says the rest). */
export function jobEndedMessage(job: JobEndedDto): JobMessage {
  if (job.kind === "chat") return chatEndedMessage(job);
  const compaction = job.kind === "compaction";
  if (job.outcome === "cancelled")
    return { kind: "ok", text: compaction ? COMPACTION_CANCELLED : BRANCH_SUMMARY_CANCELLED };
  if (job.outcome === "failed") {
    const text = failureLine(compaction ? "Compaction" : "Branch summary", job.errorMessage ?? "unknown error");
    const retry = compaction ? undefined : branchRetry(job);
    return { kind: "error", text, ...(retry ? { retry } : {}) };
  }
  if (compaction)
    return { kind: "ok", text: withCutOff(job.entryId ? compactionAdded(job.entryId) : "Compaction done.", job.cutOff) };
  return {
    kind: "ok",
    text: withCutOff(
      job.entryId ? `Branch summary ${job.entryId} added; the view leaf moved to it.` : "The view leaf moved.",
      job.cutOff,
    ),
  };
}
