/**
 * Picks the summarizer backends for a run from the settings (D16): the configured
 * OpenAI-compatible model, else the built-in offline summarizer; plus the remote endpoint
 * (SPEC §6.3) when `compaction.remoteEndpoint` is set. API keys come from the environment
 * variable the model names, so they never reach the renderer.
 */
import { createOfflineSummarizer } from "../../core/compaction/offline-summarizer.ts";
import type { Summarizer } from "../../core/compaction/types.ts";
import type { ModelSettings, Settings } from "../../core/settings/schema.ts";
import { createOpenAiSummarizer } from "../llm/openai-client.ts";
import { createRemoteSummarizer } from "../llm/remote.ts";

export interface SummarizerSet {
  /** The model (or offline) summarizer: turn prefixes always, everything else without remote. */
  model: Summarizer;
  /** The remote endpoint, for the main and short summaries, when configured. */
  remote: Summarizer | undefined;
  /** One line for the UI: which backend would run. */
  describe: string;
}

export function apiKeyFor(model: ModelSettings, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[model.apiKeyEnv];
  return value && value.trim() !== "" ? value.trim() : undefined;
}

export function modelSummarizer(model: ModelSettings | null, env: NodeJS.ProcessEnv = process.env): Summarizer {
  if (!model) return createOfflineSummarizer();
  return createOpenAiSummarizer({
    baseUrl: model.baseUrl,
    apiKey: apiKeyFor(model, env),
    model: model.id,
    contextWindow: model.contextWindow,
    stream: model.stream,
    reasoning: model.reasoning,
  });
}

export function summarizersFor(settings: Settings, env: NodeJS.ProcessEnv = process.env): SummarizerSet {
  const model = modelSummarizer(settings.model, env);
  const endpoint = settings.compaction.remoteEndpoint;
  const remote = endpoint ? createRemoteSummarizer({ endpoint }) : undefined;
  const describe = remote ? `remote: ${endpoint} (turn prefixes: ${model.label})` : model.label;
  return { model, remote, describe };
}
