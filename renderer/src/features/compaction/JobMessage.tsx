/**
 * The outcome of the last compaction or navigation. (The composer a navigation to a user message
 * fills lives in features/chat/Composer.tsx.)
 */
import { useCanopy } from "../../store/index.ts";

export function JobMessage() {
  const message = useCanopy((state) => state.jobMessage);
  if (!message) return null;
  return (
    <p
      className={message.kind === "error" ? "error" : "ok"}
      role={message.kind === "error" ? "alert" : "status"}
      data-testid="job-message"
    >
      {message.text}
    </p>
  );
}
