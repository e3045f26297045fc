/**
 * The chat turn (D17): continue a session from its view leaf with the configured model, no tools.
 * The LLM view plus the new user message go to the endpoint; when the reply ends, both are
 * appended as the agents write them, then the automatic check (§9.3) runs with this flow as its
 * AgentPort. A transient failure is retried as the agents do (`retry.*`). An aborted reply
 * appends nothing: the user message is only written with its reply.
 * "Continue from here" asks for the reply to the user message already at the view leaf.
 */
import type { ChatTurnResultDto } from "../../core/api/dto-app.ts";
import { entryText, flatten } from "../../core/session/describe.ts";
import type { AssistantMessage, MessageEntry, SessionEntry, UserMessage } from "../../core/session/entries.ts";
import { buildLlmView } from "../../core/session/llm-view.ts";
import type { ModelSettings, Settings } from "../../core/settings/schema.ts";
import { contextTemplatesFrom } from "../../prompts/index.ts";
import { ApiFailure } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { resolveSessionBlobImages } from "../llm/blob-images.ts";
import { type ChatReply, completeChat, usageFrom } from "../llm/chat-client.ts";
import { toOpenAiMessages } from "../llm/chat-messages.ts";
import { CHAT_API, chatTargetOf } from "../llm/chat-target.ts";
import { isContextOverflow } from "../llm/overflow.ts";
import { toolNames } from "../llm/tool-calls.ts";
import { isAbortError, isRetryableError, parseRetryAfterHint, runWithCandidates } from "../llm/retry.ts";
import { effectiveViewLeaf } from "../library/load.ts";
import { loadSettings } from "../settings/store.ts";
import { getEntryRowById } from "../store/repos/entries.ts";
import { getSessionRow } from "../store/repos/sessions.ts";
import { type AgentPort, type AutoOutcome, checkCompaction } from "./auto-compaction.ts";
import type { Job } from "./jobs.ts";
import { appendMessageChain, untilWritable } from "./persist.ts";
import { pacedText } from "./progress-pace.ts";
import { loadViewState } from "./session-state.ts";
import { keyConfigFor, timeoutMsOf } from "./summarizers.ts";

export const NO_MODEL_MESSAGE =
  "No model configured: set one in Settings (the offline summarizer cannot chat)";
export const CHAT_CANCELLED = "Chat turn cancelled";
export const NOT_A_USER_LEAF =
  "is not a user message: Continue from here answers the user message at the view leaf (send a new message instead)";
export function userMessage(text: string, synthetic = false): UserMessage {
  return {
    role: "user",
    content: [{ type: "text", text }],
    timestamp: Date.now(),
    ...(synthetic ? { synthetic: true } : {}),
  };
}

interface Flow {
  ctx: AppContext;
  sessionId: string;
  model: ModelSettings;
  job: Job;
  appended: string[];
  userEntryId?: string;
  last?: MessageEntry & { message: AssistantMessage };
  auto?: NonNullable<ChatTurnResultDto["autoCompaction"]>;
  /** Checks started so far, and which one `auto` came from (a nested check ends before its parent). */
  checks: number;
  autoCheck: number;
  /** The port's one auto-continue prompt and one retry per call have been used. */
  continued: boolean;
  retried: boolean;
  /** Tools replies with text asked for (Canopy runs none; the calls are kept in the replies). */
  toolCallsNotRun: string[];
  /** An unexpected failure inside a port call (kept so auto-compaction does not report it as its own). */
  failure?: unknown;
}

/**
 * Keeps the latest compaction of the call. `mark`: how many entries were appended when the check
 * started (its compaction precedes what a nested turn appended); `check`: the check's number.
 */
function recordAuto(flow: Flow, outcome: AutoOutcome, mark: number, check: number): void {
  if (!outcome.ran) return;
  if (outcome.entryId) flow.appended.splice(mark, 0, outcome.entryId);
  if (flow.auto && flow.autoCheck > check) return;
  flow.autoCheck = check;
  flow.auto = {
    reason: outcome.ran,
    entryId: outcome.entryId,
    aborted: outcome.aborted === true,
    ...(outcome.errorMessage === undefined ? {} : { errorMessage: outcome.errorMessage }),
    ...(outcome.cutOff === undefined ? {} : { cutOff: outcome.cutOff }),
  };
}

/** The port for the automatic check after a reply: the conversation goes on in this flow. */
function portOf(flow: Flow): AgentPort {
  const guarded = async (step: () => Promise<void>) => {
    try {
      await step();
    } catch (error) {
      flow.failure ??= error;
    }
  };
  return {
    prompt: (text) => {
      if (flow.continued) return;
      flow.continued = true;
      return guarded(() => turn(flow, userMessage(text, true)));
    },
    continue: () => {
      if (flow.retried) return;
      flow.retried = true;
      return guarded(() => turn(flow, null));
    },
    hasQueuedMessages: () => false,
  };
}

/**
 * §9.3 (b), before a user prompt: the last reply on the path is checked (aborted ones too).
 * The prompt follows right away, so this port neither auto-continues nor retries.
 */
async function checkBeforePrompt(flow: Flow): Promise<void> {
  const state = loadViewState(flow.ctx.db, flow.sessionId);
  const last = [...state.path]
    .reverse()
    .find((entry) => entry.type === "message" && (entry as MessageEntry).message.role === "assistant");
  if (!last) return;
  const quiet: AgentPort = {
    prompt: () => undefined,
    continue: () => undefined,
    hasQueuedMessages: () => false,
  };
  const mark = flow.appended.length;
  const check = ++flow.checks;
  const outcome = await checkCompaction(flow.ctx, {
    sessionId: flow.sessionId,
    assistant: (last as MessageEntry).message as AssistantMessage,
    skipAborted: false,
    agent: quiet,
    job: flow.job,
  });
  recordAuto(flow, outcome, mark, check);
}

/** A reply that failed with a transient error, thrown so that the retry loop sends the request again. */
class TransientReply extends Error {
  readonly reply: ChatReply;
  constructor(reply: ChatReply) {
    super(reply.errorMessage ?? "error");
    this.reply = reply;
  }
}

/**
 * The agents' generic retry (§9.7 auto_retry_*, §10.1 `retry.*`): a reply that failed with a
 * transient error (429, 5xx, connection errors, or one carrying a retry-after hint) is requested
 * again after the backoff, up to `retry.maxRetries` times; only the last attempt's reply is kept.
 * Overflow errors are never retried here (they go to compaction). An abort while waiting gives
 * an aborted reply, so nothing is appended.
 */
async function requestWithRetries(flow: Flow, request: () => Promise<ChatReply>): Promise<ChatReply> {
  const { ctx, sessionId, model, job } = flow;
  const signal = job.controller.signal;
  const transient = (reply: ChatReply) =>
    reply.stopReason === "error" &&
    !isContextOverflow(reply, model.contextWindow) &&
    (isRetryableError(reply.errorMessage ?? "") || parseRetryAfterHint(reply.errorMessage ?? "", Date.now()) !== undefined);
  try {
    return await runWithCandidates(
      [
        {
          id: "chat",
          run: async () => {
            const reply = await request();
            if (transient(reply)) throw new TransientReply(reply);
            return reply;
          },
        },
      ],
      loadSettings(ctx.db).retry,
      signal,
      {
        onRetryStart: (event) => {
          // The next attempt streams its reply from the start (windows clear theirs on this event).
          job.text = "";
          job.requestAt = Date.now() + event.delayMs;
          ctx.events.emit("chat:retry-started", { sessionId, ...event });
        },
        onRetryEnd: (event) => ctx.events.emit("chat:retry-ended", { sessionId, ...event }),
      },
    );
  } catch (error) {
    if (error instanceof TransientReply) return error.reply;
    if (signal.aborted || isAbortError(error)) return { text: "", thinking: "", toolCalls: [], stopReason: "aborted", usage: usageFrom(undefined) };
    throw error;
  }
}

/** One request: with `prompt`, a new user message; without, the context is resent (a retry). */
async function turn(flow: Flow, prompt: UserMessage | null): Promise<void> {
  const { ctx, sessionId, model, job } = flow;
  const signal = job.controller.signal;
  if (prompt && !prompt.synthetic) await checkBeforePrompt(flow);
  if (signal.aborted) return;
  const state = loadViewState(ctx.db, sessionId);
  const view = buildLlmView(state.entries, state.leafId, contextTemplatesFrom(ctx.prompts), state.index);
  // The same target the LLM view annotates its request for (context:get).
  const target = chatTargetOf(model);
  // Images the agent keeps in its blob store are sent as the agent would send them (SPEC §1.7).
  const sent = resolveSessionBlobImages(ctx.db, sessionId, view.messages);
  const { blockImages } = loadSettings(ctx.db).images;
  const messages = toOpenAiMessages(prompt ? [...sent, prompt] : sent, target, { blockImages });
  let startedAt = Date.now();
  const reply = await requestWithRetries(flow, async () => {
    // The reply is the last attempt's: its timestamp and duration are that request's.
    startedAt = Date.now();
    // Each event carries the whole reply so far: paced, not one per chunk. Each attempt has its
    // own pace, finished when it ends, so its whole text goes out before a retry (or the result).
    const paced = pacedText((text) => ctx.events.emit("chat:progressed", { jobId: job.id, sessionId, text }));
    try {
      return await completeChat(
        {
          baseUrl: model.baseUrl,
          ...keyConfigFor(model, ctx.secrets),
          model: model.id,
          contextWindow: model.contextWindow,
          stream: model.stream,
          timeoutMs: timeoutMsOf(model),
        },
        messages,
        signal,
        (text) => {
          job.text = text;
          paced.push(text);
        },
      );
    } finally {
      paced.finish();
    }
  });
  if (reply.stopReason === "aborted" || signal.aborted) return;

  const assistant: AssistantMessage = {
    role: "assistant",
    content: [
      ...(reply.thinking ? [{ type: "thinking" as const, thinking: reply.thinking }] : []),
      ...(reply.text ? [{ type: "text" as const, text: reply.text }] : []),
      // Kept as the agents store them; the next request answers them with "No result provided".
      ...reply.toolCalls,
    ],
    api: CHAT_API,
    provider: target.provider,
    model: model.id,
    usage: reply.usage,
    stopReason: reply.stopReason,
    ...(reply.errorMessage === undefined ? {} : { errorMessage: reply.errorMessage }),
    timestamp: startedAt,
    duration: Date.now() - startedAt,
    ...(reply.ttft === undefined ? {} : { ttft: reply.ttft }),
  };
  // While the runner's thread re-imports a rewritten file, or another process writes, its write
  // lock would hold this thread up, then fail the save (untilWritable). Cancelled meanwhile:
  // nothing is saved, as for a reply aborted while it came.
  await untilWritable(ctx, signal);
  if (signal.aborted) return;
  const { entries, followed } = appendMessageChain(ctx, state, prompt ? [prompt, assistant] : [assistant]);
  flow.appended.push(...entries.map((entry) => entry.id));
  if (prompt && !prompt.synthetic) flow.userEntryId = entries[0]?.id;
  const written = entries.at(-1);
  if (written) flow.last = { ...written, message: assistant };
  // A reply of tool calls only is an error that names them; one with text too is told here.
  if (reply.stopReason !== "error") flow.toolCallsNotRun.push(...toolNames(reply.toolCalls));
  // The user moved the view leaf during the reply: the conversation is no longer there.
  if (!followed) return;
  const mark = flow.appended.length;
  const check = ++flow.checks;
  recordAuto(
    flow,
    await checkCompaction(ctx, { sessionId, assistant, agent: portOf(flow), job }),
    mark,
    check,
  );
}

/**
 * A window no larger than the reserve puts every reply over the threshold (§4: contextTokens >
 * contextWindow − reserveTokens): each turn would end in a compaction and an automatic
 * "Continue", over and over. Refused with the settings that fix it instead.
 */
function windowProblem(settings: Settings, model: ModelSettings): string | null {
  const reserve = settings.compaction.reserveTokens;
  if (!settings.compaction.enabled || model.contextWindow > reserve) return null;
  return (
    `The model's context window (${model.contextWindow} tokens) is not larger than compaction.reserveTokens ` +
    `(${reserve}): every reply would start a compaction. Lower compaction.reserveTokens (for example to ` +
    `${Math.floor(model.contextWindow / 4)}), or set model.contextWindow to the model's real window`
  );
}

function newFlow(ctx: AppContext, sessionId: string, job: Job): Flow {
  const settings = loadSettings(ctx.db);
  const model = settings.model;
  if (!model) throw new ApiFailure("invalid_input", NO_MODEL_MESSAGE);
  const problem = windowProblem(settings, model);
  if (problem !== null) throw new ApiFailure("invalid_input", problem);
  return { ctx, sessionId, model, job, appended: [], toolCallsNotRun: [], checks: 0, autoCheck: 0, continued: false, retried: false };
}

function resultOf(flow: Flow): ChatTurnResultDto {
  if (flow.failure !== undefined) throw flow.failure;
  const last = flow.last;
  if (!flow.userEntryId || !last) throw new ApiFailure("cancelled", CHAT_CANCELLED);
  return {
    sessionId: flow.sessionId,
    userEntryId: flow.userEntryId,
    assistantEntryId: last.id,
    stopReason: last.message.stopReason ?? "stop",
    ...(last.message.errorMessage === undefined ? {} : { errorMessage: last.message.errorMessage }),
    appendedEntryIds: flow.appended,
    ...(flow.auto ? { autoCompaction: flow.auto } : {}),
    ...(flow.toolCallsNotRun.length > 0 ? { toolCallsNotRun: [...new Set(flow.toolCallsNotRun)] } : {}),
    cancelled: flow.job.controller.signal.aborted,
  };
}

/** `chat:send`: runs the turn and what the automatic check starts, inside `job`. */
export async function runChatTurn(
  ctx: AppContext,
  input: { sessionId: string; text: string },
  job: Job,
): Promise<ChatTurnResultDto> {
  await ctx.hooksReady;
  const flow = newFlow(ctx, input.sessionId, job);
  await turn(flow, userMessage(input.text));
  return resultOf(flow);
}

/**
 * What `chat:continue` answers, as every window shows it while the reply comes: the first 200
 * characters of the view leaf's text, as the canvas shows the entry ("" when there is none: the
 * turn itself then says what is wrong). One entry is read, never the session.
 */
export function answeredText(ctx: AppContext, sessionId: string): string {
  const row = getSessionRow(ctx.db, sessionId);
  const leafId = row && row.deleted_at === null ? effectiveViewLeaf(row) : null;
  const leaf = row && leafId !== null ? getEntryRowById(ctx.db, row.sid, leafId) : undefined;
  if (!leaf) return "";
  try {
    return flatten(entryText(JSON.parse(leaf.json) as SessionEntry), 200);
  } catch {
    // A malformed stored line: nothing to show (the turn reports it is not a user message).
    return "";
  }
}

/**
 * `chat:continue`: the reply to the user message at the view leaf, sent as the LLM view there
 * (no new user message), then the same automatic check as after any reply. Like the agents'
 * `continue()`, no check runs before the request: nothing new is prompted.
 */
export async function runContinueTurn(
  ctx: AppContext,
  input: { sessionId: string },
  job: Job,
): Promise<ChatTurnResultDto> {
  await ctx.hooksReady;
  const flow = newFlow(ctx, input.sessionId, job);
  const state = loadViewState(ctx.db, input.sessionId);
  const view = buildLlmView(state.entries, state.leafId, contextTemplatesFrom(ctx.prompts), state.index);
  const lastIndex = view.messages.length - 1;
  if (state.leafId === null || view.messages[lastIndex]?.role !== "user" || view.messageEntryIds[lastIndex] !== state.leafId) {
    throw new ApiFailure("invalid_input", `The view leaf ${state.leafId ?? "(none)"} ${NOT_A_USER_LEAF}`);
  }
  flow.userEntryId = state.leafId;
  await turn(flow, null);
  return resultOf(flow);
}
