/**
 * The request-level step after convertToLlm (SPEC §3.6 steps 4–6) on an LLM view's messages:
 * images blocked by `images.blockImages`, thinking removed for cerebras, the provider
 * normalization (failed replies dropped, foreign thinking as text, a synthetic result for every
 * unanswered tool call) and, for Canopy's own OpenAI-compatible request, no thinking at all.
 * One function for both the chat request builder and the LLM view's annotations.
 */
import type {
  AssistantMessage,
  ImageContent,
  LlmMessage,
  TextContent,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "./entries.ts";
import { failedStop } from "./message-text.ts";

export const NO_RESULT_TEXT = "No result provided";
export const ABORTED_TOOL_TEXT = "Tool execution was aborted";
export const IMAGES_BLOCKED_TEXT = "Image reading is disabled.";

/**
 * Who the request goes to. A reply whose provider or api differs is "foreign" (§3.6 step 6).
 * `sender`: "canopy" is Canopy's chat request (OpenAI chat completions: no thinking is sent, a
 * reply left with nothing else is left out, a tool result no call waits for goes as user text);
 * "agent" is the agent's own request (pi-ai), which keeps same-provider thinking.
 */
export interface RequestTarget {
  provider: string;
  /** null: not known (every reply with an api counts as foreign). */
  api: string | null;
  sender: "canopy" | "agent";
}

/** The target as the LLM view reports it: where it came from, and the model id when known. */
export interface RequestTargetInfo extends RequestTarget {
  model: string | null;
  /** "configured": Canopy's model setting (what Canopy sends); "session": the model in effect at the leaf (what the agent sends). */
  from: "configured" | "session";
}

export interface RequestOptions {
  /** Setting `images.blockImages` (§3.6 step 4). */
  blockImages: boolean;
}

export type DropReason =
  /** An errored/aborted reply of another provider/API (§3.6 step 6). */
  | "failed-foreign"
  /** An errored/aborted reply of the target with no content (§3.6 step 6). */
  | "failed-empty"
  /** The result of a tool call of a reply that is dropped. */
  | "result-of-dropped"
  /** Canopy's request: a reply with nothing but thinking (or empty text) has nothing to send. */
  | "nothing-to-send";

/** What the request does to one message of the LLM view. */
export type RequestChange =
  | { kind: "dropped"; reason: DropReason }
  | { kind: "images-blocked"; count: number }
  /** "empty": a foreign reply's thinking is all empty, and empty thinking is dropped (§3.6 step 6). */
  | { kind: "thinking-removed"; reason: "canopy" | "cerebras" | "empty" }
  | { kind: "thinking-as-text" }
  /** Canopy's request: blocks of other kinds (redacted thinking, a fallback marker, in any message) are not sent. */
  | { kind: "blocks-removed"; count: number }
  | { kind: "result-as-user" };

/** A tool result only the request has, inserted before the view message at `before`. */
export interface AddedResult {
  /** Index in the LLM view it is inserted before (the view's length: at the end). */
  before: number;
  /** The view message holding the unanswered call. */
  callIndex: number;
  reason: "no-result" | "aborted";
  message: ToolResultMessage;
}

export interface RequestPlan {
  /** The messages of the request, in order (before the provider's wire format). */
  messages: LlmMessage[];
  /** For each request message, the view message it comes from; null for an added one. */
  sources: (number | null)[];
  /** For each view message, what the request changes on it (empty: sent as it is). */
  changes: RequestChange[][];
  added: AddedResult[];
}

type Block = { type?: unknown; [key: string]: unknown };

/** Content blocks of a stored message; content that is not an array has none. */
function blocksOf(content: unknown): Block[] {
  return Array.isArray(content)
    ? content.filter((block): block is Block => typeof block === "object" && block !== null)
    : [];
}

function failed(message: AssistantMessage): boolean {
  return failedStop(message) !== null;
}

/** Step 4: images become the notice, consecutive notices collapse into one. */
function blockImages<T extends UserMessage | ToolResultMessage>(message: T): { message: T; count: number } {
  if (!Array.isArray(message.content)) return { message, count: 0 };
  let count = 0;
  const out: (TextContent | ImageContent)[] = [];
  for (const block of message.content as (TextContent | ImageContent)[]) {
    const isImage = block?.type === "image";
    if (isImage) count++;
    const next: TextContent | ImageContent = isImage ? { type: "text", text: IMAGES_BLOCKED_TEXT } : block;
    const previous = out.at(-1);
    const duplicate =
      next.type === "text" &&
      next.text === IMAGES_BLOCKED_TEXT &&
      previous?.type === "text" &&
      previous.text === IMAGES_BLOCKED_TEXT;
    if (!duplicate) out.push(next);
  }
  return count === 0 ? { message, count } : { message: { ...message, content: out }, count };
}

/** Canopy's request: a user message's or tool result's content as chat completions carry it. */
function sendableInput(block: unknown): block is TextContent | ImageContent {
  if (typeof block !== "object" || block === null) return false;
  const b = block as Block;
  if (b.type === "text") return typeof b.text === "string";
  return b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string";
}

/**
 * Canopy's request: blocks other than text and images (a provider's own block, a hand-edited
 * one) are left out of a user message or tool result, and said so, rather than sent as empty text.
 */
function withoutOtherInputs<T extends UserMessage | ToolResultMessage>(
  message: T,
  changes: RequestChange[],
): T {
  if (!Array.isArray(message.content)) return message;
  const content: unknown[] = message.content;
  const kept = content.filter(sendableInput);
  const others = content.length - kept.length;
  if (others === 0) return message;
  changes.push({ kind: "blocks-removed", count: others });
  return { ...message, content: kept };
}

/** Canopy's request: a result no call waits for is sent as user text (chat completions refuse it as a tool message). */
function resultAsUser(result: ToolResultMessage): UserMessage {
  const blocks = blocksOf(result.content);
  const text = blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
  const images = blocks.filter((block) => block.type === "image") as ImageContent[];
  return {
    role: "user",
    content: [
      { type: "text", text: `Result of tool ${result.toolName}:\n${text || "(no text)"}` },
      ...images,
    ],
    timestamp: result.timestamp,
  };
}

/** Step 5 and the thinking part of step 6 (and Canopy's "no thinking"), on one reply. */
function replyContent(
  message: AssistantMessage,
  target: RequestTarget,
  foreign: boolean,
  changes: RequestChange[],
): AssistantMessage["content"] {
  let blocks = blocksOf(message.content) as AssistantMessage["content"];
  if (target.sender === "canopy") {
    // Chat completions carry text and tool calls: any other block (redacted thinking) is left out.
    const sendable = (block: { type?: unknown }) =>
      block.type === "text" || block.type === "thinking" || block.type === "toolCall";
    const others = blocks.filter((block) => !sendable(block)).length;
    if (others > 0) {
      changes.push({ kind: "blocks-removed", count: others });
      blocks = blocks.filter(sendable);
    }
  }
  if (!blocks.some((block) => block.type === "thinking")) return blocks;
  if (target.sender === "canopy" || target.provider === "cerebras") {
    changes.push({ kind: "thinking-removed", reason: target.sender === "canopy" ? "canopy" : "cerebras" });
    return blocks.filter((block) => block.type !== "thinking");
  }
  if (!foreign) return blocks;
  const thinkingText = (block: AssistantMessage["content"][number]) =>
    block.type === "thinking" && typeof block.thinking === "string" ? block.thinking : "";
  const anyText = blocks.some((block) => thinkingText(block).trim() !== "");
  changes.push(anyText ? { kind: "thinking-as-text" } : { kind: "thinking-removed", reason: "empty" });
  return blocks.flatMap((block): AssistantMessage["content"] => {
    if (block.type !== "thinking") return [block];
    const text = thinkingText(block);
    return text.trim() === "" ? [] : [{ type: "text", text }];
  });
}

function hasSomethingToSend(content: AssistantMessage["content"]): boolean {
  return content.some(
    (block) =>
      block.type === "toolCall" ||
      (block.type === "text" && typeof block.text === "string" && block.text !== ""),
  );
}

/** What the request does to the messages of an LLM view (`view`: convertToLlm's output, in order). */
export function planRequest(
  view: readonly LlmMessage[],
  target: RequestTarget,
  options: RequestOptions,
): RequestPlan {
  const plan: RequestPlan = { messages: [], sources: [], changes: view.map(() => []), added: [] };
  const push = (message: LlmMessage, source: number | null) => {
    plan.messages.push(message);
    plan.sources.push(source);
  };
  /** Calls of the latest reply still waiting for a result. */
  let pending = new Map<
    string,
    { call: ToolCall; callIndex: number; reason: AddedResult["reason"]; timestamp: number }
  >();
  const droppedCalls = new Set<string>();
  const closePending = (before: number) => {
    for (const [id, { call, callIndex, reason, timestamp }] of pending) {
      const message: ToolResultMessage = {
        role: "toolResult",
        toolCallId: id,
        toolName: call.name,
        content: [{ type: "text", text: reason === "aborted" ? ABORTED_TOOL_TEXT : NO_RESULT_TEXT }],
        isError: true,
        timestamp,
      };
      plan.added.push({ before, callIndex, reason, message });
      push(message, null);
    }
    pending = new Map();
  };

  view.forEach((original, index) => {
    const changes = plan.changes[index] as RequestChange[];
    if (original.role === "toolResult") {
      if (droppedCalls.has(original.toolCallId)) {
        changes.push({ kind: "dropped", reason: "result-of-dropped" });
        return;
      }
      const input = target.sender === "canopy" ? withoutOtherInputs(original, changes) : original;
      const blocked = options.blockImages ? blockImages(input) : { message: input, count: 0 };
      if (blocked.count > 0) changes.push({ kind: "images-blocked", count: blocked.count });
      if (pending.delete(original.toolCallId) || target.sender === "agent") {
        push(blocked.message, index);
        return;
      }
      closePending(index);
      changes.push({ kind: "result-as-user" });
      push(resultAsUser(blocked.message), index);
      return;
    }
    closePending(index);
    if (original.role === "user") {
      const input = target.sender === "canopy" ? withoutOtherInputs(original, changes) : original;
      const blocked = options.blockImages ? blockImages(input) : { message: input, count: 0 };
      if (blocked.count > 0) changes.push({ kind: "images-blocked", count: blocked.count });
      push(blocked.message, index);
      return;
    }
    const blocks = blocksOf(original.content);
    const calls = blocks.filter((block) => block.type === "toolCall") as ToolCall[];
    const foreign = original.provider !== target.provider || (original.api ?? null) !== target.api;
    if (failed(original) && (foreign || blocks.length === 0)) {
      changes.push({ kind: "dropped", reason: foreign ? "failed-foreign" : "failed-empty" });
      for (const call of calls) droppedCalls.add(call.id);
      return;
    }
    const content = replyContent(original, target, foreign, changes);
    if (target.sender === "canopy" && !hasSomethingToSend(content)) {
      changes.length = 0;
      changes.push({ kind: "dropped", reason: "nothing-to-send" });
      return;
    }
    const same =
      changes.length === 0 && Array.isArray(original.content) && content.length === original.content.length;
    push(same ? original : { ...original, content }, index);
    const reason = failed(original) ? "aborted" : "no-result";
    pending = new Map(
      calls.map((call) => [call.id, { call, callIndex: index, reason, timestamp: original.timestamp }]),
    );
  });
  closePending(view.length);
  return plan;
}

/**
 * The agent's own target at a leaf when Canopy has no model: the model the agent resumes with
 * (SPEC §3.2), `model` — the context's model in effect, set by the last model change or reply on
 * the path — with the API of that provider's last reply (null when none is on the path); without
 * it, the provider, API and model of the view's last reply; null with neither.
 */
export function sessionRequestTarget(
  view: readonly LlmMessage[],
  model: { provider: string; modelId: string } | null = null,
): RequestTargetInfo | null {
  const replies = view.filter((message): message is AssistantMessage => message.role === "assistant");
  const apiOf = (reply: AssistantMessage | undefined) => (typeof reply?.api === "string" ? reply.api : null);
  if (model !== null && model.provider !== "") {
    const same = replies.filter((reply) => reply.provider === model.provider);
    const api = apiOf(same.findLast((reply) => reply.model === model.modelId) ?? same.at(-1));
    return { provider: model.provider, api, model: model.modelId || null, sender: "agent", from: "session" };
  }
  const last = replies.at(-1);
  if (!last) return null;
  return {
    // A reply without a provider matches no target (§3.6 step 6), as before; "" names none.
    provider: typeof last.provider === "string" ? last.provider : "",
    api: apiOf(last),
    model: typeof last.model === "string" ? last.model : null,
    sender: "agent",
    from: "session",
  };
}

/** A view with no target has no reply either: only the provider-independent steps can apply. */
const NO_TARGET: RequestTarget = { provider: "", api: null, sender: "agent" };

export function planRequestFor(
  view: readonly LlmMessage[],
  target: RequestTarget | null,
  options: RequestOptions,
): RequestPlan {
  return planRequest(view, target ?? NO_TARGET, options);
}
