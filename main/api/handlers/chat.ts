/**
 * Handlers of the `chat:` channels (D17): a chat turn runs as the session's job, told to every
 * window as it starts and ends (announced-job.ts), so a second turn, a compaction or a branch
 * summary started meanwhile is a conflict, any window shows the reply coming, and `chat:abort`
 * (from any window) cancels it together with the automatic compaction it started.
 */
import type { ChatTurnResultDto } from "../../../core/api/dto-app.ts";
import { type OutcomeOf, runAnnounced } from "../../pipelines/announced-job.ts";
import { answeredText, runChatTurn, runContinueTurn } from "../../pipelines/chat-turn.ts";
import type { AreaHandlers } from "../types.ts";

/** A turn that returned is done (what it wrote stays, even when a later step was cancelled). */
const turnOutcome: OutcomeOf<ChatTurnResultDto> = (turn) => ({
  outcome: "done",
  entryId: turn.assistantEntryId,
  turn,
});

export const chatHandlers: AreaHandlers<"chat"> = {
  "chat:send": (input, ctx) =>
    runAnnounced(ctx, {
      sessionId: input.sessionId,
      kind: "chat",
      announced: true,
      chat: { userText: input.text, continuing: false },
      run: (job) => runChatTurn(ctx, input, job),
      outcomeOf: turnOutcome,
    }),
  "chat:continue": (input, ctx) =>
    runAnnounced(ctx, {
      sessionId: input.sessionId,
      kind: "chat",
      announced: true,
      // Read in the same tick as the job starts: nothing can move the view leaf in between.
      chat: { userText: answeredText(ctx, input.sessionId), continuing: true },
      run: (job) => runContinueTurn(ctx, input, job),
      outcomeOf: turnOutcome,
    }),
  "chat:abort": (input, ctx) => ({ aborted: ctx.jobs.abort(input.sessionId, "chat") }),
};
