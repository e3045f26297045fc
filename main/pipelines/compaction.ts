/**
 * Manual compaction from Canopy (SPEC §9.5 with D5–D11): a plan without any model call, then the
 * run — hooks, summary generation (abortable, streamed progress), and the compaction entry
 * appended in one transaction that first re-checks the leaf it planned on. The view leaf moves
 * to the new entry. Nothing is written into the agent's file.
 */
import type { CompactionPlanDto, CompactionRunResult, ShownPlan } from "../../core/api/dto.ts";
import { computeFileLists } from "../../core/compaction/file-ops.ts";
import { estimateTokens } from "../../core/compaction/tokens.ts";
import { planSettingsOf } from "../../core/compaction/plan-settings.ts";
import { compactionPlanReason, prepareCompaction } from "../../core/compaction/prepare.ts";
import { compact } from "../../core/compaction/summarize.ts";
import { SPLIT_TURN_SEPARATOR } from "../../core/compaction/summarize-compaction.ts";
import type { CompactionPreparation, CompactionResult, SummaryPurpose } from "../../core/compaction/types.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { contextTemplatesFrom, summaryPromptsFrom } from "../../prompts/index.ts";
import { ApiFailure, invalidInput } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { getViewLeaf } from "../library/load.ts";
import { compactionSettingsOf, loadSettings } from "../settings/store.ts";
import { summaryFailure } from "./errors.ts";
import { checkHookCompaction } from "./hook-compaction.ts";
import { hooksDone, hooksRunning, hookWroteSummary } from "./job-hooks.ts";
import { type Job, withAttemptSignal } from "./jobs.ts";
import { loadCompactionTail } from "./compaction-tail.ts";
import { appendCompaction, untilWritable } from "./persist.ts";
import { PROGRESS_INTERVAL_MS, type PacedText, pacedText } from "./progress-pace.ts";
import { loadSessionState, type RunTarget, type SessionState } from "./session-state.ts";
import { summarizersFor } from "./summarizers.ts";

export interface CompactionInput {
  sessionId: string;
  leafId?: string | undefined;
  customInstructions?: string | undefined;
  keepRecentTokens?: number | undefined;
  /** The plan the window showed: a run that would plan otherwise is refused before anything runs. */
  shown?: ShownPlan | undefined;
}

/** Refuses ("stale_plan") a run whose plan is not the one its window showed. */
export function checkShownPlan(plan: CompactionPlanDto, shown: ShownPlan | undefined): void {
  if (shown === undefined) return;
  if (plan.leafId === shown.leafId && plan.firstKeptEntryId === shown.firstKeptEntryId) return;
  throw new ApiFailure(
    "stale_plan",
    `The plan shown is out of date (the session or the settings changed): it would now keep from ${plan.firstKeptEntryId}, so nothing was run`,
  );
}

interface Planned {
  state: SessionState;
  preparation: CompactionPreparation;
  plan: CompactionPlanDto;
}

interface PlannedRun extends Omit<Planned, "state"> {
  target: RunTarget;
  /** The whole session, loaded only when a session_before_compact hook is registered. */
  whole?: SessionState;
}

/** The leaf's path (whole, or a tail from at or before the window) and what was read with it. */
interface PlanInput {
  sessionId: string;
  leafId: string | null;
  path: readonly SessionEntry[];
  tokens: ReadonlyMap<SessionEntry, number>;
}

function planOn(ctx: AppContext, input: CompactionInput, on: PlanInput): Omit<Planned, "state"> {
  const settings = loadSettings(ctx.db);
  const options = {
    tokensOf: (entry: SessionEntry) => on.tokens.get(entry),
    ...(input.keepRecentTokens === undefined ? {} : { keepRecentTokensOverride: input.keepRecentTokens }),
  };
  const preparation = on.leafId === null ? undefined : prepareCompaction(on.path, compactionSettingsOf(settings), options);
  if (!preparation || on.leafId === null) {
    throw invalidInput(
      compactionPlanReason(on.path, compactionSettingsOf(settings)) ??
        "Nothing to compact (session too small)",
    );
  }
  const lists = computeFileLists(preparation.fileOps);
  const keptTokens = preparation.recentMessages.reduce((sum, message) => sum + estimateTokens(message), 0);
  const notes: string[] = [];
  if (preparation.summarizeEntryIds.length === 0 && preparation.turnPrefixEntryIds.length === 0) {
    notes.push(
      preparation.previousSummary
        ? "Nothing new to summarize: the previous summary is carried over."
        : keptTokens > preparation.keepRecentTokens
          ? // SPEC §5.3 E4: the newest message(s) exceed the budget and no cut point follows them.
            `Nothing can be summarized: the newest messages alone exceed the keep budget (~${keptTokens} of ${preparation.keepRecentTokens} tokens) and no message after them can start the kept part, so everything is kept.`
          : "Nothing to summarize yet: everything fits in the keep budget.",
    );
  }
  if (preparation.isSplitTurn) notes.push("The cut falls inside a turn: its beginning is summarized separately.");
  return {
    preparation,
    plan: {
      sessionId: on.sessionId,
      leafId: on.leafId,
      firstKeptEntryId: preparation.firstKeptEntryId,
      isSplitTurn: preparation.isSplitTurn,
      turnStartEntryId: preparation.isSplitTurn ? (on.path[preparation.turnStartIndex]?.id ?? null) : null,
      tokensBefore: preparation.tokensBefore,
      tokensBeforeMeasured: preparation.tokensBeforeMeasured,
      tokensBeforeEstimated: preparation.tokensBeforeEstimated,
      keepRecentTokens: preparation.keepRecentTokens,
      requestedKeepRecentTokens: input.keepRecentTokens ?? settings.compaction.keepRecentTokens,
      summarizeEntryIds: preparation.summarizeEntryIds,
      turnPrefixEntryIds: preparation.turnPrefixEntryIds,
      keptEntryIds: preparation.keptEntryIds,
      previousSummary: preparation.previousSummary !== undefined,
      previousCompactionId: preparation.previousCompactionId,
      readFiles: lists.readFiles,
      modifiedFiles: lists.modifiedFiles,
      keptTokens,
      maxSummaryTokens: Math.floor(0.8 * settings.compaction.reserveTokens),
      summarizer: summarizersFor(settings, ctx.secrets).describe,
      notes,
      plannedWith: planSettingsOf(settings),
    },
  };
}

/** The plan on the whole session (a session_before_compact hook gets the full path). */
export function planCompaction(ctx: AppContext, input: CompactionInput): Planned {
  const state = loadSessionState(ctx.db, input.sessionId, input.leafId);
  return { state, ...planOn(ctx, input, state) };
}

/**
 * What a run works from. Without a session_before_compact hook (which is given the full path
 * and the preparation's indices on it) the plan is the preview's: from the path's tail, the
 * same preparation on a fraction of the entries; `whole` is set only for the hook route.
 */
export function planRun(ctx: AppContext, input: CompactionInput): PlannedRun {
  if (!ctx.hooks.has("session_before_compact")) {
    const tail = loadCompactionTail(ctx.db, input.sessionId, input.leafId);
    if (tail !== null) return { target: tail, ...planOn(ctx, input, tail) };
  }
  const { state, ...planned } = planCompaction(ctx, input);
  return { target: state, whole: state, ...planned };
}

/**
 * The plan alone (shown on the canvas before a run): the same plan from the path's tail, the
 * window and what is above it on the structural columns only (compaction-tail.ts); a session
 * with tree problems is planned on whole.
 */
export function previewCompaction(ctx: AppContext, input: CompactionInput): CompactionPlanDto {
  const tail = loadCompactionTail(ctx.db, input.sessionId, input.leafId);
  return tail === null ? planCompaction(ctx, input).plan : planOn(ctx, input, tail).plan;
}

/** Validates a hook-supplied compaction before it is saved (D11). */
function validateHookCompaction(value: unknown, state: Pick<SessionState, "path" | "leafId">): CompactionResult {
  const checked = checkHookCompaction(value, state);
  if (!checked.ok) throw invalidInput(`${checked.problem}; nothing was saved`);
  return checked.result;
}

export async function runCompaction(ctx: AppContext, input: CompactionInput, job: Job): Promise<CompactionRunResult> {
  await ctx.hooksReady;
  const { target, whole, preparation, plan } = planRun(ctx, input);
  checkShownPlan(plan, input.shown);
  const signal = job.controller.signal;
  const settings = loadSettings(ctx.db);
  let result: CompactionResult;
  let fromExtension = false;
  try {
    hooksRunning(ctx, job, "session_before_compact");
    const before = await ctx.hooks.runBefore("session_before_compact", {
      sessionId: input.sessionId,
      preparation,
      // Only a registered hook reads this, and then the whole session was loaded.
      branchEntries: whole?.path ?? [],
      customInstructions: input.customInstructions,
      signal,
    });
    if (before?.cancel) throw new ApiFailure("cancelled", "Compaction cancelled");
    if (before?.compaction) {
      result = validateHookCompaction(before.compaction, whole ?? { path: [], leafId: target.leafId });
      fromExtension = true;
      hookWroteSummary(ctx, job, "session_before_compact");
    } else {
      hooksRunning(ctx, job, "session.compacting");
      const compacting = await ctx.hooks.runCompacting({
        sessionId: input.sessionId,
        messages: [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages],
      }, signal);
      hooksDone(ctx, job);
      const summarizers = summarizersFor(settings, ctx.secrets);
      const send = (text: string) =>
        ctx.events.emit("job:progressed", {
          jobId: job.id,
          sessionId: input.sessionId,
          label: "Summarizing",
          done: 0,
          total: null,
          text,
        });
      // The history and a split turn's prefix stream side by side: they are shown together, as
      // the summary will read (the split-turn separator between them), never one in place of the
      // other. The short summary, which starts after both, is shown alone and first sends what
      // the summary's pacer still holds.
      const streamed = new Map<SummaryPurpose, string>();
      const shown = (purpose: SummaryPurpose): string => {
        if (purpose === "short") return streamed.get("short") ?? "";
        const history = streamed.get("update") ?? streamed.get("history") ?? "";
        const prefix = streamed.get("turn-prefix");
        return prefix === undefined ? history : `${history}${SPLIT_TURN_SEPARATOR}${prefix}`.trimStart();
      };
      const pacers = new Map<"summary" | "short", PacedText>();
      const progress = (text: string, purpose: SummaryPurpose) => {
        streamed.set(purpose, text);
        const display = shown(purpose);
        job.text = display;
        const stream = purpose === "short" ? "short" : "summary";
        let paced = pacers.get(stream);
        if (paced === undefined) {
          for (const other of pacers.values()) other.finish();
          // Side by side, the history grows in the middle of the text: paced all the same.
          paced = pacedText(send, PROGRESS_INTERVAL_MS, { rewritesAtOnce: stream === "short" });
          pacers.set(stream, paced);
        }
        paced.push(display);
      };
      try {
        result = await withAttemptSignal(signal, (attemptSignal) =>
          compact(preparation, {
            summarizer: summarizers.model,
            remote: summarizers.remote,
            prompts: summaryPromptsFrom(ctx.prompts),
            templates: contextTemplatesFrom(ctx.prompts),
            signal: attemptSignal,
            customInstructions: input.customInstructions,
            promptOverride: compacting?.prompt,
            extraContext: compacting?.context,
            onText: progress,
          }),
        );
      } finally {
        for (const paced of pacers.values()) paced.finish();
      }
      if (compacting?.preserveData) result = { ...result, preserveData: compacting.preserveData };
    }
  } catch (error) {
    throw summaryFailure(error, signal, "Compaction cancelled");
  }
  // After a re-import of a rewritten file on the runner's thread (write-gate.ts), or another
  // process's write (untilWritable), cancellable meanwhile.
  await untilWritable(ctx, signal);
  if (signal.aborted) throw new ApiFailure("cancelled", "Compaction cancelled");

  const entry = appendCompaction(ctx, target, result, fromExtension, input.leafId === undefined);
  await ctx.hooks.notify("session_compact", { sessionId: input.sessionId, compactionEntry: entry, fromExtension }, signal);
  return {
    sessionId: input.sessionId,
    entryId: entry.id,
    summary: entry.summary,
    shortSummary: entry.shortSummary ?? null,
    firstKeptEntryId: entry.firstKeptEntryId ?? result.firstKeptEntryId,
    tokensBefore: entry.tokensBefore,
    fromExtension,
    viewLeafId: getViewLeaf(ctx.db, input.sessionId),
    ...(result.cutOff ? { cutOff: result.cutOff } : {}),
  };
}
