/**
 * DTOs of the long jobs a client starts on a session (a chat turn, a manual compaction, a branch
 * summary): the ones running now with the text they streamed so far (job:list, for a window that
 * opens or reloads meanwhile) and how one ended, told to every window (job:started / job:ended),
 * whichever window started it.
 */
import type { ChatTurnResultDto } from "./dto-app.ts";

export type JobKind = "chat" | "compaction" | "branch-summary";

/** What a chat turn answers, shown above its reply in every window. */
export interface ChatJobPrompt {
  /** chat:send: the message being sent; chat:continue: the user message at the view leaf (its first 200 characters). */
  userText: string;
  /** chat:continue: the message is already in the session (no new user message is written). */
  continuing: boolean;
}

export interface RunningJobDto {
  jobId: string;
  sessionId: string;
  kind: JobKind;
  /** Chat turns only. */
  chat?: ChatJobPrompt;
}

/** A job as job:list names it: with the text it streamed so far (the summary, or the reply). */
export interface ListedJobDto extends RunningJobDto {
  text: string;
}

/** done: it finished (whatever it appended); cancelled: nothing changed; failed: see the message. */
export type JobOutcome = "done" | "cancelled" | "failed";

export interface JobEndedDto extends RunningJobDto {
  outcome: JobOutcome;
  /** done: the entry it appended (compaction, branch summary, a chat turn's last reply); null when it appended none. */
  entryId: string | null;
  /** failed: the one-line reason. */
  errorMessage?: string;
  /** A chat turn that is done: what it did, as chat:send / chat:continue answered the window that asked. */
  turn?: ChatTurnResultDto;
}
