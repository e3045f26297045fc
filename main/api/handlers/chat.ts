/**
 * Handlers of the `chat:` channels (D17): a chat turn runs as the session's job, so a second
 * turn, a compaction or a branch summary started meanwhile is a conflict, and `chat:abort`
 * cancels it together with the automatic compaction it started.
 */
import { runChatTurn, runContinueTurn } from "../../pipelines/chat-turn.ts";
import type { AreaHandlers } from "../types.ts";

export const chatHandlers: AreaHandlers<"chat"> = {
  "chat:send": async (input, ctx) => {
    const job = ctx.jobs.start(input.sessionId, "chat");
    try {
      return await runChatTurn(ctx, input, job);
    } finally {
      ctx.jobs.finish(job);
    }
  },
  "chat:continue": async (input, ctx) => {
    const job = ctx.jobs.start(input.sessionId, "chat");
    try {
      return await runContinueTurn(ctx, input, job);
    } finally {
      ctx.jobs.finish(job);
    }
  },
  "chat:abort": (input, ctx) => ({ aborted: ctx.jobs.abort(input.sessionId, "chat") }),
};
