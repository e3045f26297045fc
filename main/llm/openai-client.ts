/**
 * Summarizer backend for any OpenAI-compatible chat endpoint (D16) through the official `openai`
 * SDK — with chat-client.ts (the chat turn, which reuses the client and error texts from here)
 * the only modules that import it. Aborts reach the HTTP request; failures resolve as data
 * (`stopReason: "error"`) whose text keeps the status, the server's message and retry hints.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { DEFAULT_MODEL_TIMEOUT_MS, watchIdle } from "./idle-timeout.ts";
import { linkSignal } from "./link-signal.ts";
import type {
  AbortSignalLike,
  Summarizer,
  SummaryRequest,
  SummaryResponse,
} from "../../core/compaction/types.ts";

export interface OpenAiSummarizerConfig {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 */
  baseUrl: string;
  /** Missing → a placeholder, which local servers (Ollama, LM Studio, llama.cpp) accept. */
  apiKey?: string | undefined;
  /** Where the key is looked up (the model's `apiKeyEnv`): a refused key's error names it. */
  keyName?: string | undefined;
  /** Whether keys can be stored in Settings ("safe-storage", the desktop app) or only come from the environment. */
  keyStore?: "safe-storage" | "env" | undefined;
  model: string;
  contextWindow: number;
  stream?: boolean | undefined;
  /**
   * How long a request may send nothing (no reply yet, or no further streamed chunk) before it
   * is ended as timed out (idle-timeout.ts; the connection test's whole-request bound).
   */
  timeoutMs?: number | undefined;
  /** The SDK's own retries are always off: Canopy's policy lives in retry.ts. */
  maxRetries?: 0;
  /** The model accepts `reasoning_effort` (sent only for requests asking for "high"). */
  reasoning?: boolean | undefined;
  /**
   * Name of the output cap. `max_tokens` is understood by OpenAI's chat models, Ollama,
   * LM Studio, vLLM and llama.cpp; OpenAI's reasoning models require `max_completion_tokens`.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined;
}

export type ConnectionTestResult =
  | { ok: true; model: string; latencyMs: number }
  | { ok: false; message: string };

/** Placeholder key for servers that need none (the SDK refuses to run without one). */
export const NO_API_KEY = "not-needed";

/**
 * A stream that ended without a `finish_reason`: a proxy or the server closed it cleanly part-way
 * (no `[DONE]` either). The SDK ends such a stream quietly; the wording makes it a retryable
 * connection error (retry.ts), never a finished reply.
 */
export const STREAM_ENDED_EARLY = "Connection error: the endpoint ended the stream without a finish_reason";

/** Response headers that carry retry hints, copied into error texts for §9.4 hint parsing. */
const HINT_HEADERS = ["retry-after-ms", "retry-after", "x-ratelimit-reset-ms", "x-ratelimit-reset"] as const;

/** How much later than the inactivity timeout the SDK's own (the response, not a stream's chunks) fires. */
export const SDK_TIMEOUT_MARGIN_MS = 5_000;

const ABORTED: SummaryResponse = { text: "", stopReason: "aborted" };

export function createClient(config: OpenAiSummarizerConfig, timeoutMs?: number): OpenAI {
  return new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey || NO_API_KEY,
    maxRetries: 0,
    timeout: timeoutMs ?? config.timeoutMs,
    // The SDK would print parse failures to the console; they come back to us as errors anyway.
    logLevel: "off",
  });
}

/** The chain of `cause` messages, e.g. "fetch failed (connect ECONNREFUSED 127.0.0.1:9)". */
function causeText(error: unknown): string {
  const parts: string[] = [];
  let cursor: unknown = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cursor instanceof Error && depth < 4; depth += 1) {
    if (cursor.message) parts.push(cursor.message);
    cursor = cursor.cause;
  }
  return parts.join(": ");
}

/** What to check for the commonest first-run failures: no server on the port, a mistyped host. */
function connectionHint(cause: string): string {
  const refused = /ECONNREFUSED (\S+)/.exec(cause);
  if (refused) return ` (nothing answers at ${refused[1]}: is the model server running, on that port?)`;
  const unknownHost = /ENOTFOUND (\S+)/.exec(cause);
  if (unknownHost) return ` (no host named ${unknownHost[1]}: check the base URL in the settings)`;
  return "";
}

/**
 * One-line error text: `<status> <server message>` plus `(retry-after-ms=N, …)` when the
 * response carried hint headers; connection failures name their cause. An endpoint that echoes
 * the API key it was sent gets it masked: the text is shown, and a chat turn's is stored in the
 * session (and so in its exports).
 */
export function describeError(
  error: unknown,
  config: Pick<OpenAiSummarizerConfig, "apiKey" | "keyName" | "keyStore" | "timeoutMs"> = {},
  timeoutMs = config.timeoutMs,
): string {
  const { apiKey } = config;
  const text = describeErrorText(error, timeoutMs) + keyHint(error, config);
  return apiKey && apiKey.length >= 8 ? text.split(apiKey).join("[API key]") : text;
}

/**
 * What to do about a refused key (401/403), naming where Canopy looks for it: without one the
 * endpoint only names the placeholder it was sent ("Incorrect API key provided: not-needed").
 */
function keyHint(
  error: unknown,
  key: Pick<OpenAiSummarizerConfig, "apiKey" | "keyName" | "keyStore">,
): string {
  const name = key.keyName;
  if (!name || !(error instanceof APIError) || (error.status !== 401 && error.status !== 403)) return "";
  if (key.apiKey) return ` — check the API key found under ${name}`;
  return key.keyStore === "safe-storage"
    ? ` — no API key found under ${name}: store one in Settings, or set that environment variable before starting Canopy`
    : ` — no API key found: set the environment variable ${name} before starting Canopy`;
}

/**
 * A plain-text error body on one line; a proxy's HTML error page (nginx, Cloudflare) by its
 * title, else its text without tags — never its first line alone (`<html>`) — without the status
 * it repeats.
 */
function bodyLine(body: string, status: number): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
  const text = (title ?? (/<(html|body|!doctype)\b/i.test(body) ? body.replace(/<[^>]*>/g, " ") : body))
    .replace(/\s+/g, " ")
    .trim();
  return text.startsWith(`${status} `) ? text.slice(String(status).length + 1) : text;
}

function describeErrorText(error: unknown, timeoutMs?: number): string {
  if (error instanceof APIConnectionTimeoutError) {
    return timeoutMs === undefined ? "Request timed out" : `Request timed out after ${timeoutMs} ms`;
  }
  if (error instanceof APIConnectionError) {
    const cause = causeText(error);
    return cause ? `Connection error: ${cause}${connectionHint(cause)}` : "Connection error";
  }
  if (error instanceof APIError) {
    // Bodies like {"error": "text"} (Ollama's native form) would otherwise come out quoted.
    const body: unknown = error.error;
    // A body that is not JSON comes as text in the SDK's message, after the status.
    const text = typeof body === "string" ? body : body === undefined ? error.message.replace(/^\d{3} /, "") : null;
    let message =
      error.status !== undefined && text !== null ? `${error.status} ${bodyLine(text, error.status)}` : error.message;
    const hints: string[] = [];
    for (const name of HINT_HEADERS) {
      const value = error.headers?.get(name);
      if (value) hints.push(`${name}=${value}`);
    }
    if (hints.length > 0) message += ` (${hints.join(", ")})`;
    return message;
  }
  // undici's error when the connection closes while the body is read (a reply cut off part-way).
  if (error instanceof TypeError && error.message === "terminated") {
    const cause = causeText(error);
    return `Connection error: the connection closed before the response was complete${cause ? ` (${cause})` : ""}`;
  }
  if (error instanceof SyntaxError) return `Invalid response from the model endpoint: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** A reply whose content is neither text nor absent: the endpoint does not speak OpenAI's format. */
class InvalidReplyError extends SyntaxError {}

/** A content part as some servers send them in place of a string (`{type: "text", text}`, …). */
function isContentPart(value: unknown): value is { type: string; text?: unknown } {
  return (
    value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string"
  );
}

/**
 * A reply's (or a streamed delta's) content as text: a string, nothing, or a list of content parts
 * whose text parts are joined (other parts, as thinking, are left out); anything else is an
 * invalid response (described as one by describeError), never text like "[object Object]".
 */
export function replyText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every(isContentPart)) {
    const texts = value.filter((part) => part.type === "text");
    if (texts.every((part) => typeof part.text === "string")) return texts.map((part) => part.text).join("");
  }
  const what = Array.isArray(value)
    ? "a list of something else than content parts"
    : typeof value === "object"
      ? "an object"
      : `a ${typeof value}`;
  throw new InvalidReplyError(`the reply's content is ${what}, not text`);
}

/**
 * A reply with no text but blanks is an error whatever its finish_reason: saved, it would replace
 * the history with nothing (a reasoning model that spends its whole output limit on thinking
 * answers `length` with no text at all).
 */
function finish(text: string, finishReason: string | null | undefined): SummaryResponse {
  if (text.trim().length === 0) {
    const why = finishReason === "length" ? ": the output limit was reached before any text" : "";
    return {
      text: "",
      stopReason: "error",
      errorMessage: `Model returned an empty reply (finish_reason ${finishReason}${why})`,
    };
  }
  if (finishReason === "length") return { text, stopReason: "length" };
  return { text, stopReason: "stop" };
}

function outputCap(config: OpenAiSummarizerConfig, tokens: number) {
  return config.maxTokensField === "max_completion_tokens"
    ? { max_completion_tokens: tokens }
    : { max_tokens: tokens };
}

function requestBody(config: OpenAiSummarizerConfig, request: SummaryRequest) {
  return {
    model: config.model,
    messages: [
      { role: "system" as const, content: request.systemPrompt },
      { role: "user" as const, content: request.prompt },
    ],
    ...outputCap(config, request.maxTokens),
    ...(config.reasoning && request.reasoning === "high" ? { reasoning_effort: "high" as const } : {}),
  };
}

export function createOpenAiSummarizer(config: OpenAiSummarizerConfig): Summarizer {
  const idleMs = config.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  // The SDK's timeout a little later than ours, whose words say more.
  const client = createClient(config, idleMs + SDK_TIMEOUT_MARGIN_MS);
  return {
    kind: "openai",
    label: `${config.model} at ${config.baseUrl}`,
    contextWindow: config.contextWindow,
    async summarize(request: SummaryRequest): Promise<SummaryResponse> {
      if (request.signal?.aborted) return ABORTED;
      const link = linkSignal(request.signal);
      const idle = watchIdle(link.signal, idleMs);
      const timedOut = (): SummaryResponse => ({ text: "", stopReason: "error", errorMessage: idle.message() });
      const body = requestBody(config, request);
      try {
        if (!config.stream) {
          const completion = await client.chat.completions.create(body, { signal: idle.signal });
          const choice = completion.choices[0];
          if (!choice) return { text: "", stopReason: "error", errorMessage: "Model returned no choices" };
          return finish(replyText(choice.message.content), choice.finish_reason);
        }
        const stream = await client.chat.completions.create(
          { ...body, stream: true },
          { signal: idle.signal },
        );
        let text = "";
        let finishReason: string | null | undefined;
        for await (const chunk of stream) {
          const choice = chunk.choices[0];
          const delta = replyText(choice?.delta?.content);
          idle.touch(Boolean(delta));
          if (delta) {
            text += delta;
            request.onText?.(text);
          }
          if (choice?.finish_reason) finishReason = choice.finish_reason;
        }
        // The SDK ends an aborted stream quietly, without throwing — and a cut-off one too.
        if (link.signal.aborted) return ABORTED;
        if (idle.timedOut()) return timedOut();
        if (!finishReason) return { text: "", stopReason: "error", errorMessage: STREAM_ENDED_EARLY };
        return finish(text, finishReason);
      } catch (error) {
        if (link.signal.aborted) return ABORTED;
        if (idle.timedOut()) return timedOut();
        if (error instanceof APIUserAbortError) return ABORTED;
        return {
          text: "",
          stopReason: "error",
          errorMessage: describeError(error, config),
        };
      } finally {
        idle.dispose();
        link.dispose();
      }
    },
  };
}

/**
 * For the settings screen: lists the endpoint's models; when the list is unavailable or does not
 * name the model, a 1-token completion decides. Never throws.
 */
export async function testConnection(
  config: OpenAiSummarizerConfig,
  signal?: AbortSignalLike,
): Promise<ConnectionTestResult> {
  const timeoutMs = config.timeoutMs ?? 15_000;
  const client = createClient(config, timeoutMs);
  const link = linkSignal(signal);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let listed: string[] | undefined;
  try {
    try {
      const page = await client.models.list({ signal: link.signal });
      listed = page.data.map((model) => model.id);
      if (listed.includes(config.model)) return { ok: true, model: config.model, latencyMs: elapsed() };
    } catch (error) {
      // Some servers have no model list (404/405); anything else (auth, network) is the answer.
      if (
        link.signal.aborted ||
        !(error instanceof APIError) ||
        ![404, 405, 501].includes(error.status ?? 0)
      ) {
        throw error;
      }
    }
    await client.chat.completions.create(
      {
        model: config.model,
        messages: [{ role: "user", content: "ping" }],
        ...outputCap(config, 1),
      },
      { signal: link.signal },
    );
    return { ok: true, model: config.model, latencyMs: elapsed() };
  } catch (error) {
    if (link.signal.aborted || error instanceof APIUserAbortError) return { ok: false, message: "Cancelled" };
    const available =
      listed && listed.length > 0 ? ` (the endpoint lists: ${listed.slice(0, 10).join(", ")})` : "";
    return { ok: false, message: `${describeError(error, config, timeoutMs)}${available}` };
  } finally {
    link.dispose();
  }
}

/** Whether an error is the SDK's "the caller aborted" error (chat-client uses it; only this file imports openai). */
export function isUserAbortError(error: unknown): boolean {
  return error instanceof APIUserAbortError;
}
