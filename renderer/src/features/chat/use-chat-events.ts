/**
 * Feeds the store from main's chat events: the streamed reply (and its retries) of the session's
 * running chat turn, whichever window asked for it, and the automatic compaction's start,
 * retries and end.
 */
import { useEffect } from "react";
import { modelErrorInWords } from "../../../../core/llm/error-words.ts";
import { onEvent } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";

export function useChatEvents(): void {
  useEffect(() => {
    const state = () => useCanopy.getState();
    const offs = [
      onEvent("chat:progressed", (payload) => state().jobStreamed(payload.sessionId, payload.jobId, payload.text)),
      onEvent("compaction:auto-started", (payload) => state().autoCompactionStarted(payload.sessionId, payload.reason)),
      onEvent("compaction:auto-ended", (payload) => state().autoCompactionEnded(payload)),
      onEvent("compaction:retry-started", (payload) =>
        state().autoCompactionRetry(
          payload.sessionId,
          `Retrying the summary (${payload.attempt}/${payload.maxAttempts}) after: ${modelErrorInWords(payload.errorMessage)}`,
        ),
      ),
      onEvent("chat:retry-started", (payload) =>
        state().jobStreamed(
          payload.sessionId,
          null,
          "",
          `The reply failed (${modelErrorInWords(payload.errorMessage)}), retry ${payload.attempt}/${payload.maxAttempts}`,
          Date.now() + payload.delayMs,
        ),
      ),
      onEvent("compaction:retry-ended", (payload) =>
        state().autoCompactionRetry(
          payload.sessionId,
          payload.success ? undefined : `Retries failed: ${payload.finalError ?? "unknown error"}`,
        ),
      ),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, []);
}
