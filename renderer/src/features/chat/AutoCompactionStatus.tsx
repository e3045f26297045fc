/**
 * What the automatic compaction of a chat turn is doing (compaction:auto-* events, or job:list in
 * a window opened meanwhile): running for the threshold or an overflow, retrying a summary call,
 * done (saying when its summary was cut off at the output limit), cancelled, or the failure message (`Auto-compaction failed: …`, `Context overflow
 * recovery failed: …`).
 */
import { selectAutoCompaction } from "../../store/chat-slice.ts";
import { useCanopy } from "../../store/index.ts";
import { withCutOff } from "../../store/job-messages.ts";

export function AutoCompactionStatus() {
  const auto = useCanopy(selectAutoCompaction);
  if (!auto) return null;
  const why =
    auto.reason === "overflow"
      ? "the endpoint said the context is too long"
      : "the context passed contextWindow − reserveTokens";
  let text: string;
  switch (auto.status) {
    case "running":
      text = `Compacting automatically (${why})${auto.reason === "overflow" ? ", then retrying the turn" : ""}…`;
      break;
    case "done":
      text = withCutOff(`Automatic compaction ${auto.entryId ?? ""} added (${why}).`, auto.cutOff);
      break;
    case "aborted":
      text = "Automatic compaction cancelled; nothing was compacted.";
      break;
    default:
      text = auto.errorMessage ?? "Automatic compaction failed.";
  }
  return (
    <p
      className={auto.status === "failed" ? "error" : "auto-compaction"}
      role={auto.status === "failed" ? "alert" : "status"}
      data-testid="auto-compaction"
      data-status={auto.status}
      data-reason={auto.reason}
    >
      {text}
      {auto.retry ? ` ${auto.retry}` : ""}
    </p>
  );
}
