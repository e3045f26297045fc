// A recording fake Summarizer for the summary tests: in-process, records every request and
// answers from a script (text, a full response, or a thrown error).
import type { Summarizer, SummaryRequest, SummaryResponse } from "../../../core/compaction/types.ts";
import { contextTemplatesFrom, loadPromptTemplates, summaryPromptsFrom } from "../../../prompts/index.ts";

export type Script = (
  request: SummaryRequest,
  call: number,
) => string | SummaryResponse | Promise<SummaryResponse>;

export interface RecordingSummarizer extends Summarizer {
  readonly requests: SummaryRequest[];
  /** The request of the given purpose (the only one, or the first). */
  find(purpose: SummaryRequest["purpose"]): SummaryRequest | undefined;
}

/** Answers `<purpose> summary` unless scripted otherwise. */
export function recordingSummarizer(
  script: Script = (r) => `${r.purpose} summary`,
  options: { kind?: Summarizer["kind"]; contextWindow?: number; label?: string } = {},
): RecordingSummarizer {
  const requests: SummaryRequest[] = [];
  return {
    kind: options.kind ?? "openai",
    label: options.label ?? "fake model",
    contextWindow: options.contextWindow ?? 0,
    requests,
    find: (purpose) => requests.find((r) => r.purpose === purpose),
    async summarize(request) {
      requests.push(request);
      const answer = await script(request, requests.length - 1);
      return typeof answer === "string" ? { text: answer, stopReason: "stop" } : answer;
    },
  };
}

export const loaded = loadPromptTemplates();
export const prompts = summaryPromptsFrom(loaded);
export const templates = contextTemplatesFrom(loaded);

/** A controllable abort signal satisfying AbortSignalLike. */
export function abortable(): { signal: AbortSignal; abort: () => void } {
  const controller = new AbortController();
  return { signal: controller.signal, abort: () => controller.abort() };
}
