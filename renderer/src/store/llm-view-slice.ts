/**
 * LLM-view slice: the message list the model receives at the selected leaf (SPEC D4).
 */
import type { StateCreator } from "zustand";
import type { ContextView } from "../../../core/api/dto.ts";
import { call } from "../api.ts";
import type { CanopyState } from "./index.ts";

export interface LlmViewSlice {
  context: ContextView | null;
  contextLoading: boolean;
  contextError: string | null;
  loadContext(sessionId: string | null, leafId: string | null | undefined): Promise<void>;
}

export const createLlmViewSlice: StateCreator<CanopyState, [], [], LlmViewSlice> = (set, get) => ({
  context: null,
  contextLoading: false,
  contextError: null,
  async loadContext(sessionId, leafId) {
    if (!sessionId) {
      set({ context: null, contextError: null });
      return;
    }
    set({ contextLoading: true, contextError: null });
    try {
      const context = await call("context:get", leafId === undefined ? { sessionId } : { sessionId, leafId });
      // Ignore a late answer for a session that is no longer selected.
      if (get().selectedSessionId === sessionId) set({ context, contextLoading: false });
    } catch (error) {
      set({ context: null, contextLoading: false, contextError: (error as Error).message });
    }
  },
});
