/**
 * Session slice: the selected session's entries and problems (for the branch list), and the
 * composer text that navigation to a user message fills (SPEC §2.8).
 */
import type { StateCreator } from "zustand";
import type { SessionDetail } from "../../../core/api/dto.ts";
import { call } from "../api.ts";
import type { CanopyState } from "./index.ts";

export interface SessionSlice {
  detail: SessionDetail | null;
  detailError: string | null;
  composerText: string;
  loadSessionDetail(sessionId: string): Promise<void>;
  setComposerText(text: string): void;
}

export const createSessionSlice: StateCreator<CanopyState, [], [], SessionSlice> = (set, get) => ({
  detail: null,
  detailError: null,
  composerText: "",
  async loadSessionDetail(sessionId) {
    try {
      const detail = await call("session:get", { sessionId });
      if (get().selectedSessionId === sessionId) set({ detail, detailError: null });
    } catch (error) {
      set({ detail: null, detailError: (error as Error).message });
    }
  },
  setComposerText(text) {
    set({ composerText: text });
  },
});
