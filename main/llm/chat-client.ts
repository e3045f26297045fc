/**
 * One chat completion for the chat turn (D17) through the `openai` SDK: streamed (with
 * `stream_options.include_usage`) or not, abortable, never throwing — an endpoint failure comes
 * back as `stopReason: "error"` with the text the overflow check and the user read. A stream that
 * stops part-way (no finish_reason, or the connection lost) is an error that keeps what came.
 */
import type { ToolCall, Usage } from "../../core/session/entries.ts";
import type { OpenAiMessage } from "./chat-messages.ts";
import {
  createClient,
  describeError,
  isUserAbortError,
  type OpenAiSummarizerConfig,
  replyText,
  SDK_TIMEOUT_MARGIN_MS,
  STREAM_ENDED_EARLY,
} from "./openai-client.ts";
import { DEFAULT_MODEL_TIMEOUT_MS, watchIdle } from "./idle-timeout.ts";
import { linkSignal } from "./link-signal.ts";
import { ToolCallCollector, toolNames } from "./tool-calls.ts";

export type ChatClientConfig = Pick<
  OpenAiSummarizerConfig,
  "baseUrl" | "apiKey" | "keyName" | "keyStore" | "model" | "stream" | "timeoutMs"
> & {
  contextWindow: number;
};

export interface ChatReply {
  text: string;
  /** Reasoning the endpoint streamed separately (`reasoning_content` / `reasoning`), if any. */
  thinking: string;
  /** Tool calls the model made anyway (none are offered); kept, never run. */
  toolCalls: ToolCall[];
  /** "toolUse": the reply has text and tool calls (a reply of tool calls only is an error). */
  stopReason: "stop" | "length" | "toolUse" | "error" | "aborted";
  errorMessage?: string;
  usage: Usage;
  /** ms from the request to the first streamed token (streaming only). */
  ttft?: number;
}

interface UsageFields {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

/**
 * A token count as the session stores it: a number, never text or below 0 (a server's `"120"`
 * stored as it came would make the agents' usage sums strings: "120" + "14" = "12014").
 */
function tokenCount(value: unknown): number | undefined {
  const count = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof count === "number" && Number.isFinite(count) && count >= 0 ? count : undefined;
}

/** The agents' usage shape; cached prompt tokens count as cacheRead (as pi's OpenAI provider). */
export function usageFrom(raw: UsageFields | null | undefined): Usage {
  const prompt = tokenCount(raw?.prompt_tokens) ?? 0;
  const output = tokenCount(raw?.completion_tokens) ?? 0;
  const cacheRead = Math.min(prompt, tokenCount(raw?.prompt_tokens_details?.cached_tokens) ?? 0);
  return {
    input: prompt - cacheRead,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: tokenCount(raw?.total_tokens) ?? prompt + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

function reasoningOf(delta: unknown): string {
  if (delta === null || typeof delta !== "object") return "";
  const fields = delta as { reasoning_content?: unknown; reasoning?: unknown };
  const value = fields.reasoning_content ?? fields.reasoning;
  return typeof value === "string" ? value : "";
}

function finish(
  text: string,
  thinking: string,
  finishReason: string | null | undefined,
  usage: Usage,
  toolCalls: ToolCall[],
): ChatReply {
  if (finishReason === "content_filter") {
    return {
      text,
      thinking,
      toolCalls,
      stopReason: "error",
      errorMessage: "The endpoint's content filter stopped the reply",
      usage,
    };
  }
  if (text === "" && thinking === "" && toolCalls.length > 0) {
    // No tools are offered, yet some models answer with a tool call only: say so, not "empty".
    return {
      text,
      thinking,
      toolCalls,
      stopReason: "error",
      errorMessage: `The model asked to run ${toolNames(toolCalls).join(", ")} instead of replying; Canopy runs no tools`,
      usage,
    };
  }
  if (text === "" && thinking === "") {
    return {
      text,
      thinking,
      toolCalls,
      stopReason: "error",
      errorMessage: `Model returned an empty reply (finish_reason ${finishReason})`,
      usage,
    };
  }
  if (finishReason === "length") return { text, thinking, toolCalls, stopReason: "length", usage };
  // As the agents record a reply with tool calls, whatever finish_reason the server gave.
  return { text, thinking, toolCalls, stopReason: toolCalls.length > 0 ? "toolUse" : "stop", usage };
}

/** Added to the error of a streamed reply that stopped part-way: what came is kept in the reply. */
export const CUT_OFF_NOTE = " — the reply was cut off; what it wrote so far is kept";

/** What a stream delivered so far: kept in the error reply when the stream stops part-way. */
interface Streamed {
  text: string;
  thinking: string;
  calls: ToolCallCollector;
  usage: UsageFields | null | undefined;
  ttft: number | undefined;
}

/**
 * A streamed reply that did not finish: an error with `message`, keeping the text, reasoning and
 * tool calls that came (nothing the model wrote is lost) and saying the reply was cut off.
 */
function cutOff(streamed: Streamed, message: string): ChatReply {
  const toolCalls = streamed.calls.blocks();
  const partial = streamed.text !== "" || streamed.thinking !== "" || toolCalls.length > 0;
  return {
    text: streamed.text,
    thinking: streamed.thinking,
    toolCalls,
    stopReason: "error",
    errorMessage: partial ? `${message}${CUT_OFF_NOTE}` : message,
    usage: usageFrom(streamed.usage),
    ...(streamed.ttft === undefined ? {} : { ttft: streamed.ttft }),
  };
}

/** Sends `messages` and resolves with the reply; `onText` receives the text streamed so far. */
export async function completeChat(
  config: ChatClientConfig,
  messages: OpenAiMessage[],
  signal: AbortSignal,
  onText?: (text: string) => void,
): Promise<ChatReply> {
  const aborted = (): ChatReply => ({
    text: "",
    thinking: "",
    toolCalls: [],
    stopReason: "aborted",
    usage: usageFrom(undefined),
  });
  if (signal.aborted) return aborted();
  const idleMs = config.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const client = createClient({ ...config, contextWindow: config.contextWindow }, idleMs + SDK_TIMEOUT_MARGIN_MS);
  const link = linkSignal(signal);
  const idle = watchIdle(link.signal, idleMs);
  const started = performance.now();
  const streamed: Streamed = {
    text: "",
    thinking: "",
    calls: new ToolCallCollector(),
    usage: undefined,
    ttft: undefined,
  };
  try {
    if (!config.stream) {
      // A JSON body is whole once parsed (a body cut off fails to parse or reads as "terminated"),
      // so a missing finish_reason there does not mean a cut: the reply is kept as it came.
      const completion = await client.chat.completions.create(
        { model: config.model, messages },
        { signal: idle.signal },
      );
      const choice = completion.choices[0];
      if (!choice) {
        return {
          ...aborted(),
          stopReason: "error",
          errorMessage: "Model returned no choices",
          usage: usageFrom(completion.usage),
        };
      }
      const calls = new ToolCallCollector();
      calls.add(choice.message, false);
      const reply = finish(
        replyText(choice.message.content),
        reasoningOf(choice.message),
        choice.finish_reason,
        usageFrom(completion.usage),
        calls.blocks(),
      );
      if (reply.text) onText?.(reply.text);
      return reply;
    }
    const stream = await client.chat.completions.create(
      { model: config.model, messages, stream: true, stream_options: { include_usage: true } },
      { signal: idle.signal },
    );
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      // include_usage: servers send the usage in a chunk of its own, after the finish_reason.
      if (chunk.usage) streamed.usage = chunk.usage;
      const choice = chunk.choices[0];
      const delta = choice?.delta;
      const reasoning = reasoningOf(delta);
      if (reasoning) streamed.thinking += reasoning;
      streamed.calls.add(delta, true);
      const content = replyText(delta?.content);
      idle.touch(Boolean(reasoning || content || delta?.tool_calls?.length));
      if (content) {
        streamed.ttft ??= Math.round(performance.now() - started);
        streamed.text += content;
        onText?.(streamed.text);
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason;
    }
    // The SDK ends an aborted stream quietly, without throwing — and one the server closed too.
    if (link.signal.aborted) return aborted();
    if (idle.timedOut()) return cutOff(streamed, idle.message());
    if (!finishReason) return cutOff(streamed, STREAM_ENDED_EARLY);
    const { text, thinking, calls, usage, ttft } = streamed;
    const reply = finish(text, thinking, finishReason, usageFrom(usage), calls.blocks());
    return ttft === undefined ? reply : { ...reply, ttft };
  } catch (error) {
    if (link.signal.aborted) return aborted();
    if (idle.timedOut()) return cutOff(streamed, idle.message());
    if (isUserAbortError(error)) return aborted();
    return cutOff(streamed, describeError(error, config));
  } finally {
    idle.dispose();
    link.dispose();
  }
}
