/**
 * compact (SPEC §6.4 with D7, D8): runs the summary calls of a prepared compaction and builds
 * the stored result — history (+ split-turn context), file tags in the documented format, the
 * short summary and `details` with the cumulative file lists.
 */
import type { ContextTemplates } from "../session/llm-messages.ts";
import { computeFileLists } from "./file-ops.ts";
import {
  generateShortSummary,
  generateSummary,
  generateTurnPrefixSummary,
  throwIfAborted,
} from "./summarize-calls.ts";
import type {
  AbortSignalLike,
  CompactionPreparation,
  CompactionResult,
  Summarizer,
  SummaryCutOff,
  SummaryPrompts,
  SummaryPurpose,
} from "./types.ts";

export const NO_PRIOR_HISTORY = "No prior history.";
export const SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n";

export interface CompactOptions {
  summarizer: Summarizer;
  /** Remote-endpoint backend built from `settings.remoteEndpoint`: main and short calls use it. */
  remote?: Summarizer | undefined;
  prompts: SummaryPrompts;
  templates: ContextTemplates;
  signal?: AbortSignalLike | undefined;
  customInstructions?: string | undefined;
  promptOverride?: string | undefined;
  extraContext?: string[] | undefined;
  /** Streaming text of each call; the history and prefix calls run in parallel. */
  onText?: ((textSoFar: string, purpose: SummaryPurpose) => void) | undefined;
}

function closingBlockStart(text: string, tag: string): number {
  if (!text.endsWith(`</${tag}>`)) return -1;
  return text.lastIndexOf(`<${tag}>`);
}

/**
 * A summary without the file tags at its end (either block, in the documented or the anchor's
 * glued format). Text that does not end in tags is returned unchanged.
 */
export function stripTrailingFileTags(summary: string): string {
  let rest = summary.trimEnd();
  let stripped = false;
  for (const tag of ["modified-files", "read-files"]) {
    const start = closingBlockStart(rest, tag);
    if (start < 0) continue;
    rest = rest.slice(0, start).trimEnd();
    stripped = true;
  }
  return stripped ? rest : summary;
}

/** Runs the summarization of a prepared compaction (§6.4). */
export async function compact(
  preparation: CompactionPreparation,
  opts: CompactOptions,
): Promise<CompactionResult> {
  if (!preparation.firstKeptEntryId) {
    throw new Error("First kept entry has no ID - session may need migration");
  }
  throwIfAborted(opts.signal);
  const reserveTokens = preparation.settings.reserveTokens;
  const { readFiles, modifiedFiles } = computeFileLists(preparation.fileOps);
  const fileTags = opts.prompts.fileOperations({ readFiles, modifiedFiles });
  // D8: the cumulative tags are appended once, so a previous summary loses its own trailing
  // tags when new ones follow (its lists were carried into fileOps by the preparation).
  const stored = preparation.previousSummary ?? "";
  const previous = (fileTags === "" ? stored : stripTrailingFileTags(stored)) || undefined;
  const stream = (purpose: SummaryPurpose) =>
    opts.onText === undefined ? undefined : (text: string) => opts.onText?.(text, purpose);
  const cutOffs: SummaryCutOff[] = [];
  const common = { prompts: opts.prompts, templates: opts.templates, reserveTokens, signal: opts.signal, cutOffs };
  const history = (): Promise<string> =>
    generateSummary(preparation.messagesToSummarize, {
      ...common,
      summarizer: opts.summarizer,
      remote: opts.remote,
      previousSummary: previous,
      customInstructions: opts.customInstructions,
      promptOverride: opts.promptOverride,
      extraContext: opts.extraContext,
      onText: stream(previous === undefined ? "history" : "update"),
    });

  let summary: string;
  const hasHistory = preparation.messagesToSummarize.length > 0;
  if (preparation.isSplitTurn && preparation.turnPrefixMessages.length > 0) {
    const [historyText, prefixText] = await Promise.all([
      // D7: with nothing else to summarize, the previous summary is the history part.
      hasHistory ? history() : Promise.resolve(previous ?? NO_PRIOR_HISTORY),
      generateTurnPrefixSummary(preparation.turnPrefixMessages, {
        ...common,
        summarizer: opts.summarizer,
        onText: stream("turn-prefix"),
      }),
    ]);
    summary = historyText + SPLIT_TURN_SEPARATOR + prefixText;
  } else if (hasHistory) {
    summary = await history();
  } else {
    summary = previous ?? NO_PRIOR_HISTORY;
  }

  const shortSummary = await generateShortSummary(preparation.recentMessages, {
    ...common,
    summarizer: opts.summarizer,
    remote: opts.remote,
    historySummary: summary,
    extraContext: opts.extraContext,
    onText: stream("short"),
  });

  return {
    summary: summary + fileTags,
    shortSummary,
    firstKeptEntryId: preparation.firstKeptEntryId,
    tokensBefore: preparation.tokensBefore,
    details: { readFiles, modifiedFiles },
    ...(cutOffs.length > 0 ? { cutOff: cutOffs } : {}),
  };
}
