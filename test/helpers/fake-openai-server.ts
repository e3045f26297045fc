/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: chat completions (JSON and SSE),
 * the model list and a remote-compaction route, each answering from a scripted queue of
 * behaviours (replies, streams, errors, delays, malformed bodies, no answer at all). Records
 * every request; optionally refuses tool messages that break OpenAI's rule.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeRoute = "chat" | "models" | "remote";

/** Only requests whose JSON body this accepts take the behaviour (others skip past it). */
export type RequestMatcher = (body: Record<string, unknown>) => boolean;

export type FakeBehaviour = (

  /** A completion: `text` (split into a few SSE chunks when streaming) or explicit `chunks`. */
  | {
      type: "reply";
      route?: "chat";
      text?: string;
      chunks?: string[];
      finishReason?: "stop" | "length" | "tool_calls" | "content_filter" | null;
      chunkDelayMs?: number;
      /**
       * Streaming only: the chunks after the first wait until this settles, so a test can see
       * the reply's start on screen before the rest comes (a fixed pause raced a loaded machine).
       */
      holdRest?: Promise<unknown>;
      /** Delay before the status line (a slow server, to test aborts). */
      headersDelayMs?: number;
      /**
       * After this many content chunks nothing more is sent and the connection stays open (0: the
       * headers and the role chunk only — a model that never sends a token; not streaming: the
       * headers and no body).
       */
      stallAfterChunks?: number;
      /** Streaming only: destroy the connection after this many content chunks. */
      dropAfterChunks?: number;
      /**
       * Streaming only: end the response cleanly after this many content chunks — no
       * finish_reason, no usage, no `[DONE]` (a proxy or server that closes a reply part-way).
       */
      endAfterChunks?: number;
      /** Streaming only: finish_reason and usage as usual, but no closing `data: [DONE]`. */
      omitDone?: boolean;
      /** Streaming only: after this many content chunks, an SSE `error` event ends the stream (a mid-stream failure). */
      streamError?: { afterChunks: number; message: string };
      /** `null`: the reply carries no usage at all (servers that ignore include_usage). */
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
      /** Reasoning sent as `reasoning_content` (before the text when streaming). */
      reasoning?: string;
      /** Tool calls in the reply (the model asks for tools Canopy never offered). */
      toolCalls?: { id: string; name: string; arguments: string }[];
    }
  /** An HTTP error with a JSON (object) or raw (string) body and extra headers. */
  | {
      type: "error";
      route?: FakeRoute;
      status: number;
      body?: string | Record<string, unknown>;
      headers?: Record<string, string>;
      headersDelayMs?: number;
    }
  /** 200 with a body that is not valid JSON (or an SSE stream with a broken data line). */
  | { type: "malformed"; route?: FakeRoute; body?: string }
  /** Remote endpoint reply: any JSON payload (e.g. `{summary}` or `{}`). */
  | { type: "remote"; route?: "remote"; payload: unknown; headersDelayMs?: number }
  /** Model list reply (`headersDelayMs`: a slow server). */
  | { type: "models"; route?: "models"; ids: string[]; headersDelayMs?: number }
  /** Never answers: the request stays open until the client goes away or the server closes. */
  | { type: "hang"; route: FakeRoute }
) & { match?: RequestMatcher };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** True when the client went away before the response was complete (an abort). */
  clientClosed: boolean;
}

export interface FakeServer {
  url: string;
  baseUrl: string;
  requests: RecordedRequest[];
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** Behaviours not consumed yet, per route. */
  pending(route?: FakeRoute): number;
  close(): Promise<void>;
}

export interface FakeServerOptions {
  /** Model ids of `GET /v1/models` when no behaviour is queued. */
  models?: string[];
  /** Reply text when the chat queue is empty. */
  defaultText?: string;
  /**
   * Refuse (400, OpenAI's wording) a chat request whose tool messages do not answer the
   * preceding assistant's `tool_calls` one for one, as api.openai.com does.
   */
  strictToolMessages?: boolean;
}

/** OpenAI's rule for tool messages; the error text it answers with, or null when they are valid. */
export function toolMessageProblem(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  let open: Set<string> | null = null;
  for (const raw of messages) {
    const message = (raw ?? {}) as { role?: unknown; tool_call_id?: unknown; tool_calls?: unknown };
    if (message.role === "tool") {
      const id = typeof message.tool_call_id === "string" ? message.tool_call_id : "";
      if (!open?.delete(id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      continue;
    }
    if (open && open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`;
    }
    const calls = message.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    open = new Set(calls.map((call: unknown) => String((call as { id?: unknown } | null)?.id ?? "")));
  }
  return open && open.size > 0
    ? `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`
    : null;
}

/** Known overflow texts, as providers word them (SPEC §9.3). */
export const OVERFLOW_ERRORS = {
  anthropic: "prompt is too long: 213462 tokens > 200000 maximum",
  openai:
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
  llamaCpp: "the request exceeds the available context size, try increasing it",
  code: "context_length_exceeded",
} as const;

function routeOf(method: string, path: string): FakeRoute | undefined {
  if (method === "POST" && path === "/v1/chat/completions") return "chat";
  if (method === "GET" && path === "/v1/models") return "models";
  if (method === "POST" && path === "/remote") return "remote";
  return undefined;
}

/** Splits a text into up to four chunks so streaming shows growth. */
function splitText(text: string): string[] {
  if (text.length < 4) return [text];
  const size = Math.ceil(text.length / 4);
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
  return parts;
}

export async function startFakeOpenAiServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const queues: Record<FakeRoute, FakeBehaviour[]> = { chat: [], models: [], remote: [] };
  const requests: RecordedRequest[] = [];
  /** Pending delays: close() clears their timers and resolves them with false. */
  const waits = new Map<NodeJS.Timeout, (alive: boolean) => void>();
  let closed = false;

  /** A delay that close() cancels, so nothing outlives the server. Resolves false when closed. */
  const wait = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (ms <= 0 || closed) {
        resolve(!closed);
        return;
      }
      const timer = setTimeout(() => {
        waits.delete(timer);
        resolve(!closed);
      }, ms);
      waits.set(timer, resolve);
    });

  const sendJson = (
    res: ServerResponse,
    status: number,
    payload: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(payload));
  };

  const completion = (
    model: string,
    message: Record<string, unknown>,
    finishReason: string | null,
    usage: object | undefined,
  ) => ({
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  });

  const chunk = (model: string, delta: object, finishReason: string | null) => ({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  async function answerChat(res: ServerResponse, body: Record<string, unknown>, behaviour: FakeBehaviour) {
    const model = typeof body.model === "string" ? body.model : "fake-model";
    const streaming = body.stream === true;
    if (behaviour.type === "malformed") {
      if (streaming) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`data: ${behaviour.body ?? "{not json"}\n\n`);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(behaviour.body ?? "{not json");
      }
      return;
    }
    if (behaviour.type !== "reply") return;
    const text = behaviour.text ?? behaviour.chunks?.join("") ?? "";
    const finish = behaviour.finishReason === undefined ? "stop" : behaviour.finishReason;
    const usage =
      behaviour.usage === null
        ? undefined
        : (behaviour.usage ?? { prompt_tokens: 42, completion_tokens: Math.ceil(text.length / 4) });
    const fullUsage = usage && { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const toolCalls = behaviour.toolCalls?.map((call, index) => ({
      index,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
    if (!streaming && behaviour.stallAfterChunks !== undefined) {
      // The status line and headers, then no body at all.
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      return;
    }
    if (!streaming) {
      const message = {
        content: text === "" && toolCalls ? null : text,
        ...(behaviour.reasoning ? { reasoning_content: behaviour.reasoning } : {}),
        ...(toolCalls ? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) } : {}),
      };
      sendJson(res, 200, completion(model, message, finish, fullUsage));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const write = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    write(chunk(model, { role: "assistant", content: "" }, null));
    if (behaviour.reasoning) write(chunk(model, { reasoning_content: behaviour.reasoning }, null));
    const parts = behaviour.chunks ?? splitText(text);
    for (const [index, part] of parts.entries()) {
      if (behaviour.dropAfterChunks !== undefined && index >= behaviour.dropAfterChunks) {
        res.destroy();
        return;
      }
      if (behaviour.endAfterChunks !== undefined && index >= behaviour.endAfterChunks) {
        res.end();
        return;
      }
      if (behaviour.stallAfterChunks !== undefined && index >= behaviour.stallAfterChunks) return;
      if (index === 1 && behaviour.holdRest) await behaviour.holdRest;
      if (index > 0 && !(await wait(behaviour.chunkDelayMs ?? 0))) return;
      if (res.destroyed) return;
      if (behaviour.streamError !== undefined && index >= behaviour.streamError.afterChunks) {
        write({ error: { message: behaviour.streamError.message, type: "server_error" } });
        res.end();
        return;
      }
      if (part !== "") write(chunk(model, { content: part }, null));
    }
    // As OpenAI streams them: id and name first, then the arguments in fragments, by index.
    for (const call of toolCalls ?? []) {
      const { arguments: args, ...head } = call.function;
      write(chunk(model, { tool_calls: [{ ...call, function: { ...head, arguments: "" } }] }, null));
      for (const piece of splitText(args)) {
        write(chunk(model, { tool_calls: [{ index: call.index, function: { arguments: piece } }] }, null));
      }
    }
    write(chunk(model, {}, finish));
    if (fullUsage) {
      write({
        id: "chatcmpl-fake",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model,
        choices: [],
        usage: fullUsage,
      });
    }
    res.end(behaviour.omitDone ? undefined : "data: [DONE]\n\n");
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const piece of req) chunks.push(piece as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      headers: req.headers,
      body,
      clientClosed: false,
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.clientClosed = true;
    });

    const route = routeOf(record.method, record.path);
    if (!route) {
      sendJson(res, 404, {
        error: { message: `no route ${record.method} ${record.path}`, type: "not_found" },
      });
      return;
    }
    const requestBody = body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
    const problem = route === "chat" && options.strictToolMessages ? toolMessageProblem(requestBody.messages) : null;
    if (problem !== null) {
      sendJson(res, 400, {
        error: { message: problem, type: "invalid_request_error", param: "messages", code: null },
      });
      return;
    }
    const queue = queues[route];
    const index = queue.findIndex((candidate) => candidate.match === undefined || candidate.match(requestBody));
    const behaviour = (index >= 0 ? queue.splice(index, 1)[0] : undefined) ?? defaultBehaviour(route);
    if (behaviour.type === "hang") {
      await new Promise<void>((resolve) => res.on("close", () => resolve()));
      return;
    }
    const delay = "headersDelayMs" in behaviour ? (behaviour.headersDelayMs ?? 0) : 0;
    if (!(await wait(delay)) || res.destroyed) return;

    if (behaviour.type === "error") {
      const payload = behaviour.body ?? "";
      res.writeHead(behaviour.status, {
        "content-type": typeof payload === "string" ? "text/plain" : "application/json",
        ...behaviour.headers,
      });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
      return;
    }
    if (route === "chat") {
      await answerChat(res, requestBody, behaviour);
    } else if (behaviour.type === "malformed") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(behaviour.body ?? "{not json");
    } else if (behaviour.type === "models") {
      sendJson(res, 200, {
        object: "list",
        data: behaviour.ids.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })),
      });
    } else if (behaviour.type === "remote") {
      sendJson(res, 200, behaviour.payload);
    }
  }

  function defaultBehaviour(route: FakeRoute): FakeBehaviour {
    if (route === "models") return { type: "models", ids: options.models ?? ["fake-model"] };
    if (route === "remote") return { type: "remote", payload: { summary: "Remote summary." } };
    return { type: "reply", text: options.defaultText ?? "Fake summary." };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    enqueue(...behaviours) {
      for (const behaviour of behaviours) {
        const route: FakeRoute =
          behaviour.route ??
          (behaviour.type === "models" ? "models" : behaviour.type === "remote" ? "remote" : "chat");
        queues[route].push(behaviour);
      }
    },
    pending(route) {
      return route ? queues[route].length : queues.chat.length + queues.models.length + queues.remote.length;
    },
    async close() {
      closed = true;
      for (const [timer, resolve] of waits) {
        clearTimeout(timer);
        resolve(false);
      }
      waits.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Short name used by the tests. */
/**
 * A raw answer body with `content` where OpenAI's format has the reply's text (for a "malformed"
 * behaviour): one stream chunk (`stream`) or a whole completion.
 */
export function replyBodyWithContent(stream: boolean, content: unknown): string {
  const common = { id: "x", created: 1, model: "fake-model" };
  return JSON.stringify(
    stream
      ? {
          ...common,
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: { content }, finish_reason: "stop" }],
        }
      : {
          ...common,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        },
  );
}

export const start = startFakeOpenAiServer;
