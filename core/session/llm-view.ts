/**
 * The "what the model sees" view of one leaf (D4): buildSessionContext + convertToLlm, with the
 * source entry id and the heuristic token estimate of every provider message. This is what the
 * API's ContextView is made from; entrySendsMessage says which entries can ever be in it.
 */
import { estimateTokens } from "../compaction/tokens.ts";
import { buildSessionContext, entryToMessage, type SessionContext } from "./context.ts";
import type { LlmMessage, SessionEntry } from "./entries.ts";
import { type ContextTemplates, convertToLlmWithSources, messageToLlm } from "./llm-messages.ts";
import type { TreeIndex } from "./tree.ts";

export interface LlmView {
  context: SessionContext;
  messages: LlmMessage[];
  /** Entry each provider message came from (parallel to `messages`). */
  messageEntryIds: (string | null)[];
  /** Heuristic estimate of the agent message each provider message came from (SPEC §4.1). */
  messageTokens: number[];
  /** Role of the agent message each came from ("compactionSummary", "bashExecution", "user"…). */
  messageKinds: string[];
  estimatedTokens: number;
}

export function buildLlmView(
  entries: readonly SessionEntry[],
  leafId: string | null | undefined,
  templates: ContextTemplates,
  index?: TreeIndex,
): LlmView {
  const context = buildSessionContext(entries, leafId, index);
  const { messages, sources } = convertToLlmWithSources(context.messages, templates);
  const messageEntryIds = sources.map((i) => context.messageEntryIds[i] ?? null);
  const messageTokens = sources.map((i) => {
    const source = context.messages[i];
    return source ? estimateTokens(source) : 0;
  });
  const messageKinds = sources.map((i) => {
    const role: unknown = context.messages[i]?.role;
    return typeof role === "string" ? role : "";
  });
  const estimatedTokens = messageTokens.reduce((sum, t) => sum + t, 0);
  return { context, messages, messageEntryIds, messageTokens, messageKinds, estimatedTokens };
}

const NO_TEMPLATES: ContextTemplates = { compactionSummary: () => "", branchSummary: () => "" };

/**
 * Whether an entry on the kept part of a path reaches the model as a message of its own: false
 * for metadata (labels, model and thinking changes, custom state…), unknown types and roles,
 * `excludeFromContext` commands and empty branch summaries. A compaction is sent only as the
 * summary of the compaction in effect, which this does not decide.
 */
export function entrySendsMessage(entry: SessionEntry): boolean {
  const message = entryToMessage(entry);
  return message !== undefined && messageToLlm(message, NO_TEMPLATES) !== undefined;
}
