/**
 * Automatic compaction (SPEC §9.3–9.4 with D12, D17): after a reply, prune, then compact on a
 * context overflow (and retry the turn) or past the threshold (and auto-continue). Candidate
 * models are the current one first, then the fallbacks, with retries of transient failures.
 * The conversation itself (issue: chat turn) is reached through the AgentPort.
 */
import { prepareCompaction } from "../../core/compaction/prepare.ts";
import { compact } from "../../core/compaction/summarize.ts";
import { calculateContextTokens, shouldCompact } from "../../core/compaction/tokens.ts";
import type { CompactionResult, SummaryCutOff } from "../../core/compaction/types.ts";
import type { AssistantMessage, MessageEntry, SessionEntry } from "../../core/session/entries.ts";
import type { ModelSettings } from "../../core/settings/schema.ts";
import { contextTemplatesFrom, summaryPromptsFrom } from "../../prompts/index.ts";
import type { AppContext } from "../api/types.ts";
import { notFound } from "../api/errors.ts";
import { effectiveViewLeaf, requireSession, setViewLeaf } from "../library/load.ts";
import { isContextOverflow } from "../llm/overflow.ts";
import { orderCandidateModels, runWithCandidates } from "../llm/retry.ts";
import { compactionSettingsOf, loadSettings } from "../settings/store.ts";
import { getEntryRowById } from "../store/repos/entries.ts";
import { loadCompactionTail } from "./compaction-tail.ts";
import { isAbortError } from "./errors.ts";
import { checkHookCompaction } from "./hook-compaction.ts";
import { type Job, withAttemptSignal } from "./jobs.ts";
import { appendCompaction, untilWritable } from "./persist.ts";
import { applyPrune } from "./pruning.ts";
import { loadSessionState, loadViewState, type RunTarget, type SessionState } from "./session-state.ts";
import { modelSummarizer, summarizersFor } from "./summarizers.ts";

export const AUTO_CONTINUE_PROMPT = "Continue if you have next steps.";
export const CONTINUE_DELAY_MS = 100;

/** What automatic compaction needs from the running conversation. */
export interface AgentPort {
  /** Resends the context from the view leaf (no new user message). */
  continue(): Promise<void> | void;
  /** Sends a synthetic user message (the auto-continue prompt). */
  prompt(text: string, options: { synthetic: true }): Promise<void> | void;
  /** Whether steering/follow-up/custom messages wait to be delivered. */
  hasQueuedMessages(): boolean;
}

export type AutoReason = "threshold" | "overflow";

export interface AutoCheckInput {
  sessionId: string;
  /** The assistant reply that just finished (or the last one, before a prompt). */
  assistant: AssistantMessage;
  /** §9.3: true after a run (aborted replies are skipped), false before a user prompt. */
  skipAborted?: boolean;
  agent: AgentPort;
  /** The job of the conversation this check runs in (a chat turn): compaction runs inside it. */
  job?: Job | undefined;
}

export interface AutoOutcome {
  ran: AutoReason | null;
  prunedTokens: number;
  entryId: string | null;
  errorMessage?: string;
  aborted?: boolean;
  /** done: the summary calls that stopped at the output limit (told, never stored). */
  cutOff?: SummaryCutOff[];
}

function sameModel(message: AssistantMessage, model: ModelSettings | null): boolean {
  return model !== null && message.model === model.id;
}

/** D12: a reply older than the latest compaction on the path says nothing about the current context. */
function olderThanLatestCompaction(message: AssistantMessage, state: Pick<SessionState, "path">): boolean {
  const latest = [...state.path].reverse().find((entry) => entry.type === "compaction");
  if (!latest) return false;
  const at = Date.parse(latest.timestamp);
  return Number.isFinite(at) && typeof message.timestamp === "number" && message.timestamp < at;
}

/** §9.3 checkCompaction. Resolves when any compaction it started has ended. */
export async function checkCompaction(ctx: AppContext, input: AutoCheckInput): Promise<AutoOutcome> {
  const settings = loadSettings(ctx.db);
  const none: AutoOutcome = { ran: null, prunedTokens: 0, entryId: null };
  if (!settings.compaction.enabled) return none;
  // The reply is saved; the prune after it waits for another process's write as the save did.
  // Cancelled meanwhile (the turn's abort): the turn ends, its prune with it.
  const turnSignal = input.job?.controller.signal;
  await untilWritable(ctx, turnSignal);
  if (turnSignal?.aborted) return none;
  const pruned = applyPrune(ctx, input.sessionId);
  const outcome = { ...none, prunedTokens: pruned.tokensSaved };
  const { assistant } = input;
  if ((input.skipAborted ?? true) && assistant.stopReason === "aborted") return outcome;
  const model = settings.model;
  const contextWindow = model?.contextWindow ?? 0;
  // The view leaf's reduced path (context-path.ts) keeps every compaction of the full path.
  if (olderThanLatestCompaction(assistant, loadViewState(ctx.db, input.sessionId))) return outcome;
  if (sameModel(assistant, model) && isContextOverflow(assistant, contextWindow)) {
    return { ...(await runAutoCompaction(ctx, input, "overflow", true)), prunedTokens: outcome.prunedTokens };
  }
  if (assistant.stopReason === "error") return outcome;
  // §13.16: an unknown window (0) would make every reply cross the threshold.
  if (contextWindow <= 0) return outcome;
  const contextTokens = Math.max(0, calculateContextTokens(assistant.usage) - pruned.tokensSaved);
  if (shouldCompact(contextTokens, contextWindow, settings.compaction)) {
    return { ...(await runAutoCompaction(ctx, input, "threshold", false)), prunedTokens: outcome.prunedTokens };
  }
  return outcome;
}

/**
 * The failed reply leaves the active state (it stays in the library, on its own branch): when
 * the view leaf is an assistant reply that ended in an error, the view moves to its parent.
 * Only the view leaf is read.
 */
function dropFailedReply(ctx: AppContext, sessionId: string): void {
  const row = requireSession(ctx.db, sessionId);
  const leafId = effectiveViewLeaf(row);
  if (leafId === null) return;
  const stored = getEntryRowById(ctx.db, row.sid, leafId);
  if (!stored) throw notFound(`Session ${sessionId} has no entry ${leafId}`);
  const last = JSON.parse(stored.json) as SessionEntry;
  const message = last.type === "message" ? (last as MessageEntry).message : undefined;
  if (message?.role !== "assistant" || message.stopReason !== "error") return;
  setViewLeaf(ctx.db, sessionId, last.parentId);
  ctx.events.emit("session:changed", { sessionId, viewLeafId: last.parentId });
}

/** The view leaf's path a run plans on, and what it appends to. */
interface RunPath {
  target: RunTarget;
  path: SessionEntry[];
  tokens: ReadonlyMap<SessionEntry, number>;
  /** The whole session: loaded only for a session_before_compact hook (it gets the full path). */
  whole?: SessionState;
}

/** The path's tail from the window start (compaction-tail.ts), or the whole session for a hook. */
function loadRunPath(ctx: AppContext, sessionId: string): RunPath {
  if (!ctx.hooks.has("session_before_compact")) {
    const tail = loadCompactionTail(ctx.db, sessionId);
    if (tail !== null) return { target: tail, path: tail.path, tokens: tail.tokens };
  }
  const state = loadSessionState(ctx.db, sessionId);
  return { target: state, path: state.path, tokens: state.tokens, whole: state };
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** §9.4 runAutoCompaction. Never throws: the outcome and the events say what happened. */
export async function runAutoCompaction(
  ctx: AppContext,
  input: AutoCheckInput,
  reason: AutoReason,
  willRetry: boolean,
): Promise<AutoOutcome> {
  const { sessionId } = input;
  await ctx.hooksReady;
  // The turn's job lists what its windows are told, for a window that opens meanwhile (job:list).
  const chatJob = input.job;
  if (chatJob) chatJob.autoCompaction = { reason, status: "running", entryId: null };
  ctx.events.emit("compaction:auto-started", { sessionId, reason });
  const end = (
    entryId: string | null,
    aborted: boolean,
    retry: boolean,
    errorMessage?: string,
    cutOff?: SummaryCutOff[],
  ): AutoOutcome => {
    // What only some endings have: why it failed, which summary calls were cut off.
    const told = {
      ...(errorMessage === undefined ? {} : { errorMessage }),
      ...(cutOff && cutOff.length > 0 ? { cutOff } : {}),
    };
    if (chatJob) {
      const status = errorMessage ? "failed" : aborted ? "aborted" : "done";
      chatJob.autoCompaction = { reason, status, entryId, ...told };
      // The turn's request goes out again from here (job:list counts its wait from then).
      chatJob.requestAt = Date.now();
    }
    ctx.events.emit("compaction:auto-ended", {
      sessionId,
      reason,
      entryId,
      aborted,
      willRetry: retry,
      ...told,
    });
    return { ran: reason, prunedTokens: 0, entryId, aborted, ...told };
  };
  ctx.jobs.abort(sessionId, "compaction");
  let job: Job;
  try {
    job = ctx.jobs.start(sessionId, "compaction", { within: input.job });
  } catch (error) {
    return end(null, false, false, failureText(reason, error));
  }
  const signal = job.controller.signal;
  try {
    const settings = loadSettings(ctx.db);
    if (reason === "overflow") dropFailedReply(ctx, sessionId);
    const on = loadRunPath(ctx, sessionId);
    const preparation = prepareCompaction(on.path, compactionSettingsOf(settings), {
      tokensOf: (entry) => on.tokens.get(entry),
    });
    if (!preparation || on.target.leafId === null) return end(null, false, false);

    const before = await ctx.hooks.runBefore("session_before_compact", {
      sessionId,
      preparation,
      // Only a registered hook reads this, and then the whole session was loaded.
      branchEntries: on.whole?.path ?? on.path,
      customInstructions: undefined,
      signal,
    });
    if (before?.cancel) return end(null, true, false);
    let result: CompactionResult;
    let fromExtension = false;
    const hookCompaction = before?.compaction;
    const checked = hookCompaction ? checkHookCompaction(hookCompaction, on.whole ?? { path: on.path, leafId: on.target.leafId }) : undefined;
    if (checked && !checked.ok) {
      // D11: an invalid hook result is reported and the default compaction runs instead.
      ctx.hooks.report({
        extension: "(hook)",
        event: "session_before_compact",
        message: `${checked.problem}; ignored`,
      });
    }
    if (checked?.ok) {
      result = checked.result;
      fromExtension = true;
    } else {
      const compacting = await ctx.hooks.runCompacting({
        sessionId,
        messages: [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages],
      }, signal);
      const remote = summarizersFor(settings, ctx.secrets).remote;
      const models = orderCandidateModels(settings.model, settings.fallbackModels);
      const candidates = (models.length > 0 ? models : [null]).map((model) => ({
        id: model ? `${model.baseUrl}|${model.id}` : "offline",
        run: () =>
          withAttemptSignal(signal, (attemptSignal) =>
            compact(preparation, {
              summarizer: modelSummarizer(model, ctx.secrets),
              remote,
              prompts: summaryPromptsFrom(ctx.prompts),
              templates: contextTemplatesFrom(ctx.prompts),
              signal: attemptSignal,
              promptOverride: compacting?.prompt,
              extraContext: compacting?.context,
            }),
          ),
      }));
      result = await runWithCandidates(candidates, settings.retry, signal, {
        onRetryStart: (event) => ctx.events.emit("compaction:retry-started", { sessionId, ...event }),
        onRetryEnd: (event) => ctx.events.emit("compaction:retry-ended", { sessionId, ...event }),
      });
      if (compacting?.preserveData) result = { ...result, preserveData: compacting.preserveData };
    }
    // After a re-import of a rewritten file on the runner's thread (write-gate.ts), or another
    // process's write (untilWritable), cancellable meanwhile.
    await untilWritable(ctx, signal);
    if (signal.aborted) return end(null, true, false);

    const entry = appendCompaction(ctx, on.target, result, fromExtension, true);
    await ctx.hooks.notify("session_compact", { sessionId, compactionEntry: entry, fromExtension }, signal);
    const outcome = end(entry.id, false, willRetry, undefined, result.cutOff);
    ctx.jobs.finish(job);
    await afterCompaction(input, reason, settings.compaction.autoContinue);
    return outcome;
  } catch (error) {
    if (signal.aborted || isAbortError(error)) return end(null, true, false);
    return end(null, false, false, failureText(reason, error));
  } finally {
    ctx.jobs.finish(job);
  }
}

function failureText(reason: AutoReason, error: unknown): string {
  const message = error instanceof Error ? error.message : "compaction failed";
  return reason === "overflow" ? `Context overflow recovery failed: ${message}` : `Auto-compaction failed: ${message}`;
}

/** §9.4 steps 8–9: auto-continue after a threshold compaction; retry the turn after an overflow. */
async function afterCompaction(input: AutoCheckInput, reason: AutoReason, autoContinue: boolean) {
  if (reason === "threshold" && autoContinue) {
    await input.agent.prompt(AUTO_CONTINUE_PROMPT, { synthetic: true });
    return;
  }
  if (reason === "overflow" || input.agent.hasQueuedMessages()) {
    await wait(CONTINUE_DELAY_MS);
    await input.agent.continue();
  }
}
