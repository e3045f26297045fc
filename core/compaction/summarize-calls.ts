/**
 * The three summarization calls of a compaction (SPEC §6.3, §6.5, §6.6) over the Summarizer
 * port: main summary (first or update), turn prefix, short summary. Pure and async: prompts
 * come in as SummaryPrompts, the backend as a Summarizer; cancellation surfaces as AbortError.
 */
import type { AgentMessage, LlmMessage } from "../session/entries.ts";
import { type ContextTemplates, convertToLlm } from "../session/llm-messages.ts";
import { serializeConversation } from "./serialize.ts";
import type {
  AbortSignalLike,
  Summarizer,
  SummaryCutOff,
  SummaryPrompts,
  SummaryRequest,
  SummaryResponse,
} from "./types.ts";

/** Thrown when a summarization is cancelled; `name` is "AbortError" like DOM aborts. */
export class SummaryAbortError extends Error {
  constructor(message = "Summarization aborted") {
    super(message);
    this.name = "AbortError";
  }
}

/** True for any error that means "cancelled" (ours, DOM's, Node's). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

export function throwIfAborted(signal: AbortSignalLike | undefined): void {
  if (signal?.aborted) throw new SummaryAbortError();
}

/** What every call needs. `remote`, when given, replaces `summarizer` where §6 allows it. */
export interface SummaryCallOptions {
  summarizer: Summarizer;
  prompts: SummaryPrompts;
  templates: ContextTemplates;
  reserveTokens: number;
  signal?: AbortSignalLike | undefined;
  onText?: ((textSoFar: string) => void) | undefined;
  /** Receives the calls whose reply stopped at the output limit (their text is kept). */
  cutOffs?: SummaryCutOff[] | undefined;
}

export interface GenerateSummaryOptions extends SummaryCallOptions {
  /** The remote-endpoint backend (§6.3 step 5); the main call goes to it when present. */
  remote?: Summarizer | undefined;
  customInstructions?: string | undefined;
  previousSummary?: string | undefined;
  /** Replaces the first/update instructions entirely (the `session.compacting` hook). */
  promptOverride?: string | undefined;
  extraContext?: string[] | undefined;
}

export interface ShortSummaryOptions extends SummaryCallOptions {
  remote?: Summarizer | undefined;
  /** The history summary of the compaction (before file tags). */
  historySummary?: string | undefined;
  extraContext?: string[] | undefined;
}

/** The converted messages and the `<conversation>` block built from them. */
export function conversationOf(
  messages: readonly AgentMessage[],
  templates: ContextTemplates,
): { llm: LlmMessage[]; block: string } {
  const llm = convertToLlm(messages, templates);
  return { llm, block: `<conversation>\n${serializeConversation(llm)}\n</conversation>\n\n` };
}

function previousSummaryBlock(summary: string | undefined): string {
  return summary ? `<previous-summary>\n${summary}\n</previous-summary>\n\n` : "";
}

function additionalContextBlock(lines: readonly string[] | undefined): string {
  if (lines === undefined || lines.length === 0) return "";
  return `<additional-context>\n${lines.map((line) => `- ${line}`).join("\n")}\n</additional-context>\n\n`;
}

/** Custom instructions as compaction appends them (behaviour 43, D13). */
export function withAdditionalFocus(instructions: string, custom: string | undefined): string {
  return custom ? `${instructions}\n\nAdditional focus: ${custom}` : instructions;
}

/**
 * One request through the port. Cancellation (signal, an "aborted" reply, or an abort thrown by
 * the backend) becomes SummaryAbortError; an "error" reply becomes `<failure>: <message>`.
 * Other errors thrown by a backend (e.g. the remote endpoint's HTTP failure) pass unchanged.
 * A reply cut off at the output limit is kept as it came (as the agents do) and noted in `cutOffs`.
 */
export async function requestSummary(
  summarizer: Summarizer,
  request: SummaryRequest,
  failure: string,
  cutOffs?: SummaryCutOff[],
): Promise<string> {
  throwIfAborted(request.signal);
  let response: SummaryResponse;
  try {
    response = await summarizer.summarize(request);
  } catch (error) {
    if (request.signal?.aborted || isAbortError(error)) throw new SummaryAbortError();
    throw error;
  }
  if (response.stopReason === "aborted" || request.signal?.aborted) throw new SummaryAbortError();
  if (response.stopReason === "error") {
    // The remote endpoint's own texts (SPEC §6.3) reach the user as they are.
    if (summarizer.kind === "remote" && response.errorMessage) throw new Error(response.errorMessage);
    throw new Error(`${failure}: ${response.errorMessage || "Unknown error"}`);
  }
  if (response.stopReason === "length") cutOffs?.push({ purpose: request.purpose, maxTokens: request.maxTokens });
  return response.text;
}

/** §6.3: the main summary (first, or update when `previousSummary` is given). */
export async function generateSummary(
  messages: readonly AgentMessage[],
  opts: GenerateSummaryOptions,
): Promise<string> {
  const previous = opts.previousSummary || undefined;
  const base = previous === undefined ? opts.prompts.firstSummary : opts.prompts.updateSummary;
  const instructions = withAdditionalFocus(opts.promptOverride || base, opts.customInstructions);
  const conversation = conversationOf(messages, opts.templates);
  const prompt =
    conversation.block +
    previousSummaryBlock(previous) +
    additionalContextBlock(opts.extraContext) +
    instructions;
  return requestSummary(
    opts.remote ?? opts.summarizer,
    {
      purpose: previous === undefined ? "history" : "update",
      systemPrompt: opts.prompts.system,
      prompt,
      maxTokens: Math.floor(0.8 * opts.reserveTokens),
      reasoning: "high",
      signal: opts.signal,
      messages: conversation.llm,
      previousSummary: previous,
      customInstructions: opts.customInstructions || undefined,
      onText: opts.onText,
    },
    "Summarization failed",
    opts.cutOffs,
  );
}

/** §6.5: the start of a split turn. Never remote, no previous summary or instructions. */
export async function generateTurnPrefixSummary(
  messages: readonly AgentMessage[],
  opts: SummaryCallOptions,
): Promise<string> {
  const conversation = conversationOf(messages, opts.templates);
  return requestSummary(
    opts.summarizer,
    {
      purpose: "turn-prefix",
      systemPrompt: opts.prompts.system,
      prompt: conversation.block + opts.prompts.turnPrefix,
      maxTokens: Math.floor(0.5 * opts.reserveTokens),
      reasoning: "high",
      signal: opts.signal,
      messages: conversation.llm,
      onText: opts.onText,
    },
    "Turn prefix summarization failed",
    opts.cutOffs,
  );
}

/** §6.6: the UI's short summary over the kept messages (remote when configured, behaviour 45). */
export async function generateShortSummary(
  recentMessages: readonly AgentMessage[],
  opts: ShortSummaryOptions,
): Promise<string> {
  const conversation = conversationOf(recentMessages, opts.templates);
  const history = opts.historySummary || undefined;
  const prompt =
    conversation.block +
    previousSummaryBlock(history) +
    additionalContextBlock(opts.extraContext) +
    opts.prompts.shortSummary;
  return requestSummary(
    opts.remote ?? opts.summarizer,
    {
      purpose: "short",
      systemPrompt: opts.prompts.system,
      prompt,
      maxTokens: Math.min(512, Math.floor(0.2 * opts.reserveTokens)),
      reasoning: "high",
      signal: opts.signal,
      messages: conversation.llm,
      previousSummary: history,
      onText: opts.onText,
    },
    "Short summary failed",
    opts.cutOffs,
  );
}
