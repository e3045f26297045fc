/**
 * Chat slice: continuing the selected session from its view leaf (chat:send, D17) or answering
 * the user message at the view leaf ("Continue from here", chat:continue), the reply as it streams, cancelling it (the text goes back into the composer), the automatic compaction
 * the turn may trigger (SPEC §9.3–9.4: started/ended events and the failure messages), and the
 * app-wide notices (desktop menu commands, dropped files, exports, deletes) plus the settings
 * panel's open state (the "No model configured" message links to it).
 */
import type { StateCreator } from "zustand";
import type { ChatTurnResultDto } from "../../../core/api/dto-app.ts";
import { toolsNotRunText } from "../../../core/session/tools-not-run.ts";
import { ApiCallError, call } from "../api.ts";
import type { CanopyState } from "./index.ts";
import { selectRunning } from "./jobs-slice.ts";

export interface RunningChat {
  sessionId: string;
  /** The message being sent (shown above the streamed reply; restored when cancelled). */
  userText: string;
  /** Answering the message already at the view leaf: nothing goes back into the composer. */
  continuing?: boolean;
  /** The reply streamed so far (chat:progressed). */
  replyText: string;
  /** The request failed with a transient error and is about to be sent again (chat:retry-started). */
  retry?: string;
}

export type AutoCompactionState = {
  sessionId: string;
  reason: "threshold" | "overflow";
  status: "running" | "done" | "failed" | "aborted";
  /** The compaction entry, when one was appended. */
  entryId: string | null;
  errorMessage?: string;
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
  chat: RunningChat | null;
  chatMessage: ChatMessage | null;
  autoCompaction: AutoCompactionState | null;
  lastTurn: ChatTurnResultDto | null;
  notice: AppNotice | null;
  settingsOpen: boolean;
  /** Sends the composer text from the view leaf of the selected session. */
  sendChat(): Promise<void>;
  /** Asks the model to answer the user message at the view leaf (no new message). */
  continueChat(userText: string): Promise<void>;
  /** Cancels the running chat turn (and its automatic compaction). */
  abortChat(): Promise<void>;
  chatProgressed(sessionId: string, text: string): void;
  chatRetrying(sessionId: string, text: string): void;
  autoCompactionStarted(sessionId: string, reason: "threshold" | "overflow"): void;
  autoCompactionEnded(payload: {
    sessionId: string;
    reason: "threshold" | "overflow";
    entryId: string | null;
    aborted: boolean;
    errorMessage?: string;
  }): void;
  autoCompactionRetry(sessionId: string, text: string | undefined): void;
  clearChatMessage(): void;
  notify(notice: AppNotice | null): void;
  setSettingsOpen(open: boolean): void;
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

  const outcome = (result: ChatTurnResultDto): ChatMessage => {
    const auto = result.autoCompaction;
    const parts: string[] = [];
    let kind: ChatMessage["kind"] = "ok";
    if (result.stopReason === "error" || result.stopReason === "aborted") {
      kind = "error";
      parts.push(`The reply failed: ${result.errorMessage ?? result.stopReason}`);
    } else {
      parts.push(`Reply ${result.assistantEntryId} added.`);
    }
    if (result.toolCallsNotRun) parts.push(toolsNotRunText(result.toolCallsNotRun));
    if (auto) {
      if (auto.errorMessage) {
        kind = "error";
        parts.push(auto.errorMessage);
      } else if (auto.aborted) {
        parts.push("The automatic compaction was cancelled; nothing was compacted.");
      } else if (auto.entryId) {
        parts.push(
          auto.reason === "overflow"
            ? `The context overflowed: compaction ${auto.entryId} summarized the history and the turn was retried.`
            : `The context passed the threshold: compaction ${auto.entryId} summarized the history.`,
        );
      }
    }
    if (result.cancelled && !auto?.aborted) parts.push("The rest of the turn was cancelled; what was written stays.");
    return { kind, text: parts.join(" ") };
  };

  return {
    chat: null,
    chatMessage: null,
    autoCompaction: null,
    lastTurn: null,
    notice: null,
    settingsOpen: false,
    async sendChat() {
      const sessionId = get().selectedSessionId;
      const text = get().composerText;
      if (!sessionId || text.trim() === "" || get().chat || selectRunning(get())) return;
      set({
        chat: { sessionId, userText: text, replyText: "" },
        chatMessage: null,
        autoCompaction: null,
        composerText: "",
      });
      try {
        const result = await call("chat:send", { sessionId, text });
        set({ lastTurn: result, chatMessage: outcome(result) });
        await refresh(sessionId);
      } catch (error) {
        const message = (error as Error).message;
        const cancelled = error instanceof ApiCallError && error.code === "cancelled";
        // Nothing was appended: the message goes back to its session's draft (unless retyped).
        get().restoreDraft(sessionId, text);
        set({
          chatMessage: cancelled
            ? { kind: "ok", text: "Reply cancelled; nothing was saved. Your message is back in the composer." }
            : { kind: "error", text: message, settingsLink: isNoModel(message) },
        });
        if (cancelled) await refresh(sessionId);
      } finally {
        set({ chat: null });
      }
    },
    async continueChat(userText) {
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().chat || selectRunning(get())) return;
      set({ chat: { sessionId, userText, replyText: "", continuing: true }, chatMessage: null, autoCompaction: null });
      try {
        const result = await call("chat:continue", { sessionId });
        set({ lastTurn: result, chatMessage: outcome(result) });
        await refresh(sessionId);
      } catch (error) {
        const cancelled = error instanceof ApiCallError && error.code === "cancelled";
        const message = (error as Error).message;
        set({
          chatMessage: cancelled
            ? { kind: "ok", text: "Reply cancelled; nothing was saved." }
            : { kind: "error", text: message, settingsLink: isNoModel(message) },
        });
        if (cancelled) await refresh(sessionId);
      } finally {
        set({ chat: null });
      }
    },
    async abortChat() {
      const chat = get().chat;
      if (!chat) return;
      try {
        await call("chat:abort", { sessionId: chat.sessionId });
      } catch (error) {
        set({ chatMessage: { kind: "error", text: `Could not cancel: ${(error as Error).message}` } });
      }
    },
    chatProgressed(sessionId, text) {
      const chat = get().chat;
      if (chat && chat.sessionId === sessionId) {
        const { retry: _done, ...rest } = chat;
        set({ chat: { ...rest, replyText: text } });
      }
    },
    chatRetrying(sessionId, text) {
      const chat = get().chat;
      if (chat && chat.sessionId === sessionId) set({ chat: { ...chat, replyText: "", retry: text } });
    },
    autoCompactionStarted(sessionId, reason) {
      if (get().selectedSessionId !== sessionId) return;
      set({ autoCompaction: { sessionId, reason, status: "running", entryId: null } });
    },
    autoCompactionEnded(payload) {
      if (get().selectedSessionId !== payload.sessionId) return;
      const status = payload.errorMessage ? "failed" : payload.aborted ? "aborted" : "done";
      set({
        autoCompaction: {
          sessionId: payload.sessionId,
          reason: payload.reason,
          status,
          entryId: payload.entryId,
          ...(payload.errorMessage ? { errorMessage: payload.errorMessage } : {}),
        },
      });
      // The tree shows the new compaction while the auto-continue reply is still coming.
      if (status === "done") get().refreshOpenSession(payload.sessionId);
    },
    autoCompactionRetry(sessionId, text) {
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
