/**
 * Outcome lines of work on one session (a reply, a compaction, a branch summary, an edit) that
 * may end after the user opened another: such a line names the session it is about, or it would
 * read as if it were about the one on screen.
 */
import type { CanopyState } from "./index.ts";

/** The session's title as the list shows it (its first message without one; its id if unknown). */
export function sessionTitle(state: Pick<CanopyState, "sessions">, sessionId: string): string {
  const summary = state.sessions.find((session) => session.id === sessionId);
  return summary ? (summary.title ?? summary.firstMessage) : sessionId;
}

/** `message` as is when `sessionId` is open, else its text starts with the session's title. */
export function aboutSession<T extends { kind: "ok" | "error"; text: string }>(
  state: Pick<CanopyState, "sessions" | "selectedSessionId">,
  sessionId: string,
  message: T,
): T {
  if (sessionId === state.selectedSessionId) return message;
  return { ...message, text: `In “${sessionTitle(state, sessionId)}”: ${message.text}` };
}

/** The composer draft of `sessionId`: the composer's text when it is open, else the kept draft. */
export function draftOf(
  state: Pick<CanopyState, "selectedSessionId" | "composerText" | "drafts">,
  sessionId: string,
): string {
  return state.selectedSessionId === sessionId ? state.composerText : (state.drafts[sessionId] ?? "");
}
