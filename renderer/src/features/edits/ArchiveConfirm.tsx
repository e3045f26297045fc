/**
 * Asks before archiving the branch that holds the view leaf (the main side refuses it
 * unconfirmed). Takes the focus like the delete confirmation: Enter archives, Escape or Cancel
 * keeps the branch, and the focus goes back to the archive button either way.
 */
import { useCanopy } from "../../store/index.ts";
import { useReturnFocus } from "../common/return-focus.ts";

/** The Archive/Restore branch button (the one that asked may have been disabled meanwhile). */
const archiveButton = () => document.querySelector<HTMLElement>("[data-archive-button]");

export function ArchiveConfirm() {
  const pending = useCanopy((state) => state.archiveConfirm);
  const archiveBranch = useCanopy((state) => state.archiveBranch);
  const cancelArchive = useCanopy((state) => state.cancelArchive);
  useReturnFocus(pending !== null, archiveButton);
  // The question closes as the archive starts, while the buttons are disabled: the focus goes to
  // the button (Restore branch by then) once the archive is done and they are enabled again.
  const archiveAnyway = async (entryId: string) => {
    await archiveBranch(entryId, true);
    requestAnimationFrame(() => {
      if (document.activeElement === null || document.activeElement === document.body)
        archiveButton()?.focus();
    });
  };
  if (!pending) return null;
  return (
    <div
      className="edit-confirm"
      role="alertdialog"
      aria-label="Archive the branch holding the view leaf?"
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        // Escape answers the question; it does not cancel a running job.
        event.stopPropagation();
        cancelArchive();
      }}
    >
      <p>{pending.message}</p>
      {/* biome-ignore lint/a11y/noAutofocus: the question takes the focus so Enter/Escape answer it */}
      <button type="button" autoFocus onClick={() => void archiveAnyway(pending.entryId)}>
        Archive anyway
      </button>
      <button type="button" onClick={cancelArchive}>
        Cancel
      </button>
    </div>
  );
}
