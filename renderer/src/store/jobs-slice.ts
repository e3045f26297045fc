/**
 * Jobs slice: the compaction plan on screen, the compactions and branch summaries running on
 * each session — started here or in another window (job:started / job:ended, job:list when the
 * window opens, reloads or reconnects) — with their streamed text, their cancellation, and the
 * outcome message.
 */
import type { StateCreator } from "zustand";
import type { Events } from "../../../core/api/contract.ts";
import type { JobEndedDto, JobKind, ListedJobDto, RunningJobDto } from "../../../core/api/dto-jobs.ts";
import type { CompactionPlanDto, NavigationResultDto } from "../../../core/api/dto.ts";
import { ApiCallError, call } from "../api.ts";
import type { CanopyState } from "./index.ts";
import { COMPACTION_CANCELLED, compactionAdded, jobEndedMessage, type JobMessage } from "./job-messages.ts";

/** Chat turns are shown by the chat slice, from this window's own requests. */
type SummaryJobKind = Exclude<JobKind, "chat">;
const isSummary = (job: RunningJobDto): job is RunningJobDto & { kind: SummaryJobKind } => job.kind !== "chat";

export type RunningJob = {
  kind: SummaryJobKind;
  sessionId: string;
  text: string;
  /** The main side's id of the job; null while this window's own request has not been heard start. */
  jobId: string | null;
  /** Started from this window: its own request reports how it ended. */
  here: boolean;
  /** When this window learnt of it (a job:list answer asked for before that leaves it alone). */
  seen: number;
};

/** The job running on the open session (whichever window started it), or null. */
export function selectRunning(state: CanopyState): RunningJob | null {
  const sessionId = state.selectedSessionId;
  return (sessionId !== null && state.runningJobs[sessionId]) || null;
}

/** How many ended job ids are remembered, so that a job:list answer sent before the end is not believed. */
const ENDED_MEMORY = 100;

export interface JobsSlice {
  plan: CompactionPlanDto | null;
  planError: string | null;
  /** The keepRecentTokens the plan was asked for (null: the setting), reused when it runs. */
  planKeepRecentTokens: number | null;
  /** The running compaction or branch summary of each session, by session id. */
  runningJobs: Record<string, RunningJob>;
  jobMessage: JobMessage | null;
  previewCompaction(keepRecentTokens?: number): Promise<void>;
  closePlan(): void;
  runCompaction(customInstructions: string): Promise<void>;
  navigateTo(targetId: string, summarize: boolean, customInstructions?: string): Promise<NavigationResultDto | null>;
  /** Cancels the open session's running job (Escape, Cancel), whichever window started it. */
  cancelRunning(): Promise<void>;
  /** Asks which jobs run (the window opened, reloaded or its event socket came back). */
  loadRunningJobs(): Promise<void>;
  jobStarted(job: RunningJobDto): void;
  jobEnded(job: JobEndedDto): void;
  jobProgressed(job: Events["job:progressed"]): void;
}

export const createJobsSlice: StateCreator<CanopyState, [], [], JobsSlice> = (set, get) => {
  let learnt = 0;
  const endedIds = new Set<string>();
  const putJob = (job: Omit<RunningJob, "seen">) =>
    set((state) => ({ runningJobs: { ...state.runningJobs, [job.sessionId]: { ...job, seen: ++learnt } } }));
  /** Forgets the session's job when `which` is it. */
  const dropJob = (sessionId: string, which: (job: RunningJob) => boolean) => {
    const job = get().runningJobs[sessionId];
    if (!job || !which(job)) return;
    const { [sessionId]: _gone, ...rest } = get().runningJobs;
    set({ runningJobs: rest });
  };
  /** This window's request ended: its job is over (the main side may still be telling so). */
  const ownJobOver = (sessionId: string, error?: unknown) => {
    dropJob(sessionId, (job) => job.here);
    // Refused because another window's job holds the session: show that one.
    if (error instanceof ApiCallError && error.code === "conflict") void get().loadRunningJobs();
  };
  const refresh = async (sessionId: string) => {
    set({ selectedEntryId: null });
    await Promise.all([
      get().loadContext(sessionId, undefined),
      get().loadTree(sessionId),
    ]);
  };
  return {
    plan: null,
    planError: null,
    planKeepRecentTokens: null,
    runningJobs: {},
    jobMessage: null,
    async previewCompaction(keepRecentTokens) {
      const sessionId = get().selectedSessionId;
      if (!sessionId) return;
      set({ planError: null, jobMessage: null, planKeepRecentTokens: keepRecentTokens ?? null });
      try {
        const plan = await call("compaction:preview", keepRecentTokens ? { sessionId, keepRecentTokens } : { sessionId });
        // A slower answer for an older slider position must not replace a newer one.
        if ((get().planKeepRecentTokens ?? undefined) === keepRecentTokens) set({ plan });
      } catch (error) {
        set({ plan: null, planError: (error as Error).message });
      }
    },
    closePlan() {
      set({ plan: null, planError: null, planKeepRecentTokens: null });
    },
    async runCompaction(customInstructions) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().runningJobs[sessionId]) return;
      putJob({ kind: "compaction", sessionId, text: "", jobId: null, here: true });
      set({ jobMessage: null });
      let failure: unknown;
      try {
        const instructions = customInstructions.trim();
        const keepRecentTokens = get().planKeepRecentTokens;
        const result = await call("compaction:run", {
          sessionId,
          ...(instructions ? { customInstructions: instructions } : {}),
          ...(keepRecentTokens ? { keepRecentTokens } : {}),
        });
        set({ plan: null, planKeepRecentTokens: null, jobMessage: { kind: "ok", text: compactionAdded(result.entryId) } });
        await refresh(sessionId);
      } catch (error) {
        failure = error;
        const cancelled = error instanceof ApiCallError && error.code === "cancelled";
        set({ jobMessage: { kind: cancelled ? "ok" : "error", text: cancelled ? COMPACTION_CANCELLED : `Compaction failed: ${(error as Error).message}` } });
      } finally {
        ownJobOver(sessionId, failure);
      }
    },
    async navigateTo(targetId, summarize, customInstructions) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().runningJobs[sessionId]) return null;
      if (summarize) putJob({ kind: "branch-summary", sessionId, text: "", jobId: null, here: true });
      set({ jobMessage: null });
      let failure: unknown;
      try {
        const instructions = customInstructions?.trim();
        const result = await call("navigation:navigate", {
          sessionId,
          targetId,
          summarize,
          ...(instructions ? { customInstructions: instructions } : {}),
        });
        if (result.cancelled) {
          set({ jobMessage: { kind: "ok", text: "Branch summarization cancelled; nothing changed." } });
        } else {
          const where = result.summaryEntryId
            ? `Moved to ${targetId}'s branch with branch summary ${result.summaryEntryId}`
            : `Moved to ${result.newLeafId ?? "the start of the session"}`;
          // The target message's text goes to the composer only when it is empty (SPEC §10.4):
          // a draft the user typed is never replaced.
          const draft = get().composerText;
          const editorText = result.editorText ?? "";
          const fill = editorText !== "" && draft.trim() === "";
          const editor = editorText === ""
            ? ""
            : fill
              ? " The message's text is in the composer."
              : " Your draft stays in the composer (the message's text was not put there).";
          set({
            jobMessage: { kind: "ok", text: `${where}.${editor}` },
            composerText: fill ? editorText : draft,
          });
        }
        await refresh(sessionId);
        return result;
      } catch (error) {
        failure = error;
        set({ jobMessage: { kind: "error", text: `Navigation failed: ${(error as Error).message}` } });
        return null;
      } finally {
        ownJobOver(sessionId, failure);
      }
    },
    async cancelRunning() {
      const running = selectRunning(get());
      if (!running) return;
      try {
        await call(running.kind === "compaction" ? "compaction:abort" : "navigation:abort", { sessionId: running.sessionId });
      } catch (error) {
        set({ jobMessage: { kind: "error", text: `Could not cancel: ${(error as Error).message}` } });
      }
    },
    async loadRunningJobs() {
      const asked = learnt;
      let listed: ListedJobDto[];
      try {
        listed = (await call("job:list", {})).filter(isSummary);
      } catch (error) {
        set({ jobMessage: { kind: "error", text: `Could not ask which compactions are running: ${(error as Error).message}` } });
        return;
      }
      const listedIds = new Set(listed.map((job) => job.jobId));
      const kept: Record<string, RunningJob> = {};
      for (const job of Object.values(get().runningJobs)) {
        // A job heard of before asking that the answer leaves out has ended meanwhile (unheard).
        if (job.here || job.seen > asked || (job.jobId !== null && listedIds.has(job.jobId))) kept[job.sessionId] = job;
      }
      set({ runningJobs: kept });
      for (const job of listed) {
        if (!endedIds.has(job.jobId) && !get().runningJobs[job.sessionId] && isSummary(job))
          putJob({ jobId: job.jobId, sessionId: job.sessionId, kind: job.kind, text: job.text, here: false });
      }
    },
    jobStarted(job) {
      if (!isSummary(job)) return;
      const known = get().runningJobs[job.sessionId];
      if (known?.jobId === job.jobId) return;
      // This window's own request, heard start: it gets its id.
      if (known?.here && known.jobId === null) putJob({ ...known, jobId: job.jobId });
      else putJob({ jobId: job.jobId, sessionId: job.sessionId, kind: job.kind, text: "", here: false });
    },
    jobEnded(job) {
      endedIds.add(job.jobId);
      if (endedIds.size > ENDED_MEMORY) endedIds.delete(endedIds.values().next().value as string);
      const known = get().runningJobs[job.sessionId];
      if (known?.jobId !== job.jobId) return;
      dropJob(job.sessionId, () => true);
      // Started in another window: say how it ended here too, and show what it changed.
      if (known.here) return;
      if (get().selectedSessionId === job.sessionId) set({ jobMessage: jobEndedMessage(job) });
      get().refreshOpenSession(job.sessionId);
    },
    jobProgressed(job) {
      if (job.text === undefined || job.sessionId === undefined) return;
      const known = get().runningJobs[job.sessionId];
      // Only this job's text (a chat turn's automatic compaction streams under its own id).
      if (!known || (known.jobId !== null && known.jobId !== job.jobId)) return;
      set({ runningJobs: { ...get().runningJobs, [job.sessionId]: { ...known, text: job.text } } });
    },
  };
};
