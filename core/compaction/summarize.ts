/**
 * Summary generation (SPEC §6.3–6.6, §8.1 with D7, D8, D13): one import point for the
 * compaction and branch-summary calls over the Summarizer port. The pieces live in
 * summarize-calls.ts, summarize-compaction.ts and summarize-branch.ts.
 */
export {
  type GenerateSummaryOptions,
  generateShortSummary,
  generateSummary,
  generateTurnPrefixSummary,
  isAbortError,
  type ShortSummaryOptions,
  type SummaryCallOptions,
  SummaryAbortError,
  withAdditionalFocus,
} from "./summarize-calls.ts";
export {
  BRANCH_SUMMARY_MAX_TOKENS,
  type BranchSummaryOptions,
  type BranchSummaryResult,
  DEFAULT_BRANCH_RESERVE_TOKENS,
  FALLBACK_CONTEXT_WINDOW,
  generateBranchSummary,
} from "./summarize-branch.ts";
export {
  type CompactOptions,
  compact,
  NO_PRIOR_HISTORY,
  SPLIT_TURN_SEPARATOR,
  stripTrailingFileTags,
} from "./summarize-compaction.ts";
