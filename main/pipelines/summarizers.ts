/**
 * Picks the summarizer backends for a run from the settings (D16): the configured
 * OpenAI-compatible model, else the built-in offline summarizer; plus the remote endpoint
 * (SPEC §6.3) when `compaction.remoteEndpoint` is set. API keys come from the SecretStore
 * (stored encrypted by the desktop app, else the model's environment variable), never the page.
 */
import { createOfflineSummarizer } from "../../core/compaction/offline-summarizer.ts";
import type { Summarizer } from "../../core/compaction/types.ts";
import type { ModelSettings, Settings } from "../../core/settings/schema.ts";
import { createOpenAiSummarizer } from "../llm/openai-client.ts";
import { createRemoteSummarizer } from "../llm/remote.ts";
import { createEnvSecretStore, type SecretStore } from "../secrets.ts";

export interface SummarizerSet {
  /** The model (or offline) summarizer: turn prefixes always, everything else without remote. */
  model: Summarizer;
  /** The remote endpoint, for the main and short summaries, when configured. */
  remote: Summarizer | undefined;
  /** One line for the UI: which backend would run. */
  describe: string;
}

/** The model's API key: from the store under the model's `apiKeyEnv` name (undefined: none). */
export function apiKeyFor(model: ModelSettings, secrets: SecretStore = createEnvSecretStore()): string | undefined {
  return secrets.get(model.apiKeyEnv);
}

/** The model's key as a client is given it: the key, and where it is looked up (for a refused key's error). */
export function keyConfigFor(
  model: ModelSettings,
  secrets: SecretStore = createEnvSecretStore(),
): { apiKey: string | undefined; keyName: string; keyStore: SecretStore["kind"] } {
  return { apiKey: apiKeyFor(model, secrets), keyName: model.apiKeyEnv, keyStore: secrets.kind };
}

/** The model's inactivity timeout (ms); undefined: the default (idle-timeout.ts). */
export function timeoutMsOf(model: ModelSettings): number | undefined {
  return model.timeoutSeconds === undefined ? undefined : model.timeoutSeconds * 1000;
}

export function modelSummarizer(model: ModelSettings | null, secrets?: SecretStore): Summarizer {
  if (!model) return createOfflineSummarizer();
  return createOpenAiSummarizer({
    baseUrl: model.baseUrl,
    ...keyConfigFor(model, secrets),
    model: model.id,
    contextWindow: model.contextWindow,
    stream: model.stream,
    reasoning: model.reasoning,
    timeoutMs: timeoutMsOf(model),
  });
}

export function summarizersFor(settings: Settings, secrets?: SecretStore): SummarizerSet {
  const model = modelSummarizer(settings.model, secrets);
  const endpoint = settings.compaction.remoteEndpoint;
  const timeoutMs = settings.compaction.remoteTimeoutSeconds * 1000;
  const remote = endpoint ? createRemoteSummarizer({ endpoint, timeoutMs }) : undefined;
  const describe = remote ? `remote: ${endpoint} (turn prefixes: ${model.label})` : model.label;
  return { model, remote, describe };
}
