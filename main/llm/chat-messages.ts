/**
 * The LLM view (convertToLlm output, SPEC §3.4) as OpenAI chat-completions messages: core's
 * request-level step (§3.6 steps 4–6, request-messages.ts), then the wire format — tool-call ids
 * made acceptable, tool results as `tool` messages, images as data URLs. Thinking is never sent.
 */
import type { ImageContent, LlmMessage, TextContent, ToolCall } from "../../core/session/entries.ts";
import { planRequest, type RequestOptions } from "../../core/session/request-messages.ts";
import { toJson } from "../../core/text/json-deep.ts";

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
  api: string | null;
}

export const TOOL_IMAGES_TEXT = "Attached image(s) from tool result:";
/** OpenAI refuses longer tool-call ids (and characters outside this set). */
const MAX_TOOL_CALL_ID = 40;

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
  // A message whose every block was left out (request-messages.ts) is sent as empty text.
  if (only === undefined) return "";
  return parts.length === 1 && only?.type === "text" ? only.text : parts;
}

function textOf(blocks: readonly { type: string; text?: unknown }[]): string {
  return blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

/**
 * The LLM view's messages as Canopy's chat request: the request-level step of §3.6 (failed
 * replies dropped, synthetic results, blocked images, no thinking) is core's planRequest, the
 * same function the LLM view's annotations come from; this only writes its result in the
 * chat-completions format. A tool result's images follow its run of tool messages as user content.
 */
export function toOpenAiMessages(
  messages: readonly LlmMessage[],
  target: ChatTarget,
  options: RequestOptions = { blockImages: false },
): OpenAiMessage[] {
  const plan = planRequest(messages, { ...target, sender: "canopy" }, options);
  const out: OpenAiMessage[] = [];
  const mapId = idMapper();
  let images: OpenAiContentPart[] = [];
  const flushImages = () => {
    if (images.length === 0) return;
    out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_TEXT }, ...images] });
    images = [];
  };

  for (const message of plan.messages) {
    if (message.role === "toolResult") {
      const resultImages = message.content.filter((block): block is ImageContent => block.type === "image");
      const text = textOf(message.content);
      out.push({
        role: "tool",
        tool_call_id: mapId(message.toolCallId),
        content: text || (resultImages.length > 0 ? "(see the attached image)" : "(no output)"),
      });
      images.push(...resultImages.map(imagePart));
      continue;
    }
    flushImages();
    if (message.role === "user") {
      out.push({ role: "user", content: userContent(message.content) });
      continue;
    }
    const toolCalls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    const text = message.content
      .filter((block): block is TextContent => block.type === "text")
      .map((block) => block.text)
      .join("");
    out.push({
      role: "assistant",
      content: text === "" ? null : text,
      ...(toolCalls.length === 0
        ? {}
        : {
            tool_calls: toolCalls.map((call) => ({
              id: mapId(call.id),
              type: "function" as const,
              function: { name: call.name, arguments: toJson(call.arguments ?? {}) },
            })),
          }),
    });
  }
  flushImages();
  return out;
}
