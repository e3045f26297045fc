/**
 * Session slice: the composer text, one draft per session. The open session's draft is
 * `composerText` (navigation to a user message fills it, SPEC §2.8); opening another session
 * keeps it aside and brings back that session's own, so a message typed for one session is never
 * sent to another. The open session itself is its tree (tree-slice).
 */
import type { StateCreator } from "zustand";
import type { CanopyState } from "./index.ts";

export interface SessionSlice {
  composerText: string;
  /** Drafts of the sessions not open now, by session id (empty drafts are not kept). */
  drafts: Record<string, string>;
  setComposerText(text: string): void;
  /** Keeps the open session's draft aside and takes `nextSessionId`'s (called on opening it). */
  switchDraft(nextSessionId: string | null): void;
  /** Puts `text` back as `sessionId`'s draft unless that draft holds something already. */
  restoreDraft(sessionId: string, text: string): void;
}

export const createSessionSlice: StateCreator<CanopyState, [], [], SessionSlice> = (set, get) => ({
  composerText: "",
  drafts: {},
  setComposerText(text) {
    set({ composerText: text });
  },
  switchDraft(nextSessionId) {
    const current = get().selectedSessionId;
    if (current === nextSessionId) return;
    const drafts = { ...get().drafts };
    if (current !== null) {
      if (get().composerText.trim() === "") delete drafts[current];
      else drafts[current] = get().composerText;
    }
    const composerText = nextSessionId === null ? "" : (drafts[nextSessionId] ?? "");
    if (nextSessionId !== null) delete drafts[nextSessionId];
    set({ drafts, composerText });
  },
  restoreDraft(sessionId, text) {
    if (get().selectedSessionId === sessionId) {
      if (get().composerText === "") set({ composerText: text });
    } else if (!get().drafts[sessionId]) {
      set({ drafts: { ...get().drafts, [sessionId]: text } });
    }
  },
});
