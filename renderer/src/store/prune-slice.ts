/**
 * Prune slice: the pruning plan on screen (Prune…, for the selected entry's path or the view
 * leaf's), applying it, and restoring every pruned tool output of the session (SPEC §7, D9). The
 * outcome goes to the job message line, as a compaction's; the tree and LLM view reload after.
 */
import type { StateCreator } from "zustand";
import type { PrunePlanDto } from "../../../core/api/dto.ts";
import { call } from "../api.ts";
import { prunedSentence, restoredSentence } from "../features/pruning/prune-words.ts";
import type { CanopyState } from "./index.ts";
import { sessionBusyText } from "./jobs-slice.ts";
import { aboutSession } from "./session-outcome.ts";

export interface PruneSlice {
  /** The pruning plan on screen (its session and the leaf it is for are in it). */
  prunePlan: PrunePlanDto | null;
  /** The entry the plan was asked for (the one selected then); null: the view leaf. */
  pruneAskedLeaf: string | null;
  /** Why the plan could not be made, in one line. */
  pruneError: string | null;
  /** What pruning is doing on the open session: making the plan, pruning, restoring; null: nothing. */
  pruneBusy: "preview" | "apply" | "restore" | null;
  /** Shows what pruning would do at the selected entry (none: the view leaf); the compaction plan closes. */
  previewPrune(): Promise<void>;
  /** Prunes what the plan on screen names (at its leaf). */
  applyPrune(): Promise<void>;
  /** Puts every pruned tool output of the open session back. */
  restorePruned(): Promise<void>;
  closePrune(): void;
  /** The session changed (an event): its plan on screen is made again. */
  pruneFollowsSession(sessionId: string): void;
}

/** How long a burst of change events is let settle before the plan is asked again. */
const FOLLOW_MS = 100;

export const createPruneSlice: StateCreator<CanopyState, [], [], PruneSlice> = (set, get) => {
  // Only the latest plan request's answer is shown.
  let planRequest = 0;
  let followTimer: ReturnType<typeof setTimeout> | null = null;

  /** Asks for the plan at `leaf` (null: the view leaf); shown only if still the latest and its session open. */
  const askPlan = async (sessionId: string, leaf: string | null) => {
    const request = ++planRequest;
    try {
      const plan = await call("pruning:preview", leaf === null ? { sessionId } : { sessionId, leafId: leaf });
      if (request === planRequest && get().selectedSessionId === sessionId)
        set({ prunePlan: plan, pruneError: null });
    } catch (error) {
      if (request === planRequest && get().selectedSessionId === sessionId)
        set({ prunePlan: null, pruneError: `Could not plan the pruning: ${(error as Error).message}` });
    }
  };

  /** The tree (its `pruned` badges) and the LLM view (the notices) as they are now; the selection stays. */
  const refresh = async (sessionId: string) => {
    if (get().selectedSessionId !== sessionId) return;
    await Promise.all([
      get().loadTree(sessionId),
      get().loadContext(sessionId, get().selectedEntryId ?? undefined),
    ]);
  };

  /** A job holds the session (the main side may be writing it): says so, true. */
  const refusedBusy = (sessionId: string): boolean => {
    const job = get().runningJobs[sessionId];
    if (!job) return false;
    set({ jobMessage: { kind: "error", text: sessionBusyText(job.kind) } });
    return true;
  };

  return {
    prunePlan: null,
    pruneAskedLeaf: null,
    pruneError: null,
    pruneBusy: null,
    async previewPrune() {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().pruneBusy !== null) return;
      get().closePlan();
      const leaf = get().selectedEntryId;
      set({ pruneAskedLeaf: leaf, pruneError: null, pruneBusy: "preview", jobMessage: null });
      try {
        await askPlan(sessionId, leaf);
      } finally {
        set({ pruneBusy: null });
      }
    },
    async applyPrune() {
      const plan = get().prunePlan;
      const sessionId = plan?.sessionId;
      if (!plan?.willPrune || !sessionId || sessionId !== get().selectedSessionId || get().pruneBusy !== null)
        return;
      if (refusedBusy(sessionId)) return;
      set({ pruneBusy: "apply", jobMessage: null });
      try {
        const result = await call(
          "pruning:apply",
          plan.leafId === null ? { sessionId } : { sessionId, leafId: plan.leafId },
        );
        set({ jobMessage: aboutSession(get(), sessionId, { kind: "ok", text: prunedSentence(result) }) });
        // The plan is made again: what is left to prune there (usually nothing, said plainly).
        await Promise.all([refresh(sessionId), askPlan(sessionId, get().pruneAskedLeaf)]);
      } catch (error) {
        set({
          jobMessage: aboutSession(get(), sessionId, {
            kind: "error",
            text: `Pruning failed: ${(error as Error).message}`,
          }),
        });
      } finally {
        set({ pruneBusy: null });
      }
    },
    async restorePruned() {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().pruneBusy !== null) return;
      if (refusedBusy(sessionId)) return;
      set({ pruneBusy: "restore", jobMessage: null });
      try {
        const result = await call("pruning:restore", { sessionId });
        set({ jobMessage: aboutSession(get(), sessionId, { kind: "ok", text: restoredSentence(result) }) });
        const open = get().prunePlan?.sessionId === sessionId;
        await Promise.all([refresh(sessionId), open ? askPlan(sessionId, get().pruneAskedLeaf) : undefined]);
      } catch (error) {
        set({
          jobMessage: aboutSession(get(), sessionId, {
            kind: "error",
            text: `Restore failed: ${(error as Error).message}`,
          }),
        });
      } finally {
        set({ pruneBusy: null });
      }
    },
    closePrune() {
      planRequest++;
      set({ prunePlan: null, pruneError: null, pruneAskedLeaf: null });
    },
    pruneFollowsSession(sessionId) {
      if (get().prunePlan?.sessionId !== sessionId) return;
      if (followTimer !== null) clearTimeout(followTimer);
      followTimer = setTimeout(() => {
        followTimer = null;
        // Pruning or restoring here asks for the plan itself once done.
        if (get().prunePlan?.sessionId === sessionId && get().pruneBusy === null)
          void askPlan(sessionId, get().pruneAskedLeaf);
      }, FOLLOW_MS);
    },
  };
};
