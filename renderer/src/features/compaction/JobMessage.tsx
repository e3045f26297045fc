/**
 * The outcome of the last compaction or navigation, and the composer text a navigation to a
 * user message produced.
 */
import { useCanopy } from "../../store/index.ts";

export function JobMessage() {
  const message = useCanopy((state) => state.jobMessage);
  const composerText = useCanopy((state) => state.composerText);
  const setComposerText = useCanopy((state) => state.setComposerText);
  return (
    <>
      {message && (
        <p className={message.kind === "error" ? "error" : "ok"} role={message.kind === "error" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {composerText && (
        <div className="composer">
          <label htmlFor="composer">Composer</label>
          <textarea id="composer" rows={3} value={composerText} onChange={(event) => setComposerText(event.target.value)} />
        </div>
      )}
    </>
  );
}
