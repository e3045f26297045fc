/**
 * The LLM view (convertToLlm output, SPEC §3.4) as OpenAI chat-completions messages, with the
 * provider normalization of §3.6 step 6: failed replies of other providers dropped, tool-call ids
 * made acceptable, synthetic results for unanswered tool calls. Thinking is never sent.
 */
import type {
  AssistantMessage,
  ImageContent,
  LlmMessage,
  TextContent,
  ToolCall,
  ToolResultMessage,
} from "../../core/session/entries.ts";

export type OpenAiContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export interface OpenAiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAiMessage =
  | { role: "user"; content: string | OpenAiContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** Who the request goes to: a reply written by another provider/API is "foreign" (§3.6). */
export interface ChatTarget {
  provider: string;
  api: string;
}

export const NO_RESULT_TEXT = "No result provided";
export const ABORTED_TOOL_TEXT = "Tool execution was aborted";
export const TOOL_IMAGES_TEXT = "Attached image(s) from tool result:";
/** OpenAI refuses longer tool-call ids (and characters outside this set). */
const MAX_TOOL_CALL_ID = 40;

function failed(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

/** Tool-call ids as the target accepts them, one-to-one (collisions get a numeric suffix). */
function idMapper() {
  const mapped = new Map<string, string>();
  const used = new Set<string>();
  return (id: string): string => {
    const known = mapped.get(id);
    if (known !== undefined) return known;
    const base = (id.replace(/[^A-Za-z0-9_-]/g, "_") || "call").slice(0, MAX_TOOL_CALL_ID);
    let candidate = base;
    for (let n = 2; used.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = base.slice(0, MAX_TOOL_CALL_ID - suffix.length) + suffix;
    }
    mapped.set(id, candidate);
    used.add(candidate);
    return candidate;
  };
}

function imagePart(image: ImageContent): OpenAiContentPart {
  // Images stored as blob references have no bytes here; the model is told one was there.
  if (image.data.startsWith("blob:")) return { type: "text", text: `[image not available: ${image.data}]` };
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function userContent(content: string | (TextContent | ImageContent)[]): string | OpenAiContentPart[] {
  if (typeof content === "string") return content;
  const parts = content.map((block) =>
    block.type === "image" ? imagePart(block) : { type: "text" as const, text: block.text },
  );
  const only = parts[0];
  return parts.length === 1 && only?.type === "text" ? only.text : parts;
}

function textOf(blocks: readonly { type: string; text?: unknown }[]): string {
  return blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

/**
 * Converts the provider messages of an LLM view. Per §3.6 step 6: an errored/aborted reply of
 * another provider/API is dropped with its tool results; one of the target with no content is
 * dropped; every tool call without a result before the next user/assistant message (or at the
 * end) gets a synthetic error result. A tool result whose call is unknown is sent as user text.
 */
export function toOpenAiMessages(messages: readonly LlmMessage[], target: ChatTarget): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  const mapId = idMapper();
  const droppedCalls = new Set<string>();
  /** Tool calls of the last assistant still waiting for a result, with the text to use if none comes. */
  let pending = new Map<string, string>();
  let images: OpenAiContentPart[] = [];

  const flushImages = () => {
    if (images.length === 0) return;
    out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_TEXT }, ...images] });
    images = [];
  };
  const closePending = () => {
    for (const [id, text] of pending) out.push({ role: "tool", tool_call_id: mapId(id), content: text });
    pending = new Map();
    flushImages();
  };

  for (const message of messages) {
    if (message.role === "toolResult") {
      const result = message as ToolResultMessage;
      if (droppedCalls.has(result.toolCallId)) continue;
      if (!pending.has(result.toolCallId)) {
        closePending();
        const text = textOf(result.content);
        out.push({ role: "user", content: `Result of tool ${result.toolName}:\n${text || "(no text)"}` });
        continue;
      }
      pending.delete(result.toolCallId);
      const resultImages = result.content.filter((block): block is ImageContent => block.type === "image");
      const text = textOf(result.content);
      out.push({
        role: "tool",
        tool_call_id: mapId(result.toolCallId),
        content: text || (resultImages.length > 0 ? "(see the attached image)" : "(no output)"),
      });
      images.push(...resultImages.map(imagePart));
      if (pending.size === 0) flushImages();
      continue;
    }
    closePending();
    if (message.role === "user") {
      out.push({ role: "user", content: userContent(message.content) });
      continue;
    }
    const assistant = message as AssistantMessage;
    const toolCalls = assistant.content.filter((block): block is ToolCall => block.type === "toolCall");
    const foreign = assistant.provider !== target.provider || assistant.api !== target.api;
    if (failed(assistant) && (foreign || assistant.content.length === 0)) {
      for (const call of toolCalls) droppedCalls.add(call.id);
      continue;
    }
    const text = assistant.content
      .filter((block): block is TextContent => block.type === "text")
      .map((block) => block.text)
      .join("");
    if (text === "" && toolCalls.length === 0) continue;
    out.push({
      role: "assistant",
      content: text === "" ? null : text,
      ...(toolCalls.length === 0
        ? {}
        : {
            tool_calls: toolCalls.map((call) => ({
              id: mapId(call.id),
              type: "function" as const,
              function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
            })),
          }),
    });
    const missing = failed(assistant) ? ABORTED_TOOL_TEXT : NO_RESULT_TEXT;
    pending = new Map(toolCalls.map((call) => [call.id, missing]));
  }
  closePending();
  return out;
}
