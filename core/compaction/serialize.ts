/**
 * serializeConversation (SPEC §6.1): provider messages (after convertToLlm) → the plain text a
 * summarizer reads, one `[Role]: …` block per part, blocks separated by a blank line. Tool
 * results are not truncated (anchor behaviour). Tolerates malformed content (skips it).
 */
import type { LlmMessage } from "../session/entries.ts";
import { toJson } from "../text/json-deep.ts";

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function blocksOf(content: unknown): Loose[] {
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** String content, or all text blocks concatenated with no separator (images ignored). */
function plainText(content: unknown): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of blocksOf(content)) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
  }
  return text;
}

/** `name(k1=<JSON v1>, k2=<JSON v2>)`, keys in object order. */
function formatToolCall(block: Loose): string {
  const name = typeof block.name === "string" ? block.name : "";
  const args = isObject(block.arguments) ? block.arguments : {};
  const pairs = Object.entries(args).map(([key, value]) => `${key}=${String(toJson(value))}`);
  return `${name}(${pairs.join(", ")})`;
}

function assistantParts(content: unknown): string[] {
  const thinking: string[] = [];
  const text: string[] = [];
  const calls: string[] = [];
  for (const block of blocksOf(content)) {
    if (block.type === "thinking" && typeof block.thinking === "string") thinking.push(block.thinking);
    else if (block.type === "text" && typeof block.text === "string") text.push(block.text);
    else if (block.type === "toolCall") calls.push(formatToolCall(block));
  }
  const parts: string[] = [];
  const joinedThinking = thinking.join("\n");
  if (joinedThinking !== "") parts.push(`[Assistant thinking]: ${joinedThinking}`);
  const joinedText = text.join("\n");
  if (joinedText !== "") parts.push(`[Assistant]: ${joinedText}`);
  if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
  return parts;
}

export function serializeConversation(llmMessages: readonly LlmMessage[]): string {
  const parts: string[] = [];
  for (const message of llmMessages) {
    const m = message as Loose;
    switch (m.role) {
      case "user": {
        const text = plainText(m.content);
        if (text !== "") parts.push(`[User]: ${text}`);
        break;
      }
      case "assistant":
        parts.push(...assistantParts(m.content));
        break;
      case "toolResult": {
        const text = plainText(m.content);
        if (text !== "") parts.push(`[Tool result]: ${text}`);
        break;
      }
    }
  }
  return parts.join("\n\n");
}
