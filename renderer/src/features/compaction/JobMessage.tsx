/**
 * The outcome of the last compaction or navigation, with Retry for a branch summary the model
 * failed. (The composer a navigation to a user message fills lives in features/chat/Composer.tsx.)
 */
import { useCanopy } from "../../store/index.ts";

export function JobMessage() {
  const message = useCanopy((state) => state.jobMessage);
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const retryNavigation = useCanopy((state) => state.retryNavigation);
  if (!message) return null;
  // A failed branch summary of the open session can be asked again, as it was asked.
  const retry = message.retry?.sessionId === sessionId;
  const line = (
    <p
      className={message.kind === "error" ? "error" : "ok"}
      role={message.kind === "error" ? "alert" : "status"}
      data-testid="job-message"
    >
      {message.text}
    </p>
  );
  if (!retry) return line;
  return (
    <div className="row">
      {line}
      <button type="button" onClick={() => void retryNavigation()}>
        Retry the branch summary
      </button>
    </div>
  );
}
