/**
 * Tree navigation with optional branch summary (SPEC §2.8 with D13, D14): moves Canopy's view
 * leaf; when asked, summarizes the abandoned branch (abortable) and attaches the summary at the
 * navigation destination. Hooks `session_before_tree` / `session_tree` run around it.
 */
import type { NavigationPreviewDto, NavigationResultDto } from "../../core/api/dto.ts";
import {
  collectEntriesForBranchSummary,
  givesBranchMessage,
  newLeafForNavigation,
} from "../../core/compaction/branch.ts";
import { generateBranchSummary } from "../../core/compaction/summarize.ts";
import type { SummaryCutOff } from "../../core/compaction/types.ts";
import { branchTokenBudget } from "../../core/compaction/summarize-branch.ts";
import type { BranchSummaryEntry, SessionEntry } from "../../core/session/entries.ts";
import type { TreeIndex } from "../../core/session/tree.ts";
import { contextTemplatesFrom, summaryPromptsFrom } from "../../prompts/index.ts";
import { invalidInput, notFound } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { effectiveViewLeaf, requireAnySession, requireSession, setViewLeaf } from "../library/load.ts";
import { structuralIndex } from "../library/structure-index.ts";
import { loadSettings } from "../settings/store.ts";
import { type EntryShape, getEntryRowById, listEntryShapes } from "../store/repos/entries.ts";
import { branchGivesMessage, loadBranchWindow } from "./branch-window.ts";
import { modelFailure, summaryFailure } from "./errors.ts";
import { hooksDone, hooksRunning, hookWroteSummary } from "./job-hooks.ts";
import type { Job } from "./jobs.ts";
import { appendAndMoveLeaf, untilWritable } from "./persist.ts";
import { pacedText } from "./progress-pace.ts";
import { loadSessionState, type RunTarget } from "./session-state.ts";
import { summarizersFor } from "./summarizers.ts";

export interface NavigationInput {
  sessionId: string;
  targetId: string;
  summarize?: boolean | undefined;
  customInstructions?: string | undefined;
  /** Use the custom instructions instead of the branch-summary prompt (D13 option). */
  replacePrompt?: boolean | undefined;
}

interface NavigationPlan {
  state: RunTarget;
  target: SessionEntry;
  /** How many entries the old leaf's path abandons. */
  abandonedCount: number;
  /** The abandoned entries themselves, oldest first (the hook's payload; parsed when asked). */
  entriesToSummarize(): SessionEntry[];
  /** What the summary reads of them (branch-window.ts), for this token budget. */
  summaryInput(tokenBudget: number): SessionEntry[];
  preview: NavigationPreviewDto;
}

/** `givesMessage`: whether the abandoned entries (parsed or stubs) give a summary a message. */
function planOn(
  index: TreeIndex,
  viewLeafId: string | null,
  target: SessionEntry,
  sessionId: string,
  givesMessage: (entries: SessionEntry[]) => boolean,
): { entries: SessionEntry[]; preview: NavigationPreviewDto } {
  const { entries, commonAncestorId } = collectEntriesForBranchSummary(index, viewLeafId, target.id);
  // The index's repaired parents: an orphan's or a cycle-closer's parent is null (D3).
  const destination = newLeafForNavigation(target, index);
  return {
    entries,
    preview: {
      sessionId,
      targetId: target.id,
      oldLeafId: viewLeafId,
      commonAncestorId,
      entriesToSummarize: entries.map((entry) => entry.id),
      summaryHasMessages: givesMessage(entries),
      newLeafId: destination.newLeafId,
      editorText: destination.editorText ?? null,
    },
  };
}

/** The library row of each entry of a structural index built on `shapes`. */
function pksOf(index: TreeIndex, shapes: readonly EntryShape[]): Map<SessionEntry, number> {
  const pkOf = new Map<SessionEntry, number>();
  index.entries.forEach((entry, i) => {
    pkOf.set(entry, (shapes[i] as EntryShape)[0]);
  });
  return pkOf;
}

/**
 * What `navigate` works from: the plan on the structural index (the preview's), the target
 * entry parsed, and of the abandoned branch only what is read; a session with tree problems
 * is parsed whole (core's repairs).
 */
function planNavigation(ctx: AppContext, sessionId: string, targetId: string): NavigationPlan {
  const row = requireSession(ctx.db, sessionId);
  if (row.problem_count > 0) {
    const state = loadSessionState(ctx.db, sessionId);
    const target = state.index.byId.get(targetId);
    if (!target) throw notFound(`Session ${sessionId} has no entry ${targetId}`);
    const { entries, preview } = planOn(state.index, state.viewLeafId, target, sessionId, (parsed) =>
      parsed.some(givesBranchMessage),
    );
    return {
      state,
      target,
      abandonedCount: entries.length,
      entriesToSummarize: () => entries,
      summaryInput: () => entries,
      preview,
    };
  }
  const viewLeafId = effectiveViewLeaf(row);
  const shapes = listEntryShapes(ctx.db, row.sid);
  const index = structuralIndex(ctx.db, row.sid, shapes);
  if (viewLeafId !== null && !index.byId.has(viewLeafId))
    throw notFound(`Session ${sessionId} has no entry ${viewLeafId}`);
  const stored = index.byId.has(targetId) ? getEntryRowById(ctx.db, row.sid, targetId) : undefined;
  if (!stored) throw notFound(`Session ${sessionId} has no entry ${targetId}`);
  const target = JSON.parse(stored.json) as SessionEntry;
  const pkOf = pksOf(index, shapes);
  const { entries: stubs, preview } = planOn(index, viewLeafId, target, sessionId, (abandoned) =>
    branchGivesMessage(ctx.db, abandoned, pkOf),
  );
  return {
    state: { sessionId, viewLeafId, leafId: viewLeafId },
    target,
    abandonedCount: stubs.length,
    entriesToSummarize: () => loadBranchWindow(ctx.db, stubs, pkOf, 0),
    summaryInput: (tokenBudget) => loadBranchWindow(ctx.db, stubs, pkOf, tokenBudget),
    preview,
  };
}

/**
 * The preview alone (asked for every drop target while dragging): the same plan on the
 * structural index, parsing only the target entry and, newest first, the abandoned entries up to
 * the first that gives a summary a message, instead of the whole session.
 */
export function navigationPreview(ctx: AppContext, sessionId: string, targetId: string): NavigationPreviewDto {
  const row = requireSession(ctx.db, sessionId);
  const viewLeafId = effectiveViewLeaf(row);
  const shapes = listEntryShapes(ctx.db, row.sid);
  const index = structuralIndex(ctx.db, row.sid, shapes);
  if (viewLeafId !== null && !index.byId.has(viewLeafId))
    throw notFound(`Session ${sessionId} has no entry ${viewLeafId}`);
  const stored = index.byId.has(targetId) ? getEntryRowById(ctx.db, row.sid, targetId) : undefined;
  if (!stored) throw notFound(`Session ${sessionId} has no entry ${targetId}`);
  const pkOf = pksOf(index, shapes);
  return planOn(index, viewLeafId, JSON.parse(stored.json) as SessionEntry, sessionId, (abandoned) =>
    branchGivesMessage(ctx.db, abandoned, pkOf),
  ).preview;
}

function unchanged(plan: NavigationPlan, cancelled: boolean, aborted = false): NavigationResultDto {
  return {
    cancelled,
    aborted,
    newLeafId: plan.state.viewLeafId,
    oldLeafId: plan.state.viewLeafId,
    editorText: null,
    summaryEntryId: null,
    fromExtension: false,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export async function navigate(ctx: AppContext, input: NavigationInput, job: Job): Promise<NavigationResultDto> {
  await ctx.hooksReady;
  const plan = planNavigation(ctx, input.sessionId, input.targetId);
  const { state, preview } = plan;
  if (input.targetId === state.viewLeafId) return unchanged(plan, false);
  const signal = job.controller.signal;
  const summarize = input.summarize === true;
  let summaryText: string | undefined;
  let details: unknown;
  let cutOff: SummaryCutOff | undefined;
  let fromExtension = false;
  try {
    if (summarize) hooksRunning(ctx, job, "session_before_tree");
    const before = await ctx.hooks.runBefore("session_before_tree", {
      sessionId: input.sessionId,
      preparation: {
        targetId: input.targetId,
        oldLeafId: state.viewLeafId,
        commonAncestorId: preview.commonAncestorId,
        // Only a registered hook reads the entries: they are parsed for it alone.
        entriesToSummarize: ctx.hooks.has("session_before_tree") ? plan.entriesToSummarize() : [],
        userWantsSummary: summarize,
      },
      signal,
    });
    if (before?.cancel) return unchanged(plan, true);
    if (summarize && before?.summary) {
      // Checked as a hook's compaction is (D11): a summary that is not text is never saved.
      const hookSummary: unknown = before.summary;
      const text = isRecord(hookSummary) ? hookSummary.summary : undefined;
      if (typeof text !== "string")
        throw invalidInput("A hook's branch summary has no summary text; nothing was saved");
      summaryText = text;
      details = (hookSummary as { details?: unknown }).details;
      fromExtension = true;
      hookWroteSummary(ctx, job, "session_before_tree");
    } else if (summarize && plan.abandonedCount > 0) {
      hooksDone(ctx, job);
      const settings = loadSettings(ctx.db);
      const summarizers = summarizersFor(settings, ctx.secrets);
      const budget = branchTokenBudget(summarizers.model, settings.branchSummary.reserveTokens);
      const paced = pacedText((text) =>
        ctx.events.emit("job:progressed", {
          jobId: job.id,
          sessionId: input.sessionId,
          label: "Summarizing branch",
          done: 0,
          total: null,
          text,
        }),
      );
      const result = await generateBranchSummary(plan.summaryInput(budget), {
        summarizer: summarizers.model,
        prompts: summaryPromptsFrom(ctx.prompts),
        templates: contextTemplatesFrom(ctx.prompts),
        reserveTokens: settings.branchSummary.reserveTokens,
        signal,
        customInstructions: input.customInstructions,
        replacePrompt: input.replacePrompt,
        onText: (text) => {
          job.text = text;
          paced.push(text);
        },
      }).finally(() => paced.finish());
      if (result.aborted || signal.aborted) return unchanged(plan, true, true);
      if (result.error) throw modelFailure(result.error);
      summaryText = result.summary;
      cutOff = result.cutOff;
      details = { readFiles: result.readFiles ?? [], modifiedFiles: result.modifiedFiles ?? [] };
    }
  } catch (error) {
    const failure = summaryFailure(error, signal, "Branch summarization cancelled");
    if (failure.code === "cancelled") return unchanged(plan, true, true);
    throw failure;
  }
  // After a re-import of a rewritten file on the runner's thread (write-gate.ts), or another
  // process's write (untilWritable), cancellable meanwhile.
  await untilWritable(ctx, signal);
  // An acknowledged abort wins over a hook that ignored the signal (SPEC §9.6: session unchanged).
  if (signal.aborted) return unchanged(plan, true, true);

  let summaryEntry: BranchSummaryEntry | undefined;
  const newLeafId = preview.newLeafId;
  if (summaryText) {
    // Deleted or not: another Canopy may have deleted the session while the summary was written.
    const { dialect } = requireAnySession(ctx.db, input.sessionId);
    const text = summaryText;
    summaryEntry = appendAndMoveLeaf(
      ctx,
      { ...state, leafId: newLeafId },
      (id, timestamp) => {
        const entry: BranchSummaryEntry = {
          type: "branch_summary",
          id,
          parentId: newLeafId,
          timestamp,
          fromId: newLeafId ?? "root",
          summary: text,
        };
        if (details !== undefined) entry.details = details;
        if (fromExtension) entry[dialect === "pi" ? "fromHook" : "fromExtension"] = true;
        return entry;
      },
      true,
    );
  } else {
    setViewLeaf(ctx.db, input.sessionId, newLeafId);
    ctx.events.emit("session:changed", { sessionId: input.sessionId, viewLeafId: newLeafId });
  }
  const finalLeaf = summaryEntry?.id ?? newLeafId;
  await ctx.hooks.notify("session_tree", {
    sessionId: input.sessionId,
    newLeafId: finalLeaf,
    oldLeafId: state.viewLeafId,
    summaryEntry,
    fromExtension: summaryEntry ? fromExtension : undefined,
  }, signal);
  return {
    cancelled: false,
    aborted: false,
    newLeafId: finalLeaf,
    oldLeafId: state.viewLeafId,
    editorText: preview.editorText,
    summaryEntryId: summaryEntry?.id ?? null,
    fromExtension: summaryEntry ? fromExtension : false,
    ...(summaryEntry && cutOff ? { cutOff: [cutOff] } : {}),
  };
}
