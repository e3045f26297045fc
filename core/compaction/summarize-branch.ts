/**
 * generateBranchSummary (SPEC §8.1 with D13): summarizes an abandoned branch over the
 * Summarizer port. The preamble is followed by a blank line, custom instructions are appended as
 * "Additional focus" (or replace the prompt on request), file tags use the D8 format.
 */
import type { SessionEntry } from "../session/entries.ts";
import type { ContextTemplates } from "../session/llm-messages.ts";
import { prepareBranchEntries } from "./branch.ts";
import { computeFileLists } from "./file-ops.ts";
import { conversationOf, isAbortError, withAdditionalFocus } from "./summarize-calls.ts";
import type { AbortSignalLike, Summarizer, SummaryCutOff, SummaryPrompts, SummaryResponse } from "./types.ts";

export const DEFAULT_BRANCH_RESERVE_TOKENS = 16384;
/** Context window assumed when the summarizer does not know its own (0). */
export const FALLBACK_CONTEXT_WINDOW = 128000;
export const BRANCH_SUMMARY_MAX_TOKENS = 2048;

export interface BranchSummaryOptions {
  summarizer: Summarizer;
  prompts: SummaryPrompts;
  templates: ContextTemplates;
  /** Default 16384. */
  reserveTokens?: number | undefined;
  signal?: AbortSignalLike | undefined;
  customInstructions?: string | undefined;
  /** D13: the custom instructions replace the branch prompt instead of being appended. */
  replacePrompt?: boolean | undefined;
  onText?: ((textSoFar: string) => void) | undefined;
}

export interface BranchSummaryResult {
  summary?: string;
  readFiles: string[];
  modifiedFiles: string[];
  aborted?: boolean;
  error?: string;
  /** The reply stopped at the output limit: the summary keeps what came (as the agents do). */
  cutOff?: SummaryCutOff;
}

/** The token budget of a branch summary's messages (what prepareBranchEntries is given). */
export function branchTokenBudget(summarizer: Pick<Summarizer, "contextWindow">, reserveTokens?: number): number {
  return (summarizer.contextWindow || FALLBACK_CONTEXT_WINDOW) - (reserveTokens ?? DEFAULT_BRANCH_RESERVE_TOKENS);
}

/** Summarizes `entries` (the abandoned path, oldest first). Failures are returned, not thrown. */
export async function generateBranchSummary(
  entries: readonly SessionEntry[],
  opts: BranchSummaryOptions,
): Promise<BranchSummaryResult> {
  const prepared = prepareBranchEntries(entries, branchTokenBudget(opts.summarizer, opts.reserveTokens));
  if (prepared.messages.length === 0) {
    return { summary: "No content to summarize", readFiles: [], modifiedFiles: [] };
  }
  const { readFiles, modifiedFiles } = computeFileLists(prepared.fileOps);
  const lists = { readFiles, modifiedFiles };
  if (opts.signal?.aborted) return { ...lists, aborted: true };

  const custom = opts.customInstructions?.trim() ? opts.customInstructions : undefined;
  const instructions =
    custom !== undefined && opts.replacePrompt
      ? custom
      : withAdditionalFocus(opts.prompts.branchSummary, custom);
  const conversation = conversationOf(prepared.messages, opts.templates);
  let response: SummaryResponse;
  try {
    response = await opts.summarizer.summarize({
      purpose: "branch",
      systemPrompt: opts.prompts.system,
      prompt: conversation.block + instructions,
      maxTokens: BRANCH_SUMMARY_MAX_TOKENS,
      signal: opts.signal,
      messages: conversation.llm,
      customInstructions: custom,
      onText: opts.onText,
    });
  } catch (error) {
    if (opts.signal?.aborted || isAbortError(error)) return { ...lists, aborted: true };
    return { ...lists, error: error instanceof Error ? error.message : String(error) };
  }
  if (response.stopReason === "aborted" || opts.signal?.aborted) return { ...lists, aborted: true };
  if (response.stopReason === "error") {
    return { ...lists, error: response.errorMessage || "Summarization failed" };
  }
  if (response.text.trim() === "") return { ...lists, summary: "No summary generated" };
  const summary = `${opts.prompts.branchPreamble}\n\n${response.text}${opts.prompts.fileOperations(lists)}`;
  if (response.stopReason === "length") {
    return { ...lists, summary, cutOff: { purpose: "branch", maxTokens: BRANCH_SUMMARY_MAX_TOKENS } };
  }
  return { ...lists, summary };
}
