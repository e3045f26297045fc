/**
 * The composer at the bottom of the center pane: a message sent from the session's view leaf
 * (chat:send; Ctrl/Cmd+Enter), the reply as it streams — also one another window asked for —,
 * Cancel/Escape (chat:abort: nothing is saved, and the text comes back to the window that sent
 * it), the automatic compaction the turn triggers, and the outcome.
 * Navigating to a user message fills it with that message (SPEC §2.8). When the view leaf is a
 * user message (e.g. one just edited as a new branch), "Continue from here" asks for its reply.
 * Send, Continue from here and Cancel become unavailable or go once pressed: the message box takes
 * their keyboard focus (Escape there cancels the reply), and has it back when the reply ends.
 */
import { type KeyboardEvent, type MouseEvent, useRef } from "react";
import { NO_MESSAGE_TYPED, REPLY_STREAMING } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { selectChat, selectRunning, sessionBusyText } from "../../store/jobs-slice.ts";
import { AutoCompactionStatus } from "./AutoCompactionStatus.tsx";
import { WaitingForModel } from "../common/WaitingForModel.tsx";
import { useReturnFocus } from "../common/return-focus.ts";
import { answeringText } from "../tree/entry-text.ts";
import { treeNode } from "../tree/tree-lookup.ts";

export function Composer() {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const viewLeafId = useCanopy((state) => (state.tree?.sessionId === state.selectedSessionId ? state.tree?.viewLeafId : null));
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const text = useCanopy((state) => state.composerText);
  const setText = useCanopy((state) => state.setComposerText);
  const chat = useCanopy(selectChat);
  const jobRunning = useCanopy((state) => selectRunning(state) !== null);
  // Why Send and Continue are unavailable (a compaction or branch summary runs), for their tooltip.
  const jobReason = useCanopy((state) => {
    const job = selectRunning(state);
    return job === null ? null : sessionBusyText(job.kind);
  });
  const refuseDuringJob = useCanopy((state) => state.refuseDuringJob);
  const message = useCanopy((state) => state.chatMessage);
  const sendChat = useCanopy((state) => state.sendChat);
  const continueChat = useCanopy((state) => state.continueChat);
  const leafNode = useCanopy((state) =>
    state.tree?.sessionId === state.selectedSessionId
      ? treeNode(state.tree?.nodes, state.tree?.viewLeafId)
      : undefined,
  );
  const cancelRunning = useCanopy((state) => state.cancelRunning);
  const context = useCanopy((state) => state.context);
  const openSettings = useCanopy((state) => state.setSettingsOpen);
  const box = useRef<HTMLTextAreaElement>(null);
  const streaming = chat !== null;
  // The reply over (Cancel gone with it): a focus left on the page goes to the message box.
  useReturnFocus(streaming, () => box.current);

  if (!sessionId) return null;
  const canSend = !streaming && !jobRunning && text.trim() !== "";
  // What the model would answer: a user (or custom) message at the view leaf.
  const answerable = leafNode !== undefined && (leafNode.kind === "user" || leafNode.type === "custom_message");

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (canSend) void sendChat();
      // The message stays in the box: the outcome line says why it was not sent.
      else if ((jobRunning || streaming) && text.trim() !== "") refuseDuringJob("Ctrl+Enter sent nothing");
    }
    // Escape bubbles to the window, which cancels the running turn (App.tsx).
  };
  /** A button pressed from the keyboard hands its focus to the message box (it is going). */
  const keepFocus = (event: MouseEvent<HTMLButtonElement>) => {
    if (document.activeElement === event.currentTarget) box.current?.focus();
  };

  return (
    <section className="composer panel" aria-label="Composer" data-testid="composer">
      {streaming && (
        <div className="chat-stream" data-testid="chat-stream" aria-live="polite">
          <p className="chat-user">
            <strong>{chat.chat?.continuing ? "Answering:" : "You:"}</strong> {chat.chat?.userText}
          </p>
          <p className="chat-reply" data-testid="chat-reply">
            {/* While its automatic compaction runs, that is what waits (its own line says so). */}
            {chat.text ||
              (chat.autoCompaction?.status === "running" ? null : (
                <WaitingForModel since={chat.since} retry={chat.retry} />
              ))}
          </p>
        </div>
      )}
      <AutoCompactionStatus />
      {message && (
        <p
          className={message.kind === "error" ? "error" : "ok"}
          role={message.kind === "error" ? "alert" : "status"}
          data-testid="chat-message"
        >
          {message.text}
          {message.settingsLink && (
            <>
              {" "}
              <button
                type="button"
                className="link-button"
                data-opens-settings=""
                onClick={() => openSettings(true)}
              >
                Open settings
              </button>
            </>
          )}
        </p>
      )}
      <label htmlFor="composer">
        Message from the view leaf{viewLeafId ? ` ${viewLeafId}` : ""}
        {selectedEntryId && selectedEntryId !== viewLeafId ? " (the selected entry is only previewed)" : ""}
      </label>
      <textarea
        ref={box}
        id="composer"
        rows={3}
        value={text}
        placeholder="Continue the conversation… (Ctrl+Enter to send, Escape to cancel)"
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="row">
        <button
          type="button"
          onClick={(event) => {
            keepFocus(event);
            void sendChat();
          }}
          disabled={!canSend}
          title={
            streaming
              ? REPLY_STREAMING
              : (jobReason ?? (text.trim() === "" ? NO_MESSAGE_TYPED : "Ctrl/Cmd+Enter"))
          }
        >
          Send
        </button>
        {answerable && !streaming && (
          <button
            type="button"
            onClick={(event) => {
              keepFocus(event);
              void continueChat(answeringText(leafNode, context));
            }}
            disabled={jobRunning}
            title={jobReason ?? "Ask the model to answer the message at the view leaf, without a new message"}
          >
            Continue from here
          </button>
        )}
        {streaming && (
          <button
            type="button"
            onClick={(event) => {
              keepFocus(event);
              void cancelRunning();
            }}
            title="Escape"
          >
            Cancel
          </button>
        )}
      </div>
    </section>
  );
}
