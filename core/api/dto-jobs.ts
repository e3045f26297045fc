/**
 * DTOs of the long jobs a client starts on a session (a chat turn, a manual compaction, a branch
 * summary): the ones running now with the text they streamed so far (job:list, for a window that
 * opens or reloads meanwhile) and how one ended, told to every window (job:started / job:ended),
 * whichever window started it.
 */
import type { ApiErrorCode } from "./dto.ts";
import type { ChatTurnResultDto } from "./dto-app.ts";
import type { SummaryCutOff } from "../compaction/types.ts";

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
  /**
   * job:started and job:list: a compaction's or branch summary's hooks at work (no summarizer
   * asked yet, or none at all: a hook wrote the summary); absent otherwise, and in job:ended.
   */
  hooks?: JobHooksDto;
}

/**
 * A chat turn's automatic compaction (SPEC §9.4), as compaction:auto-started / auto-ended tell
 * it: running now, or how the latest one of the turn ended (the turn may still be replying).
 */
export interface ChatAutoCompactionDto {
  reason: "threshold" | "overflow";
  status: "running" | "done" | "failed" | "aborted";
  /** done: the compaction entry appended (null when there was nothing to compact). */
  entryId: string | null;
  /** failed: `Auto-compaction failed: …` / `Context overflow recovery failed: …`. */
  errorMessage?: string;
  /** done: its summary calls that stopped at the output limit (saved as they came). */
  cutOff?: SummaryCutOff[];
}

/**
 * A compaction's or branch summary's hooks at work before any summarizer is asked (README ›
 * Prompts and hooks), told as job:hooks and listed with the job: `running`, the handlers of
 * `event` (a session_before_compact / session_before_tree one may write the summary itself;
 * session.compacting ones shape the request); `wrote`, one of them wrote the summary, so no
 * summarizer is asked. `files`: the hook modules with handlers for `event`.
 */
export interface JobHooksDto {
  event: "session_before_compact" | "session_before_tree" | "session.compacting";
  files: string[];
  status: "running" | "wrote";
}

/** A job as job:list names it: with the text it streamed so far (the summary, or the reply). */
export interface ListedJobDto extends RunningJobDto {
  text: string;
  /**
   * How long ago its current request was sent (ms, as of the listing; negative: a retry that
   * goes out later), so that a window that opens meanwhile counts the wait on from there.
   */
  requestAgeMs?: number;
  /** A chat turn whose automatic compaction has started: so a window that opens meanwhile shows it. */
  autoCompaction?: ChatAutoCompactionDto;
}

/** A branch summary as navigation:navigate was asked for it (without the session and summarize: true). */
export interface BranchSummaryAskedDto {
  targetId: string;
  customInstructions?: string;
  /** The instructions replace the branch-summary prompt (D13). */
  replacePrompt?: boolean;
}

/** done: it finished (whatever it appended); cancelled: nothing changed; failed: see the message. */
export type JobOutcome = "done" | "cancelled" | "failed";

export interface JobEndedDto extends RunningJobDto {
  outcome: JobOutcome;
  /** done: the entry it appended (compaction, branch summary, a chat turn's last reply); null when it appended none. */
  entryId: string | null;
  /** failed: the one-line reason. */
  errorMessage?: string;
  /** failed: the API error code (model_error, conflict…), which says whether asking again can work. */
  errorCode?: ApiErrorCode;
  /** A branch summary that failed: the move as it was asked, so that any window can offer Retry. */
  asked?: BranchSummaryAskedDto;
  /** A chat turn that is done: what it did, as chat:send / chat:continue answered the window that asked. */
  turn?: ChatTurnResultDto;
  /** A compaction or branch summary that is done: the summary calls cut off at the output limit. */
  cutOff?: SummaryCutOff[];
}
