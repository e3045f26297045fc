/**
 * The words for what the request does to the LLM view (request-messages.ts): one line per change,
 * per added tool result, and for the target. Shared by the app's LLM view and `canopy context`
 * so both say the same.
 */
import type { LlmMessage } from "./entries.ts";
import { joinNames } from "./message-text.ts";
import type { AddedResult, DropReason, RequestChange, RequestTargetInfo } from "./request-messages.ts";

export function requestTargetText(target: RequestTargetInfo | null): string {
  if (target === null)
    return "No model configured and no reply on this path: only the provider-independent steps apply.";
  const who = joinNames([target.provider, target.api, target.model], " · ");
  return target.from === "configured"
    ? `Request as Canopy sends it to the configured model (${who || "unnamed"}, OpenAI-compatible).`
    : `Request as the agent sends it to the session's model (${who || "its last reply names none"}); no model is configured in Canopy.`;
}

function origin(message: LlmMessage | undefined): string {
  const who = message?.role === "assistant" ? joinNames([message.provider, message.api], " · ") : "";
  return who || "provider not recorded";
}

function droppedText(reason: DropReason, message: LlmMessage | undefined): string {
  switch (reason) {
    case "failed-foreign": {
      const ended = message?.role === "assistant" ? (message.stopReason ?? "error") : "error";
      return `Not sent: a reply that ended in ${ended} from another provider/API (${origin(message)}) is dropped, with its tool results.`;
    }
    case "failed-empty":
      return "Not sent: a failed reply with no content is dropped.";
    case "result-of-dropped":
      return "Not sent: its tool call belongs to a reply the request drops.";
    case "nothing-to-send":
      return "Not sent: nothing but thinking, which Canopy's OpenAI-compatible request does not carry.";
  }
}

/** One line for one change; `message`: the view message it applies to. */
export function requestChangeText(change: RequestChange, message?: LlmMessage): string {
  switch (change.kind) {
    case "dropped":
      return droppedText(change.reason, message);
    case "images-blocked":
      return `${change.count === 1 ? "Its image is" : `Its ${change.count} images are`} sent as “Image reading is disabled.” (images.blockImages).`;
    case "thinking-removed":
      if (change.reason === "empty")
        return "Empty thinking not sent: a reply of another provider/API carries no empty thinking.";
      return change.reason === "canopy"
        ? "Thinking not sent: Canopy's OpenAI-compatible request carries none."
        : "Thinking removed: the provider is cerebras.";
    case "thinking-as-text":
      return "Thinking sent as plain text: the reply comes from another provider/API.";
    case "blocks-removed":
      return `${change.count === 1 ? "A block" : `${change.count} blocks`} of other kinds (redacted thinking, a model-fallback marker…) not sent: Canopy's OpenAI-compatible request carries only text, images and tool calls.`;
    case "result-as-user":
      return "Sent as a user message: no tool call of the request waits for this result.";
  }
}

export function addedResultText(added: AddedResult): string {
  const call = `${added.message.toolName} (${added.message.toolCallId})`;
  return added.reason === "aborted"
    ? `Added by the request: tool call ${call} of a failed reply has no result.`
    : `Added by the request: tool call ${call} has no result.`;
}

/** True when the request sends the view exactly as it is. */
export function requestUnchanged(
  changes: readonly RequestChange[][],
  added: readonly AddedResult[],
): boolean {
  return added.length === 0 && changes.every((list) => list.length === 0);
}
