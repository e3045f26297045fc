/**
 * Token accounting (SPEC §4, D18): the chars/4 estimate per agent message, context and prompt
 * tokens from measured usage, the last valid assistant usage on a path, the compaction
 * threshold and the context-usage indicator. Missing usage numbers count as 0.
 */
import type { AgentMessage, SessionEntry, Usage } from "../session/entries.ts";
import { toJson } from "../text/json-deep.ts";

/** Chars an image block counts for in tool results and custom messages. */
export const IMAGE_CHARS = 4800;

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function n(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function len(value: unknown): number {
  return typeof value === "string" ? value.length : 0;
}

/** Text of string content, or text blocks summed; images count `imageChars` each. */
function contentChars(content: unknown, imageChars: number): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "text") chars += len(block.text);
    else if (block.type === "image") chars += imageChars;
  }
  return chars;
}

/** Heuristic token estimate of one agent message: ceil(chars / 4) (SPEC §4.1 with D18). */
export function estimateTokens(message: AgentMessage): number {
  const m = message as Loose;
  let chars = 0;
  switch (message.role) {
    case "user":
      chars = contentChars(m.content, 0);
      break;
    case "assistant":
      if (Array.isArray(m.content)) {
        for (const block of m.content) {
          if (!isObject(block)) continue;
          if (block.type === "text") chars += len(block.text);
          else if (block.type === "thinking") chars += len(block.thinking);
          else if (block.type === "toolCall") {
            chars += len(block.name) + toJson(block.arguments ?? {}).length;
          }
        }
      }
      break;
    case "toolResult":
    case "hookMessage":
    case "custom": // D18: the anchor left `custom` at 0 after the v3 rename; pi counts it.
      chars = contentChars(m.content, IMAGE_CHARS);
      break;
    case "bashExecution":
      chars = len(m.command) + len(m.output);
      break;
    case "branchSummary":
    case "compactionSummary":
      chars = len(m.summary);
      break;
    default:
      // pythonExecution, fileMention, unknown roles: not counted (SPEC §4.1, kept for parity).
      chars = 0;
  }
  return Math.ceil(chars / 4);
}

/** totalTokens when truthy, else input + output + cacheRead + cacheWrite. */
export function calculateContextTokens(usage: Partial<Usage> | undefined): number {
  if (!usage) return 0;
  const total = n(usage.totalTokens);
  if (total) return total;
  return n(usage.input) + n(usage.output) + n(usage.cacheRead) + n(usage.cacheWrite);
}

/** input + cacheRead + cacheWrite when > 0, else the context tokens. */
export function calculatePromptTokens(usage: Partial<Usage> | undefined): number {
  if (!usage) return 0;
  const prompt = n(usage.input) + n(usage.cacheRead) + n(usage.cacheWrite);
  return prompt > 0 ? prompt : calculateContextTokens(usage);
}

/** Usage of the last assistant message entry not aborted/errored, scanning backwards. */
export function getLastAssistantUsage(entries: readonly SessionEntry[]): Usage | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry?.type !== "message") continue;
    const m = (entry as Loose).message;
    if (!isObject(m) || m.role !== "assistant") continue;
    if (m.stopReason === "aborted" || m.stopReason === "error") continue;
    if (isObject(m.usage)) return m.usage as Usage;
  }
  return undefined;
}

export interface CompactionThresholdSettings {
  enabled: boolean;
  reserveTokens: number;
}

/** True iff enabled and contextTokens > contextWindow - reserveTokens (SPEC §4.3). */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: CompactionThresholdSettings,
): boolean {
  return settings.enabled && contextTokens > contextWindow - settings.reserveTokens;
}

export interface ContextUsage {
  tokens: number;
  usageTokens: number;
  trailingTokens: number;
  percent: number;
  contextWindow: number;
  /** Index of the last assistant message with usage, or -1. */
  lastUsageIndex: number;
}

/**
 * Context usage over the current messages (SPEC §4.4): measured usage of the last assistant
 * message carrying one (any stop reason) plus estimates of the messages after it. Undefined
 * without a context window (no model) or with a window ≤ 0.
 */
export function getContextUsage(
  messages: readonly AgentMessage[],
  contextWindow: number | undefined,
): ContextUsage | undefined {
  if (contextWindow === undefined || !(contextWindow > 0)) return undefined;
  let lastUsageIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "assistant" && isObject(m.usage)) {
      lastUsageIndex = i;
      break;
    }
  }
  const last = messages[lastUsageIndex];
  const usageTokens = last?.role === "assistant" ? calculateContextTokens(last.usage) : 0;
  let trailingTokens = 0;
  for (let i = lastUsageIndex + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m) trailingTokens += estimateTokens(m);
  }
  const tokens = usageTokens + trailingTokens;
  return {
    tokens,
    usageTokens,
    trailingTokens,
    percent: (tokens / contextWindow) * 100,
    contextWindow,
    lastUsageIndex,
  };
}
