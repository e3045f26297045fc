/**
 * Chat slice: continuing the selected session from its view leaf (chat:send, D17) or answering
 * the user message at the view leaf ("Continue from here", chat:continue) — the turn is one of
 * the session's running jobs (jobs-slice.ts), so every window shows its reply as it streams and
 * can cancel it; when this window's reply is cancelled its text goes back into the composer —,
 * the automatic compaction the turn may trigger (SPEC §9.3–9.4: started/ended events and the
 * failure messages, kept with the running turn too), and the app-wide notices (desktop menu
 * commands, dropped files, exports, deletes) plus the settings panel's open state (the "No model
 * configured" message links to it).
 */
import type { StateCreator } from "zustand";
import { type ChatTurnResultDto, SAVED_ELSEWHERE } from "../../../core/api/dto-app.ts";
import type { SummaryCutOff } from "../../../core/compaction/types.ts";
import { ApiCallError, call } from "../api.ts";
import type { CanopyState } from "./index.ts";
import { chatTurnMessage, REPLY_CANCELLED } from "./job-messages.ts";
import { type ChatAutoCompaction, selectChat } from "./jobs-slice.ts";
import { aboutSession } from "./session-outcome.ts";

export type AutoCompactionState = {
  sessionId: string;
  reason: "threshold" | "overflow";
  status: "running" | "done" | "failed" | "aborted";
  /** The compaction entry, when one was appended. */
  entryId: string | null;
  errorMessage?: string;
  /** done: its summary calls that stopped at the output limit. */
  cutOff?: SummaryCutOff[];
  /** A summary call is being retried ("Retrying (2/3) after …"). */
  retry?: string;
};

export interface ChatMessage {
  kind: "ok" | "error";
  text: string;
  /** The message is about the missing model: offer to open the settings. */
  settingsLink?: boolean;
}

export interface AppNotice {
  level: "info" | "error";
  message: string;
  /** The notice reports deleting this session: it offers Undo. */
  undoDeleteOf?: string;
  /**
   * The session the notice is about (an export): it shows only while that session is open and
   * is dropped when another one is opened. Absent: about the app, shown whatever is open.
   */
  sessionId?: string;
}

export interface ChatSlice {
  chatMessage: ChatMessage | null;
  autoCompaction: AutoCompactionState | null;
  lastTurn: ChatTurnResultDto | null;
  notice: AppNotice | null;
  settingsOpen: boolean;
  /** Sends the composer text from the view leaf of the selected session. */
  sendChat(): Promise<void>;
  /** Asks the model to answer the user message at the view leaf (`userText`, no new message). */
  continueChat(userText: string): Promise<void>;
  autoCompactionStarted(sessionId: string, reason: "threshold" | "overflow"): void;
  autoCompactionEnded(payload: {
    sessionId: string;
    reason: "threshold" | "overflow";
    entryId: string | null;
    aborted: boolean;
    errorMessage?: string;
    cutOff?: SummaryCutOff[];
  }): void;
  autoCompactionRetry(sessionId: string, text: string | undefined): void;
  clearChatMessage(): void;
  notify(notice: AppNotice | null): void;
  setSettingsOpen(open: boolean): void;
}

/**
 * The automatic compaction to show for the open session: its running turn's (every window keeps
 * it, and job:list gives it to one opened meanwhile), else the last one this window was told.
 */
export function selectAutoCompaction(state: CanopyState): ChatAutoCompaction | AutoCompactionState | null {
  const running = selectChat(state)?.autoCompaction;
  if (running) return running;
  return state.autoCompaction?.sessionId === state.selectedSessionId ? state.autoCompaction : null;
}

/** The main side's "No model configured: set one in Settings …" (main/pipelines/chat-turn.ts). */
const isNoModel = (message: string) => message.startsWith("No model configured");

export const createChatSlice: StateCreator<CanopyState, [], [], ChatSlice> = (set, get) => {
  const refresh = async (sessionId: string) => {
    if (get().selectedSessionId !== sessionId) return;
    set({ selectedEntryId: null });
    await Promise.all([
      get().loadTree(sessionId),
      get().loadContext(sessionId, undefined),
    ]);
  };

  /** Runs this window's turn as the session's job; `failed` says what went wrong, if it did. */
  const runTurn = async (
    sessionId: string,
    chat: { userText: string; continuing: boolean },
    request: () => Promise<ChatTurnResultDto>,
    failed: (error: unknown, cancelled: boolean) => void,
  ): Promise<void> => {
    get().ownJobStarting({ kind: "chat", sessionId, chat });
    set({ chatMessage: null, autoCompaction: null });
    let failure: unknown;
    try {
      const result = await request();
      set({ lastTurn: result, chatMessage: aboutSession(get(), sessionId, chatTurnMessage(result)) });
      await refresh(sessionId);
    } catch (error) {
      failure = error;
      const cancelled = error instanceof ApiCallError && error.code === "cancelled";
      failed(error, cancelled);
      if (cancelled) await refresh(sessionId);
    } finally {
      get().ownJobOver(sessionId, failure);
    }
  };
  const failureMessage = (error: unknown): ChatMessage => {
    const message = (error as Error).message;
    return { kind: "error", text: message, settingsLink: isNoModel(message) };
  };

  return {
    chatMessage: null,
    autoCompaction: null,
    lastTurn: null,
    notice: null,
    settingsOpen: false,
    async sendChat() {
      const sessionId = get().selectedSessionId;
      const text = get().composerText;
      if (!sessionId || text.trim() === "" || get().runningJobs[sessionId]) return;
      set({ composerText: "" });
      await runTurn(
        sessionId,
        { userText: text, continuing: false },
        () => call("chat:send", { sessionId, text }),
        (error, cancelled) => {
          // Nothing was appended: the message goes back to its session's draft (unless retyped);
          // not when the failure only says where the message and its reply were saved.
          if (cancelled || !(error as Error).message.includes(SAVED_ELSEWHERE)) get().restoreDraft(sessionId, text);
          const message: ChatMessage = cancelled
            ? { kind: "ok", text: `${REPLY_CANCELLED} Your message is back in the composer.` }
            : failureMessage(error);
          set({ chatMessage: aboutSession(get(), sessionId, message) });
        },
      );
    },
    async continueChat(userText) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().runningJobs[sessionId]) return;
      await runTurn(
        sessionId,
        { userText, continuing: true },
        () => call("chat:continue", { sessionId }),
        (error, cancelled) => {
          const message: ChatMessage = cancelled ? { kind: "ok", text: REPLY_CANCELLED } : failureMessage(error);
          set({ chatMessage: aboutSession(get(), sessionId, message) });
        },
      );
    },
    autoCompactionStarted(sessionId, reason) {
      // Kept with the session's running turn too: shown when the session is opened meanwhile.
      get().chatJobAutoCompaction(sessionId, { reason, status: "running", entryId: null });
      if (get().selectedSessionId !== sessionId) return;
      set({ autoCompaction: { sessionId, reason, status: "running", entryId: null } });
    },
    autoCompactionEnded(payload) {
      const status = payload.errorMessage ? "failed" : payload.aborted ? "aborted" : "done";
      get().chatJobAutoCompaction(payload.sessionId, {
        reason: payload.reason,
        status,
        entryId: payload.entryId,
        ...(payload.errorMessage ? { errorMessage: payload.errorMessage } : {}),
        ...(payload.cutOff ? { cutOff: payload.cutOff } : {}),
      });
      if (get().selectedSessionId !== payload.sessionId) return;
      set({
        autoCompaction: {
          sessionId: payload.sessionId,
          reason: payload.reason,
          status,
          entryId: payload.entryId,
          ...(payload.errorMessage ? { errorMessage: payload.errorMessage } : {}),
          ...(payload.cutOff ? { cutOff: payload.cutOff } : {}),
        },
      });
      // The tree shows the new compaction while the auto-continue reply is still coming.
      if (status === "done") get().refreshOpenSession(payload.sessionId);
    },
    autoCompactionRetry(sessionId, text) {
      const running = get().runningJobs[sessionId]?.autoCompaction;
      if (running) {
        const { retry: _was, ...auto } = running;
        get().chatJobAutoCompaction(sessionId, text ? { ...auto, retry: text } : auto);
      }
      const current = get().autoCompaction;
      if (!current || current.sessionId !== sessionId) return;
      const { retry: _old, ...rest } = current;
      set({ autoCompaction: text ? { ...rest, retry: text } : rest });
    },
    clearChatMessage() {
      set({ chatMessage: null });
    },
    notify(notice) {
      set({ notice });
    },
    setSettingsOpen(open) {
      set({ settingsOpen: open });
    },
  };
};
