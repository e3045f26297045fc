/**
 * DTOs of the summary jobs a client starts (a manual compaction, a branch summary): the ones
 * running now (job:list, for a window that opens or reloads meanwhile) and how one ended, told
 * to every window (job:started / job:ended), whichever window started it.
 */

export type SummaryJobKind = "compaction" | "branch-summary";

export interface RunningJobDto {
  jobId: string;
  sessionId: string;
  kind: SummaryJobKind;
}

/** done: it finished (whatever it appended); cancelled: nothing changed; failed: see the message. */
export type JobOutcome = "done" | "cancelled" | "failed";

export interface JobEndedDto extends RunningJobDto {
  outcome: JobOutcome;
  /** done: the entry it appended (compaction, branch summary); null when it appended none. */
  entryId: string | null;
  /** failed: the one-line reason. */
  errorMessage?: string;
}
