/**
 * Entry point of the model backends: picks the summarizer for a settings object (D16) — the
 * remote endpoint when configured (main and short summary), else the OpenAI-compatible model,
 * else core's offline summarizer (replaceable by the caller) — and re-exports the llm modules.
 */
import { createOfflineSummarizer } from "../../core/compaction/offline-summarizer.ts";
import type { Summarizer } from "../../core/compaction/types.ts";
import { createOpenAiSummarizer } from "./openai-client.ts";
import { createRemoteSummarizer } from "./remote.ts";

export type { ConnectionTestResult, OpenAiSummarizerConfig } from "./openai-client.ts";
export { createOpenAiSummarizer, describeError, testConnection } from "./openai-client.ts";
export { isContextOverflow, isOverflowError } from "./overflow.ts";
export { createRemoteSummarizer } from "./remote.ts";
export type { Candidate, RetryHooks, RetryPolicy } from "./retry.ts";
export {
  createAbortError,
  isAbortError,
  isRetryableError,
  orderCandidateModels,
  parseRetryAfterHint,
  retryDelay,
  runWithCandidates,
} from "./retry.ts";

/** The model fields the backends need (core/settings' `ModelSettings` satisfies it). */
export interface ModelSettings {
  baseUrl: string;
  id: string;
  contextWindow: number;
  /** Environment variable holding the API key, tried before CANOPY_API_KEY / OPENAI_API_KEY. */
  apiKeyEnv?: string | undefined;
  stream?: boolean | undefined;
  reasoning?: boolean | undefined;
}

/** The part of Canopy's settings the factory reads. */
export interface SummarizerSettings {
  compaction?: { remoteEndpoint?: string | null | undefined } | undefined;
  model?: ModelSettings | null | undefined;
}

export interface SummarizerOptions {
  /** Used when no model is configured; defaults to core's built-in offline summarizer. */
  offline?: Summarizer | (() => Summarizer) | undefined;
  /** An explicit key (e.g. from Electron safeStorage); wins over the environment. */
  apiKey?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Explicit key, then `model.apiKeyEnv`, then CANOPY_API_KEY, then OPENAI_API_KEY; else none. */
export function resolveApiKey(model: ModelSettings, options: Pick<SummarizerOptions, "apiKey" | "env">) {
  const env = options.env ?? process.env;
  return (
    nonEmpty(options.apiKey) ??
    (model.apiKeyEnv ? nonEmpty(env[model.apiKeyEnv]) : undefined) ??
    nonEmpty(env.CANOPY_API_KEY) ??
    nonEmpty(env.OPENAI_API_KEY)
  );
}

/** The configured model, or the offline summarizer. Never remote: turn prefixes use this one. */
export function createModelSummarizer(
  settings: SummarizerSettings,
  options: SummarizerOptions = {},
): Summarizer {
  const model = settings.model;
  if (!model) {
    const offline = options.offline ?? createOfflineSummarizer;
    return typeof offline === "function" ? offline() : offline;
  }
  return createOpenAiSummarizer({
    baseUrl: model.baseUrl,
    apiKey: resolveApiKey(model, options),
    model: model.id,
    contextWindow: model.contextWindow,
    stream: model.stream,
    reasoning: model.reasoning,
    timeoutMs: options.timeoutMs,
  });
}

/** The summarizer for main and short summaries: remote when an endpoint is set (SPEC §6.3). */
export function createSummarizer(settings: SummarizerSettings, options: SummarizerOptions = {}): Summarizer {
  const endpoint = settings.compaction?.remoteEndpoint;
  if (endpoint) return createRemoteSummarizer({ endpoint, timeoutMs: options.timeoutMs });
  return createModelSummarizer(settings, options);
}
