/**
 * Jobs slice: the compaction plan on screen, the running compaction or branch summary (with the
 * streamed text), its cancellation, and the outcome message.
 */
import type { StateCreator } from "zustand";
import type { CompactionPlanDto, NavigationResultDto } from "../../../core/api/dto.ts";
import { ApiCallError, call } from "../api.ts";
import type { CanopyState } from "./index.ts";

export type RunningJob = { kind: "compaction" | "branch-summary"; sessionId: string; text: string };

export interface JobsSlice {
  plan: CompactionPlanDto | null;
  planError: string | null;
  /** The keepRecentTokens the plan was asked for (null: the setting), reused when it runs. */
  planKeepRecentTokens: number | null;
  running: RunningJob | null;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  previewCompaction(keepRecentTokens?: number): Promise<void>;
  closePlan(): void;
  runCompaction(customInstructions: string): Promise<void>;
  navigateTo(targetId: string, summarize: boolean, customInstructions?: string): Promise<NavigationResultDto | null>;
  cancelRunning(): Promise<void>;
  jobText(text: string): void;
}

export const createJobsSlice: StateCreator<CanopyState, [], [], JobsSlice> = (set, get) => {
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
    running: null,
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
      if (!sessionId || get().running) return;
      set({ running: { kind: "compaction", sessionId, text: "" }, jobMessage: null });
      try {
        const instructions = customInstructions.trim();
        const keepRecentTokens = get().planKeepRecentTokens;
        const result = await call("compaction:run", {
          sessionId,
          ...(instructions ? { customInstructions: instructions } : {}),
          ...(keepRecentTokens ? { keepRecentTokens } : {}),
        });
        set({ plan: null, planKeepRecentTokens: null, jobMessage: { kind: "ok", text: `Compaction ${result.entryId} added; the LLM view now starts with its summary.` } });
        await refresh(sessionId);
      } catch (error) {
        const cancelled = error instanceof ApiCallError && error.code === "cancelled";
        set({ jobMessage: { kind: cancelled ? "ok" : "error", text: cancelled ? "Compaction cancelled; nothing changed." : `Compaction failed: ${(error as Error).message}` } });
      } finally {
        set({ running: null });
      }
    },
    async navigateTo(targetId, summarize, customInstructions) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().running) return null;
      set({ running: summarize ? { kind: "branch-summary", sessionId, text: "" } : null, jobMessage: null });
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
        set({ jobMessage: { kind: "error", text: `Navigation failed: ${(error as Error).message}` } });
        return null;
      } finally {
        set({ running: null });
      }
    },
    async cancelRunning() {
      const running = get().running;
      if (!running) return;
      await call(running.kind === "compaction" ? "compaction:abort" : "navigation:abort", { sessionId: running.sessionId });
    },
    jobText(text) {
      const running = get().running;
      if (running) set({ running: { ...running, text } });
    },
  };
};
