/**
 * Jobs slice: the compaction plan on screen, and the jobs running on each session — chat turns,
 * compactions and branch summaries, started here or in another window (job:started / job:ended,
 * job:list when the window opens, reloads or reconnects) — with the text they streamed so far,
 * their cancellation, and the outcome message.
 */
import type { StateCreator } from "zustand";
import type { Events } from "../../../core/api/contract.ts";
import type {
  ChatAutoCompactionDto,
  ChatJobPrompt,
  JobEndedDto,
  JobHooksDto,
  JobKind,
  ListedJobDto,
  RunningJobDto,
} from "../../../core/api/dto-jobs.ts";
import type { CompactionPlanDto, NavigationResultDto } from "../../../core/api/dto.ts";
import { failureLine } from "../../../core/compaction/failure-line.ts";
import { ApiCallError, call } from "../api.ts";
import { treeNode } from "../features/tree/tree-lookup.ts";
import type { CanopyState } from "./index.ts";
import { sessionBusyText } from "./disabled-reasons.ts";
import { sayRefused } from "./refused-line.ts";
import {
  COMPACTION_CANCELLED,
  compactionAdded,
  jobEndedMessage,
  labelMoveLine,
  type JobMessage,
  withCutOff,
} from "./job-messages.ts";
import { aboutSession, draftOf } from "./session-outcome.ts";

export type RunningJob = {
  kind: JobKind;
  sessionId: string;
  /** The text streamed so far: the summary, or the reply. */
  text: string;
  /** The main side's id of the job; null while this window's own request has not been heard start. */
  jobId: string | null;
  /** Started from this window: its own request reports how it ended. */
  here: boolean;
  /** When this window learnt of it (a job:list answer asked for before that leaves it alone). */
  seen: number;
  /** When its text was last heard (a job:list answer asked for before that does not replace it). */
  textSeen: number;
  /**
   * Date.now() when this window learnt of it, or when its failed request is sent again (a retry):
   * the wait for the model's first token is counted from there.
   */
  since: number;
  /** A chat turn: the message it answers. */
  chat?: ChatJobPrompt;
  /** A chat turn: its request failed with a transient error and is sent again at `since` (chat:retry-started). */
  retry?: string;
  /**
   * A chat turn: its automatic compaction (compaction:auto-* events, or job:list after a reload),
   * running or how the latest one ended, with the summary call's retry line.
   */
  autoCompaction?: ChatAutoCompaction;
  /** When `autoCompaction` was last heard (a job:list answer asked for before that does not replace it). */
  autoSeen?: number;
  /**
   * A compaction or branch summary: its hooks at work (job:hooks, or job:list), before any
   * summarizer is asked (`since`: when they started) or instead of it (a hook wrote the summary).
   */
  hooks?: JobHooksDto;
};

export type ChatAutoCompaction = ChatAutoCompactionDto & { retry?: string };

/** What the move dialog's instructions field holds (D13: a focus, or the prompt replaced). */
export type BranchInstructions = { text: string; replacePrompt: boolean };

/** A job this window starts or hears of (the counters are the slice's). */
type NewJob = Omit<RunningJob, "seen" | "textSeen" | "autoSeen" | "since"> & { since?: number };

/** The job running on the open session (whichever window started it, of any kind), or null. */
export function selectSessionJob(state: CanopyState): RunningJob | null {
  const sessionId = state.selectedSessionId;
  return (sessionId !== null && state.runningJobs[sessionId]) || null;
}

/** The compaction or branch summary running on the open session (whichever window started it), or null. */
export function selectRunning(state: CanopyState): RunningJob | null {
  const job = selectSessionJob(state);
  return job !== null && job.kind !== "chat" ? job : null;
}

/** The chat turn running on the open session (whichever window started it), or null. */
export function selectChat(state: CanopyState): RunningJob | null {
  const job = selectSessionJob(state);
  return job?.kind === "chat" ? job : null;
}

/** Why nothing else starts on a session while a job runs there (disabled-reasons.ts holds every such reason). */
export { sessionBusyText };

/** The running job as a window that hears of it keeps it (`auto`: as job:list names it). */
function heardJob(job: RunningJobDto, text: string, auto?: ChatAutoCompactionDto): NewJob {
  return {
    kind: job.kind,
    sessionId: job.sessionId,
    jobId: job.jobId,
    text,
    here: false,
    ...(job.chat ? { chat: job.chat } : {}),
    ...(auto ? { autoCompaction: auto } : {}),
    ...(job.hooks ? { hooks: job.hooks } : {}),
  };
}

/** How long after a cancel the main side has to say the job ended before the window asks. */
const CANCEL_SETTLE_MS = 3000;

/** How many ended job ids are remembered, so that a job:list answer sent before the end is not believed. */
const ENDED_MEMORY = 100;

export interface JobsSlice {
  plan: CompactionPlanDto | null;
  planError: string | null;
  /** The keepRecentTokens the plan was asked for (null: the setting), reused when it runs. */
  planKeepRecentTokens: number | null;
  /** Why the plan on screen was made again without being asked (its session or the settings changed: plan-follow.ts). */
  planNote: string | null;
  /** Why the plan on screen cannot run (its session deleted, its leaf gone: plan-follow.ts); null: it can. */
  planBlocked: string | null;
  /**
   * The plan on screen could not be made again after a change (a passing failure, plan-follow.ts):
   * why, in one line, next to Retry. It can still run: the main side refuses it if it is out of date.
   */
  planRetry: string | null;
  /** How many compaction:preview requests of Compact… and the slider are still unanswered. */
  planAsking: number;
  /**
   * The plan's "Additional focus" as typed, by session id: kept when the plan closes (Escape,
   * Close) and shown again by Compact…, never in another session's plan; dropped once that
   * session's compaction is added.
   */
  planInstructions: Record<string, string>;
  setPlanInstructions(sessionId: string, text: string): void;
  /**
   * The move dialog's branch-summary instructions as typed (and whether they replace the prompt),
   * by session id: kept when the dialog closes or the summary is cancelled or fails, shown again
   * by "Summarize with instructions…" in that session; dropped once its branch summary is added.
   */
  branchInstructions: Record<string, BranchInstructions>;
  setBranchInstructions(sessionId: string, value: BranchInstructions): void;
  /** The running job (chat turn, compaction or branch summary) of each session, by session id. */
  runningJobs: Record<string, RunningJob>;
  jobMessage: JobMessage | null;
  /** How many edits and job saves wait long for another process's write lock (library:write-waiting). */
  writeWaiting: number;
  previewCompaction(keepRecentTokens?: number): Promise<void>;
  closePlan(): void;
  runCompaction(customInstructions: string): Promise<void>;
  /** `replacePrompt`: the instructions replace the branch-summary prompt instead of adding a focus (D13). */
  navigateTo(
    targetId: string,
    summarize: boolean,
    customInstructions?: string,
    replacePrompt?: boolean,
  ): Promise<NavigationResultDto | null>;
  /** Runs the failed branch summary the outcome line offers to retry (on the open session). */
  retryNavigation(): Promise<void>;
  /** Cancels the open session's running job (Escape, Cancel), whichever window started it. */
  cancelRunning(): Promise<void>;
  /**
   * A control unavailable while a job runs on the open session was used anyway (a click on an
   * aria-disabled button): the outcome line says "<what>: <why>" (once, refused-line.ts). False: no job runs.
   */
  refuseDuringJob(what: string): boolean;
  /** Asks which jobs run (the window opened, reloaded or its event socket came back). */
  loadRunningJobs(): Promise<void>;
  /** This window asks for a job on the session (shown at once, before the main side tells it). */
  ownJobStarting(job: Pick<RunningJob, "kind" | "sessionId" | "chat">): void;
  /** This window's request for the session's job answered (`error`: how it failed, if it did). */
  ownJobOver(sessionId: string, error?: unknown): void;
  jobStarted(job: RunningJobDto): void;
  jobEnded(job: JobEndedDto): void;
  jobProgressed(job: Events["job:progressed"]): void;
  /** A compaction's or branch summary's hooks at work, or (null) done without a summary: the summarizer is asked now. */
  jobHooks(event: Events["job:hooks"]): void;
  /**
   * The text the session's job streamed so far (`jobId` null: whichever job runs there); with
   * `retry`, its request failed and is sent again at `retryAt` (Date.now() ms): the text starts over.
   */
  jobStreamed(sessionId: string, jobId: string | null, text: string, retry?: string, retryAt?: number): void;
  /** The automatic compaction of the chat turn running on the session, as the events tell it. */
  chatJobAutoCompaction(sessionId: string, auto: ChatAutoCompaction): void;
}

export const createJobsSlice: StateCreator<CanopyState, [], [], JobsSlice> = (set, get) => {
  let learnt = 0;
  const endedIds = new Set<string>();
  /**
   * Sessions whose own job this window cancelled before the main side had started it (the
   * cancel's request got there first): it is cancelled as soon as it is heard start.
   */
  const cancelOnStart = new Set<string>();
  const abortChannel = (kind: RunningJob["kind"]) =>
    kind === "chat" ? "chat:abort" : kind === "compaction" ? "compaction:abort" : "navigation:abort";
  /** Cancels the session's own job once more, now that it runs (an error is the outcome line's). */
  const abortStarted = (job: RunningJob) => {
    call(abortChannel(job.kind), { sessionId: job.sessionId }).catch((error: unknown) => {
      const message = { kind: "error" as const, text: `Could not cancel: ${(error as Error).message}` };
      set(job.kind === "chat" ? { chatMessage: message } : { jobMessage: message });
    });
  };
  const putJob = (job: NewJob) =>
    set((state) => {
      const seen = ++learnt;
      const since = job.since ?? Date.now();
      return { runningJobs: { ...state.runningJobs, [job.sessionId]: { ...job, seen, textSeen: seen, since } } };
    });
  /** Forgets the session's job when `which` is it. */
  const dropJob = (sessionId: string, which: (job: RunningJob) => boolean) => {
    const job = get().runningJobs[sessionId];
    if (!job || !which(job)) return;
    const { [sessionId]: _gone, ...rest } = get().runningJobs;
    set({ runningJobs: rest });
  };
  /** The session runs a job already (the main side would refuse another): says so, true. */
  const refusedBusy = (sessionId: string): boolean => {
    const job = get().runningJobs[sessionId];
    if (!job) return false;
    set({ jobMessage: { kind: "error", text: sessionBusyText(job.kind) } });
    return true;
  };
  /** The run was refused as the plan shown is out of date: the plan as it is now, and why. */
  const replanStale = async (sessionId: string, why: string) => {
    const keepRecentTokens = get().planKeepRecentTokens;
    try {
      const plan = await call("compaction:preview", keepRecentTokens ? { sessionId, keepRecentTokens } : { sessionId });
      if (get().selectedSessionId === sessionId)
        set({ plan, planNote: `${why}. This is the plan now.`, planBlocked: null, planRetry: null });
    } catch (error) {
      set({ plan: null, planNote: null, planBlocked: null, planRetry: null, planError: `${why}; ${(error as Error).message}` });
    }
  };
  const refresh = async (sessionId: string) => {
    // The user opened another session meanwhile: its selection is not this job's to change.
    if (get().selectedSessionId !== sessionId) return;
    set({ selectedEntryId: null });
    await Promise.all([
      get().loadContext(sessionId, undefined),
      get().loadTree(sessionId),
    ]);
  };
  return {
    refuseDuringJob(what) {
      const job = selectSessionJob(get());
      if (job === null) return false;
      sayRefused(get, (partial) => set(partial), what, sessionBusyText(job.kind));
      return true;
    },
    plan: null,
    planError: null,
    planKeepRecentTokens: null,
    planNote: null,
    planBlocked: null,
    planRetry: null,
    planAsking: 0,
    planInstructions: {},
    setPlanInstructions(sessionId, text) {
      const { [sessionId]: _old, ...rest } = get().planInstructions;
      set({ planInstructions: text === "" ? rest : { ...rest, [sessionId]: text } });
    },
    branchInstructions: {},
    setBranchInstructions(sessionId, value) {
      const { [sessionId]: _old, ...rest } = get().branchInstructions;
      const empty = value.text === "" && !value.replacePrompt;
      set({ branchInstructions: empty ? rest : { ...rest, [sessionId]: value } });
    },
    runningJobs: {},
    jobMessage: null,
    writeWaiting: 0,
    async previewCompaction(keepRecentTokens) {
      const sessionId = get().selectedSessionId;
      if (!sessionId) return;
      // One plan at a time: the pruning plan makes way.
      get().closePrune();
      set({
        planError: null,
        planNote: null,
        planBlocked: null,
        planRetry: null,
        jobMessage: null,
        planKeepRecentTokens: keepRecentTokens ?? null,
        planAsking: get().planAsking + 1,
      });
      try {
        const plan = await call("compaction:preview", keepRecentTokens ? { sessionId, keepRecentTokens } : { sessionId });
        // A slower answer for an older slider position must not replace a newer one.
        if ((get().planKeepRecentTokens ?? undefined) === keepRecentTokens) set({ plan });
      } catch (error) {
        set({ plan: null, planError: (error as Error).message });
      } finally {
        // The last answer in: a settings change heard meanwhile is checked against it (plan-follow.ts).
        set({ planAsking: get().planAsking - 1 });
      }
    },
    closePlan() {
      set({ plan: null, planError: null, planNote: null, planBlocked: null, planRetry: null, planKeepRecentTokens: null });
    },
    async runCompaction(customInstructions) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || refusedBusy(sessionId)) return;
      const blocked = get().planBlocked;
      if (blocked !== null) {
        set({ jobMessage: { kind: "error", text: blocked } });
        return;
      }
      get().ownJobStarting({ kind: "compaction", sessionId });
      set({ jobMessage: null });
      let failure: unknown;
      try {
        const instructions = customInstructions.trim();
        // What the plan on screen keeps, never the setting as it is by now: a change made
        // elsewhere that this window has not heard of yet must not move the cut it shows.
        // And named: a run that would cut elsewhere (the session grew, …) is refused, not run.
        const plan = get().plan;
        const shown = plan?.sessionId === sessionId ? plan : null;
        const keepRecentTokens = get().planKeepRecentTokens ?? shown?.requestedKeepRecentTokens ?? null;
        const result = await call("compaction:run", {
          sessionId,
          ...(instructions ? { customInstructions: instructions } : {}),
          ...(keepRecentTokens ? { keepRecentTokens } : {}),
          ...(shown ? { shown: { leafId: shown.leafId, firstKeptEntryId: shown.firstKeptEntryId } } : {}),
        });
        set({
          plan: null,
          planNote: null,
          planBlocked: null,
          planRetry: null,
          planKeepRecentTokens: null,
          jobMessage: aboutSession(get(), sessionId, {
            kind: "ok",
            text: withCutOff(compactionAdded(result.entryId), result.cutOff),
          }),
        });
        get().setPlanInstructions(sessionId, "");
        await refresh(sessionId);
      } catch (error) {
        failure = error;
        if (error instanceof ApiCallError && error.code === "stale_plan") {
          await replanStale(sessionId, error.message);
          return;
        }
        const cancelled = error instanceof ApiCallError && error.code === "cancelled";
        const text = cancelled ? COMPACTION_CANCELLED : failureLine("Compaction", (error as Error).message);
        set({ jobMessage: aboutSession(get(), sessionId, { kind: cancelled ? "ok" : "error", text }) });
      } finally {
        get().ownJobOver(sessionId, failure);
      }
    },
    async navigateTo(targetId, summarize, customInstructions, replacePrompt) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || refusedBusy(sessionId)) return null;
      if (summarize) get().ownJobStarting({ kind: "branch-summary", sessionId });
      set({ jobMessage: null });
      // A label entry is not where the conversation ends: the line says where the leaf is then.
      const tree = get().tree;
      const label = tree?.sessionId === sessionId ? treeNode(tree.nodes, targetId) : undefined;
      let failure: unknown;
      try {
        const instructions = customInstructions?.trim();
        const result = await call("navigation:navigate", {
          sessionId,
          targetId,
          summarize,
          ...(instructions ? { customInstructions: instructions } : {}),
          ...(instructions && replacePrompt ? { replacePrompt: true } : {}),
        });
        if (result.cancelled) {
          const text = "Branch summarization cancelled; nothing changed.";
          set({ jobMessage: aboutSession(get(), sessionId, { kind: "ok", text }) });
        } else {
          // The user message just below the view leaf resumes at its parent: where the leaf is.
          const stays = result.newLeafId !== null && result.newLeafId === result.oldLeafId && targetId !== result.oldLeafId;
          const where = result.summaryEntryId
            ? `Moved to ${targetId}'s branch with branch summary ${result.summaryEntryId}`
            : stays
              ? `The view leaf stays at ${result.newLeafId} (${targetId} is the message just below it)`
              : label?.type === "label" && result.newLeafId === targetId
                ? labelMoveLine(label)
                : `Moved to ${result.newLeafId ?? "the start of the session"}`;
          // The target message's text goes to the session's composer only when it is empty (SPEC
          // §10.4): a draft the user typed is never replaced. Another session may be open by now:
          // then it becomes this session's draft, never the open one's.
          const editorText = result.editorText ?? "";
          const fill = editorText !== "" && draftOf(get(), sessionId).trim() === "";
          const editor = editorText === ""
            ? ""
            : fill
              ? " The message's text is in the composer."
              : " Your draft stays in the composer (the message's text was not put there).";
          if (fill && get().selectedSessionId === sessionId) set({ composerText: editorText });
          else if (fill) set({ drafts: { ...get().drafts, [sessionId]: editorText } });
          const text = withCutOff(`${where}.${editor}`, result.cutOff);
          // Used: the next branch summary of the session starts from an empty field.
          if (result.summaryEntryId) get().setBranchInstructions(sessionId, { text: "", replacePrompt: false });
          set({ jobMessage: aboutSession(get(), sessionId, { kind: "ok", text }) });
          // Only a move changes the session: a cancel reloads nothing and keeps a selection made meanwhile.
          await refresh(sessionId);
        }
        return result;
      } catch (error) {
        failure = error;
        // The model failed (a rate limit, a timeout, a server error…), or the summary was refused
        // because the view leaf moved meanwhile (another window, the CLI, the agent) or the library
        // was busy ("conflict"): Retry asks again — from the view leaf as it is now — with the
        // same instructions, without the drag and the dialog.
        const retry =
          summarize && error instanceof ApiCallError && (error.code === "model_error" || error.code === "conflict")
            ? {
                sessionId,
                targetId,
                ...(customInstructions?.trim() ? { customInstructions } : {}),
                ...(customInstructions?.trim() && replacePrompt ? { replacePrompt: true } : {}),
              }
            : undefined;
        set({
          jobMessage: aboutSession(get(), sessionId, {
            kind: "error" as const,
            // As other windows and the CLI say it: with a summary asked, that is what failed.
            text: failureLine(summarize ? "Branch summary" : "Navigation", (error as Error).message),
            ...(retry ? { retry } : {}),
          }),
        });
        return null;
      } finally {
        get().ownJobOver(sessionId, failure);
      }
    },
    async retryNavigation() {
      const retry = get().jobMessage?.retry;
      if (!retry || retry.sessionId !== get().selectedSessionId) return;
      await get().navigateTo(retry.targetId, true, retry.customInstructions, retry.replacePrompt);
    },
    async cancelRunning() {
      const running = selectSessionJob(get());
      if (!running) return;
      try {
        const { aborted } = await call(abortChannel(running.kind), { sessionId: running.sessionId });
        const now = get().runningJobs[running.sessionId];
        if (!aborted && running.here && running.jobId === null && now?.here) {
          // This window's own request, not started on the main side when the cancel got there
          // (it overtook the request): cancelled once it starts, or now if it started meanwhile.
          if (now.jobId === null) cancelOnStart.add(running.sessionId);
          else abortStarted(now);
        }
        // Nothing runs there: its end went unheard (the events dropped meanwhile); ask afresh.
        else if (!aborted) await get().loadRunningJobs();
        // Stopped there, yet no end heard a while later (events lost): ask afresh then.
        else if (running.jobId !== null && !running.here) {
          const { sessionId, jobId } = running;
          setTimeout(() => {
            if (get().runningJobs[sessionId]?.jobId === jobId) void get().loadRunningJobs();
          }, CANCEL_SETTLE_MS);
        }
      } catch (error) {
        const message = { kind: "error" as const, text: `Could not cancel: ${(error as Error).message}` };
        set(running.kind === "chat" ? { chatMessage: message } : { jobMessage: message });
      }
    },
    async loadRunningJobs() {
      const asked = learnt;
      let listed: ListedJobDto[];
      try {
        listed = await call("job:list", {});
      } catch (error) {
        set({ jobMessage: { kind: "error", text: `Could not ask which jobs are running: ${(error as Error).message}` } });
        return;
      }
      const byId = new Map(listed.map((job) => [job.jobId, job]));
      const kept: Record<string, RunningJob> = {};
      for (const job of Object.values(get().runningJobs)) {
        const answer = job.jobId === null ? undefined : byId.get(job.jobId);
        // A job heard of before asking that the answer leaves out has ended meanwhile (unheard).
        if (!job.here && job.seen <= asked && !answer) continue;
        // Text (hooks, automatic compaction) missed while the events did not flow: the answer's,
        // unless newer came since.
        let merged = job;
        if (answer && job.textSeen <= asked) {
          const { hooks: _old, ...rest } = job;
          merged = { ...rest, text: answer.text, ...(answer.hooks ? { hooks: answer.hooks } : {}) };
          // Its hooks started, or the summarizer was asked, while the events did not flow.
          if (answer.hooks?.event !== job.hooks?.event && answer.requestAgeMs !== undefined)
            merged = { ...merged, since: Date.now() - answer.requestAgeMs };
        }
        if (answer?.autoCompaction && (merged.autoSeen ?? 0) <= asked) {
          merged = { ...merged, autoCompaction: answer.autoCompaction };
        }
        kept[job.sessionId] = merged;
      }
      set({ runningJobs: kept });
      for (const job of listed) {
        // Its wait counted on from when its request was sent, not from this answer.
        if (!endedIds.has(job.jobId) && !get().runningJobs[job.sessionId])
          putJob({
            ...heardJob(job, job.text, job.autoCompaction),
            ...(job.requestAgeMs === undefined ? {} : { since: Date.now() - job.requestAgeMs }),
          });
      }
    },
    ownJobStarting(job) {
      putJob({ ...job, text: "", jobId: null, here: true });
    },
    ownJobOver(sessionId, error) {
      // Its job is over (the main side may still be telling so).
      dropJob(sessionId, (job) => job.here);
      cancelOnStart.delete(sessionId);
      // Refused because another window's job holds the session: show that one.
      if (error instanceof ApiCallError && error.code === "conflict") void get().loadRunningJobs();
    },
    jobStarted(job) {
      const known = get().runningJobs[job.sessionId];
      if (known?.jobId === job.jobId) return;
      // This window's own request, heard start: it gets its id (and what the main side says it answers).
      if (known?.here && known.jobId === null && known.kind === job.kind) {
        // Its hooks run first: their seconds count from now.
        putJob({ ...known, jobId: job.jobId, ...(job.chat ? { chat: job.chat } : {}), ...(job.hooks ? { hooks: job.hooks } : {}) });
        if (cancelOnStart.delete(job.sessionId)) abortStarted(known);
        return;
      }
      putJob(heardJob(job, ""));
      // A reply another window asked for: the composer's last outcome and automatic compaction
      // are about an earlier turn.
      if (job.kind === "chat" && get().selectedSessionId === job.sessionId) {
        set({ chatMessage: null, ...(get().autoCompaction?.sessionId === job.sessionId ? { autoCompaction: null } : {}) });
      }
    },
    jobEnded(job) {
      endedIds.add(job.jobId);
      if (endedIds.size > ENDED_MEMORY) endedIds.delete(endedIds.values().next().value as string);
      const known = get().runningJobs[job.sessionId];
      if (known?.jobId !== job.jobId) return;
      dropJob(job.sessionId, () => true);
      // Its automatic compaction stays told once it ends, as in a window that heard it all (one
      // that was reloaded, or showed another session meanwhile, knows it from the job only).
      if (
        known.autoCompaction &&
        known.autoCompaction.status !== "running" &&
        get().selectedSessionId === job.sessionId &&
        get().autoCompaction?.sessionId !== job.sessionId
      ) {
        const { retry: _retry, ...auto } = known.autoCompaction;
        set({ autoCompaction: { ...auto, sessionId: job.sessionId } });
      }
      // Started in another window: say how it ended here too, and show what it changed.
      if (known.here) return;
      if (get().selectedSessionId === job.sessionId) {
        const message = jobEndedMessage(job);
        set(job.kind === "chat" ? { chatMessage: message } : { jobMessage: message });
      }
      get().refreshOpenSession(job.sessionId);
    },
    jobProgressed(job) {
      if (job.text === undefined || job.sessionId === undefined) return;
      get().jobStreamed(job.sessionId, job.jobId, job.text);
    },
    jobHooks({ sessionId, jobId, hooks }) {
      const known = get().runningJobs[sessionId];
      if (!known || (known.jobId !== null && known.jobId !== jobId)) return;
      const { hooks: _old, ...rest } = known;
      // The wait counts from here: the hook's run, or (none gave a summary) the summarizer's request.
      const job: RunningJob = { ...rest, ...(hooks ? { hooks } : {}), textSeen: ++learnt, since: Date.now() };
      set({ runningJobs: { ...get().runningJobs, [sessionId]: job } });
    },
    jobStreamed(sessionId, jobId, text, retry, retryAt) {
      const known = get().runningJobs[sessionId];
      // Only this job's text (a chat turn's automatic compaction streams under its own id).
      if (!known || (jobId !== null && known.jobId !== null && known.jobId !== jobId)) return;
      const { retry: _over, ...rest } = known;
      const job: RunningJob = {
        ...rest,
        text,
        textSeen: ++learnt,
        ...(retry === undefined ? {} : { retry, since: retryAt ?? Date.now() }),
      };
      set({ runningJobs: { ...get().runningJobs, [sessionId]: job } });
    },
    chatJobAutoCompaction(sessionId, auto) {
      const known = get().runningJobs[sessionId];
      if (known?.kind !== "chat") return;
      // Its automatic compaction over, the turn's request goes out (again): the wait counts from now.
      const ended = known.autoCompaction?.status === "running" && auto.status !== "running";
      set({
        runningJobs: {
          ...get().runningJobs,
          [sessionId]: { ...known, autoCompaction: auto, autoSeen: ++learnt, ...(ended ? { since: Date.now() } : {}) },
        },
      });
    },
  };
};
