/**
 * Handler of `context:get`: what the model receives at a leaf (SPEC D4), built from the library
 * with Canopy's context templates, plus the token figures the UI shows. The measured figure is
 * the last valid assistant usage among the entries the view is built from. On request, images in
 * the agent's blob store are resolved to their data, as the agent does on load. `request` says
 * what the request to the model does to those messages (SPEC §3.6), for the configured model's
 * chat request or, without one, for the session's own model. The page asks for very long texts
 * with a hole (holeLongTexts): it shows their beginning, and asks for the whole text when wanted.
 * Moving through the tree, it names the answer it holds (since) and is sent only the messages
 * past the start the two share (context-reuse.ts).
 */
import type { ContextView } from "../../../core/api/dto.ts";
import { calculateContextTokens, getLastAssistantUsage } from "../../../core/compaction/tokens.ts";
import type { LlmMessage, SessionEntry } from "../../../core/session/entries.ts";
import { buildLlmView } from "../../../core/session/llm-view.ts";
import { joinNames } from "../../../core/session/message-text.ts";
import { planRequestFor, sessionRequestTarget } from "../../../core/session/request-messages.ts";
import { holeLongTexts } from "../../../core/text/text-hole.ts";
import { contextTemplatesFrom } from "../../../prompts/index.ts";
import { loadContextEntries } from "../../library/context-path.ts";
import { type AnswerSources, keepAnswer, sharedAnswerStart } from "../../library/context-reuse.ts";
import { requireSession } from "../../library/load.ts";
import { resolveSessionBlobImages, sessionBlobImageSizes } from "../../llm/blob-images.ts";
import { chatTargetOf } from "../../llm/chat-target.ts";
import { loadSettings } from "../../settings/store.ts";
import { entryIdExists } from "../../store/repos/entries.ts";
import { notFound } from "../errors.ts";
import type { AppContext, AreaHandlers } from "../types.ts";

/**
 * The messages from `from` on (those before it are the caller's already), with their very long
 * texts holed when asked (the page: they are not all shown).
 */
function messagesOf(
  messages: LlmMessage[],
  holed: boolean,
  from: number,
): Pick<ContextView, "messages" | "textHoles" | "messagesFrom"> {
  const sent = from > 0 ? messages.slice(from) : messages;
  const left = from > 0 ? { messagesFrom: from } : {};
  if (!holed) return { messages: sent, ...left };
  const cut = holeLongTexts(sent);
  return {
    messages: cut.messages,
    textHoles: cut.holes.map((hole) => ({ ...hole, messageIndex: hole.messageIndex + from })),
    ...left,
  };
}

/**
 * Asked with `since`: how many messages at the start the caller holds already (those of its
 * answer `since`), and this answer's id. Each message is known by the parsed entry it came from.
 */
function sharedStart(
  db: AppContext["db"],
  sid: number,
  input: { since?: string | null; holeLongTexts?: boolean; blobImages?: boolean },
  entries: readonly SessionEntry[],
  messageEntryIds: readonly (string | null)[],
): { from: number; answerId: string | null } {
  // Resolved blob images depend on the agent's folder too: such answers are always whole.
  if (input.since === undefined || input.blobImages) return { from: 0, answerId: null };
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const sources: AnswerSources = {
    shape: input.holeLongTexts ? "holed" : "whole",
    entries: messageEntryIds.map((id) => (id === null ? undefined : byId.get(id))),
  };
  const from = typeof input.since === "string" ? sharedAnswerStart(db, sid, input.since, sources) : 0;
  return { from, answerId: keepAnswer(db, sid, sources) };
}

/** Whether the reply carrying `usage` comes before the last compaction on `path` (SPEC §4.4). */
function measuredBeforeCompaction(path: readonly SessionEntry[], usage: unknown): boolean {
  const compaction = path.findLastIndex((entry) => entry.type === "compaction");
  if (compaction < 0) return false;
  const reply = path.findLastIndex(
    (entry) =>
      entry.type === "message" && (entry.message as { usage?: unknown } | undefined)?.usage === usage,
  );
  return reply >= 0 && reply < compaction;
}

export const contextHandlers: AreaHandlers<"context"> = {
  "context:get": (input, ctx): ContextView => {
    const { sid } = requireSession(ctx.db, input.sessionId);
    if (typeof input.leafId === "string" && !entryIdExists(ctx.db, sid, input.leafId)) {
      throw notFound(`Session ${input.sessionId} has no entry ${input.leafId}`);
    }
    // Only the leaf's path (reduced to what the view needs) is read from the database, and of
    // that only what the previous call (an arrow move away, most often) did not read: the
    // entries are only read here, so the next call may take them again.
    const { entries, leafId, index } = loadContextEntries(ctx.db, input.sessionId, input.leafId, {
      reuse: true,
    });
    const view = buildLlmView(entries, leafId, contextTemplatesFrom(ctx.prompts), index);
    const usage = getLastAssistantUsage(view.context.path);
    const measured = usage && calculateContextTokens(usage) > 0 ? calculateContextTokens(usage) : null;
    const settings = loadSettings(ctx.db);
    const target = settings.model
      ? chatTargetOf(settings.model)
      : sessionRequestTarget(view.messages, view.context.model);
    const blockImages = settings.images.blockImages;
    const plan = planRequestFor(view.messages, target, { blockImages });
    const messages = input.blobImages
      ? resolveSessionBlobImages(ctx.db, input.sessionId, view.messages)
      : view.messages;
    const blobImages = sessionBlobImageSizes(ctx.db, input.sessionId, messages);
    const { from, answerId } = sharedStart(ctx.db, sid, input, entries, view.messageEntryIds);
    return {
      sessionId: input.sessionId,
      leafId,
      thinkingLevel: view.context.thinkingLevel,
      thinkingLevelOnPath: view.context.hasThinkingLevelChange,
      models: view.context.models,
      model:
        view.context.model === null
          ? null
          : joinNames([view.context.model.provider, view.context.model.modelId]) || null,
      ...(input.agentMessages === false ? {} : { agentMessages: view.context.messages }),
      ...messagesOf(messages, input.holeLongTexts === true, from),
      ...(answerId === null ? {} : { answerId }),
      ...(blobImages ? { blobImages } : {}),
      messageEntryIds: view.messageEntryIds,
      messageTokens: view.messageTokens,
      messageKinds: view.messageKinds,
      estimatedTokens: view.estimatedTokens,
      // A usage of all zeros (some providers, aborted replies) is no measurement.
      measuredTokens: measured,
      ...(measured !== null && measuredBeforeCompaction(view.context.path, usage)
        ? { measuredBeforeCompaction: true }
        : {}),
      compactionId: view.context.compaction?.id ?? null,
      // Only a first kept entry the model gets: one off the path keeps nothing (SPEC §3.1).
      firstKeptEntryId: view.context.firstKeptOnPath ? view.context.firstKeptEntryId : null,
      request: {
        target,
        blockImages,
        changes: plan.changes,
        added: plan.added,
        messageCount: plan.messages.length,
      },
    };
  },
};
