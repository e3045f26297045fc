/**
 * Plain-text rendering of one provider message (user, assistant, tool result), shared by the
 * renderer's LLM view and the CLI.
 */
import type { AssistantMessage, LlmMessage } from "./entries.ts";
import { toJson } from "../text/json-deep.ts";
import { describeOtherBlock } from "./other-blocks.ts";

/** A block that is none of the kinds below (redacted thinking, a fallback marker): what it is. */
function otherBlockText(block: unknown): string {
  const { label, text } = describeOtherBlock(block);
  return `[${label}] ${text}`;
}

/** A text or image block of a user message or tool result; any other block by what it is. */
function textOrImage(block: Record<string, unknown>): string {
  if (block.type === "text") return String(block.text);
  if (block.type === "image") return `[image ${block.mimeType}]`;
  return otherBlockText(block);
}

export function messageText(message: LlmMessage): string {
  // The content as stored: a hand-edited or hostile file may hold a string, null, or null blocks.
  const content: unknown = message.content;
  if (typeof content === "string") return content;
  const blocks = blocksOf(content);
  if (message.role === "user") return blocks.map(textOrImage).join("\n");
  if (message.role === "assistant") {
    return blocks
      .map((block) => {
        if (block.type === "text") return block.text;
        if (block.type === "thinking") return `[thinking]\n${block.thinking}`;
        if (block.type === "toolCall") return `[tool call ${block.name}] ${toJson(block.arguments)}`;
        return otherBlockText(block);
      })
      .join("\n\n");
  }
  const body = blocks.map(textOrImage).join("\n");
  return `${message.isError ? "[error] " : ""}${body}`;
}

/** The blocks of `content` that are objects; none when it is no array. */
function blocksOf(content: unknown): Record<string, unknown>[] {
  if (!Array.isArray(content)) return [];
  return content.filter(
    (block): block is Record<string, unknown> => block !== null && typeof block === "object",
  );
}

/**
 * The names among `parts` (non-empty strings; anything else left out) joined by `separator`, ""
 * for none: how every provider/api/model tuple becomes text. Sessions carry replies and entries
 * with only some of these fields, which showed as "openai/", "undefined/…" or "undefined · …".
 */
export function joinNames(parts: readonly unknown[], separator = "/"): string {
  const named: string[] = [];
  for (const part of parts) if (typeof part === "string" && part !== "") named.push(part);
  return named.join(separator);
}

/** An assistant message's "provider/model", or only the one it has ("" for none). */
export function modelLabel(message: AssistantMessage): string {
  return joinNames([message.provider, message.model]);
}

/** What a user message that came from another kind of agent message is (ContextView.messageKinds). */
const SENT_AS_USER: Readonly<Record<string, string>> = {
  compactionSummary: "compaction summary",
  branchSummary: "branch summary",
  bashExecution: "bash run",
  pythonExecution: "python run",
  custom: "custom message",
  hookMessage: "custom message",
  fileMention: "file mention",
};

/** Longest error message shown under a failed reply's heading (on one line); the rest is cut with "…". */
const FAILURE_ERROR_CHARS = 120;

/**
 * A message's heading on one line: its role, what it came from when that was no user message
 * (`kind`: the agent message's role, "user · compaction summary"), an assistant's model and,
 * for a reply that failed, its stop reason ("assistant · … · error"; the error message is
 * messageFailure's, on its own line, so the heading stays short in an 80-column terminal).
 */
export function messageHeading(message: LlmMessage, kind?: string): string {
  if (message.role === "toolResult") return joinNames(["tool result", message.toolName], " · ");
  if (message.role === "assistant")
    return joinNames(["assistant", modelLabel(message), failedStop(message)], " · ");
  const from = kind === undefined ? undefined : SENT_AS_USER[kind];
  return from === undefined ? "user" : `user · ${from}`;
}

/**
 * How a reply failed: its stop reason when that is "error" or "aborted", null for any other
 * stop reason (a hand-edited one included) and any other role. The heading and the error line
 * both ask this, so they never disagree about which replies failed.
 */
export function failedStop(message: LlmMessage): "error" | "aborted" | null {
  if (message.role !== "assistant") return null;
  const stop: unknown = message.stopReason;
  return stop === "error" || stop === "aborted" ? stop : null;
}

/** A failed reply's error message, "[error] 529 Overloaded" (one line, cut), or null: none. */
export function messageFailure(message: LlmMessage): string | null {
  if (message.role !== "assistant") return null;
  const stop = failedStop(message);
  if (stop === null) return null;
  const error: unknown = message.errorMessage;
  return typeof error === "string" && error.trim() !== "" ? `[${stop}] ${cutLine(error, FAILURE_ERROR_CHARS)}` : null;
}

/** `text` on one line (runs of white space as one space), cut to `max` characters with "…". */
function cutLine(text: string, max: number): string {
  const line = text.replace(/\s+/gu, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Text blocks of a content field (or the string itself), joined by newlines; other blocks ignored. */
export function textBlocksOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    const b = block as { type?: unknown; text?: unknown } | null;
    if (b !== null && typeof b === "object" && b.type === "text" && typeof b.text === "string") parts.push(b.text);
  }
  return parts.join("\n");
}

