/**
 * Handler of `context:get`: what the model receives at a leaf (SPEC D4), built from the library
 * with Canopy's context templates, plus the token figures the UI shows.
 */
import type { ContextView } from "../../../core/api/dto.ts";
import { calculateContextTokens, getLastAssistantUsage } from "../../../core/compaction/tokens.ts";
import { buildLlmView } from "../../../core/session/llm-view.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { contextTemplatesFrom } from "../../../prompts/index.ts";
import { getViewLeaf, loadSessionEntries } from "../../library/load.ts";
import { notFound } from "../errors.ts";
import type { AreaHandlers } from "../types.ts";

export const contextHandlers: AreaHandlers<"context"> = {
  "context:get": (input, ctx): ContextView => {
    const leafId = input.leafId === undefined ? getViewLeaf(ctx.db, input.sessionId) : input.leafId;
    const entries = loadSessionEntries(ctx.db, input.sessionId);
    const index = buildTreeIndex(entries);
    if (leafId !== null && !index.byId.has(leafId)) {
      throw notFound(`Session ${input.sessionId} has no entry ${leafId}`);
    }
    const view = buildLlmView(entries, leafId, contextTemplatesFrom(ctx.prompts), index);
    const usage = getLastAssistantUsage(view.context.path);
    return {
      sessionId: input.sessionId,
      leafId,
      thinkingLevel: view.context.thinkingLevel,
      models: view.context.models,
      agentMessages: view.context.messages,
      messages: view.messages,
      messageEntryIds: view.messageEntryIds,
      messageTokens: view.messageTokens,
      estimatedTokens: view.estimatedTokens,
      measuredTokens: usage ? calculateContextTokens(usage) : null,
      compactionId: view.context.compaction?.id ?? null,
      firstKeptEntryId: view.context.firstKeptEntryId,
    };
  },
};
