/**
 * Session slice: the composer text that navigation to a user message fills (SPEC §2.8). The
 * open session itself is its tree (tree-slice): the renderer never loads every entry's JSON.
 */
import type { StateCreator } from "zustand";
import type { CanopyState } from "./index.ts";

export interface SessionSlice {
  composerText: string;
  setComposerText(text: string): void;
}

export const createSessionSlice: StateCreator<CanopyState, [], [], SessionSlice> = (set) => ({
  composerText: "",
  setComposerText(text) {
    set({ composerText: text });
  },
});
