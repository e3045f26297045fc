// A branch summary another window (or the CLI) started and that failed: before, this window's
// outcome line had no Retry (only the window that asked knew what to ask again). job:ended now
// tells the move asked for and the error's code: Retry is offered where asking again can work
// (the model failed, or the view leaf moved meanwhile), as asked; not for other failures.
import { describe, expect, it } from "vitest";
import type { JobEndedDto } from "../../core/api/dto-jobs.ts";
import { jobEndedMessage } from "../../renderer/src/store/job-messages.ts";

const failed = (extra: Partial<JobEndedDto>): JobEndedDto => ({
  jobId: "j1",
  sessionId: "s1",
  kind: "branch-summary",
  outcome: "failed",
  entryId: null,
  errorMessage: "The view leaf was moved while the summary was being written; nothing was saved. Run it again.",
  ...extra,
});

describe("a branch summary that failed elsewhere", () => {
  it("refused as the view leaf moved: Retry, with the instructions asked", () => {
    const message = jobEndedMessage(
      failed({ errorCode: "conflict", asked: { targetId: "a1", customInstructions: "Keep it", replacePrompt: true } }),
    );
    expect(message).toEqual({
      kind: "error",
      text: "Branch summary failed: The view leaf was moved while the summary was being written; nothing was saved. Run it again.",
      retry: { sessionId: "s1", targetId: "a1", customInstructions: "Keep it", replacePrompt: true },
    });
  });

  it("the model failed: Retry; other failures, or none told of the move: no Retry", () => {
    expect(jobEndedMessage(failed({ errorCode: "model_error", asked: { targetId: "a1" } })).retry).toEqual({
      sessionId: "s1",
      targetId: "a1",
    });
    expect(jobEndedMessage(failed({ errorCode: "invalid_input", asked: { targetId: "a1" } })).retry).toBeUndefined();
    expect(jobEndedMessage(failed({ errorCode: "conflict" })).retry).toBeUndefined();
    expect(jobEndedMessage(failed({ kind: "compaction", errorCode: "model_error" })).retry).toBeUndefined();
  });
});
