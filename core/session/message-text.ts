/**
 * Plain-text rendering of one provider message (user, assistant, tool result), shared by the
 * renderer's LLM view and the CLI.
 */
import type { LlmMessage } from "./entries.ts";

export function messageText(message: LlmMessage): string {
  if (message.role === "user") {
    if (typeof message.content === "string") return message.content;
    return message.content
      .map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`))
      .join("\n");
  }
  if (message.role === "assistant") {
    return message.content
      .map((block) => {
        if (block.type === "text") return block.text;
        if (block.type === "thinking") return `[thinking]\n${block.thinking}`;
        return `[tool call ${block.name}] ${JSON.stringify(block.arguments)}`;
      })
      .join("\n\n");
  }
  const body = message.content
    .map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`))
    .join("\n");
  return `${message.isError ? "[error] " : ""}${body}`;
}

export function messageHeading(message: LlmMessage): string {
  if (message.role === "toolResult") return `tool result · ${message.toolName}`;
  if (message.role === "assistant") return `assistant · ${message.provider}/${message.model}`;
  return "user";
}
