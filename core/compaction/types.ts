/**
 * Shared shapes of compaction and branch summarization: settings, the preparation (plan) of a
 * compaction, its result, file operations, the summarizer port that every model backend
 * implements (OpenAI-compatible, remote endpoint, offline), and the prompt texts core needs.
 */
import type { AgentMessage, LlmMessage } from "../session/entries.ts";

/** Minimal abort signal (core has no DOM/Node types; both AbortSignal kinds satisfy it). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** SPEC §10.1 compaction settings. */
export interface CompactionSettings {
  enabled: boolean;
  reserveTokens: number;
  keepRecentTokens: number;
  autoContinue: boolean;
  remoteEndpoint?: string | undefined;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
  autoContinue: true,
};

export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Result of findCutPoint (SPEC §5.2, with D6). Indices into the path. */
export interface CutPoint {
  firstKeptEntryIndex: number;
  /** -1 when not a split turn. */
  turnStartIndex: number;
  isSplitTurn: boolean;
}

/** The plan of a compaction (SPEC §5.1 with D5): everything needed to run it, no model call. */
export interface CompactionPreparation {
  firstKeptEntryId: string;
  /** Index of the first kept entry in the path. */
  firstKeptEntryIndex: number;
  /** Index where the summarization window starts (D5). */
  windowStartIndex: number;
  turnStartIndex: number;
  isSplitTurn: boolean;
  /** Entry ids (path order) whose messages are summarized / are the turn prefix / are kept. */
  summarizeEntryIds: string[];
  turnPrefixEntryIds: string[];
  keptEntryIds: string[];
  messagesToSummarize: AgentMessage[];
  turnPrefixMessages: AgentMessage[];
  recentMessages: AgentMessage[];
  /** D10: measured context tokens of the last assistant usage, else the estimate of the current view. */
  tokensBefore: number;
  tokensBeforeMeasured: number | null;
  tokensBeforeEstimated: number;
  /** Keep budget after adaptation from measured usage (§5.1 step 5). */
  keepRecentTokens: number;
  previousSummary: string | undefined;
  /** Id of the previous compaction on the path, if any. */
  previousCompactionId: string | null;
  fileOps: FileOperations;
  settings: CompactionSettings;
}

/** What a compaction produces (stored on the `compaction` entry). */
export interface CompactionResult {
  summary: string;
  shortSummary?: string | undefined;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  preserveData?: Record<string, unknown> | undefined;
  /** The summary calls whose reply stopped at the output limit (told the user; never stored). */
  cutOff?: SummaryCutOff[] | undefined;
}

/** What a summarization call is for (selects budget and, for the offline summarizer, the shape). */
export type SummaryPurpose = "history" | "update" | "turn-prefix" | "short" | "branch";

/** A summary call whose reply stopped at its output cap (`stopReason: "length"`): kept as it came. */
export interface SummaryCutOff {
  purpose: SummaryPurpose;
  maxTokens: number;
}

/** One request to a summarizer backend. */
export interface SummaryRequest {
  purpose: SummaryPurpose;
  systemPrompt: string;
  /** The full user prompt (conversation block, previous summary, instructions). */
  prompt: string;
  maxTokens: number;
  reasoning?: "high";
  signal?: AbortSignalLike | undefined;
  /** Structured inputs, for summarizers that do not read prompts (the offline one). */
  messages: LlmMessage[];
  previousSummary?: string | undefined;
  customInstructions?: string | undefined;
  /** Streaming backends report the text so far. */
  onText?: ((textSoFar: string) => void) | undefined;
}

export interface SummaryResponse {
  text: string;
  stopReason: "stop" | "length" | "error" | "aborted";
  errorMessage?: string | undefined;
}

/** The port every summarizer backend implements (D16). */
export interface Summarizer {
  readonly kind: "openai" | "remote" | "offline";
  /** Human-readable name for the UI, e.g. "gpt-4o-mini at http://127.0.0.1:11434/v1". */
  readonly label: string;
  /** Context window of the model, used by branch-summary budgets (0 = unknown). */
  readonly contextWindow: number;
  summarize(request: SummaryRequest): Promise<SummaryResponse>;
}

/** The prompt texts core's summary generation needs (loaded on the Node side from prompts/). */
export interface SummaryPrompts {
  system: string;
  firstSummary: string;
  updateSummary: string;
  turnPrefix: string;
  shortSummary: string;
  branchSummary: string;
  /** Two lines introducing a branch summary; D13: followed by a blank line. */
  branchPreamble: string;
  /** Renders the file tags block (D8); "" when both lists are empty. */
  fileOperations(lists: FileLists): string;
}
