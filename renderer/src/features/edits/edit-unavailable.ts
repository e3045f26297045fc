/**
 * Why the session's edit buttons (Edit as new branch, Fork, Archive/Restore, Undo/Redo, …) are
 * unavailable now, for their tooltip and accessible description: a compaction or branch summary
 * runs on the session (aria-disabled: a click says so on the outcome line), or another edit is
 * being saved (disabled until it is done). Null: nothing stands in their way.
 */
import { EDIT_BUSY_TEXT, sessionBusyText } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { selectRunning } from "../../store/jobs-slice.ts";

export { EDIT_BUSY_TEXT };

export function useEditUnavailable(): string | null {
  return useCanopy((state) => {
    const job = selectRunning(state);
    if (job !== null) return sessionBusyText(job.kind);
    return state.editBusy ? EDIT_BUSY_TEXT : null;
  });
}
