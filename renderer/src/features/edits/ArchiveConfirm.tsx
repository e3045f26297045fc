/**
 * Asks before archiving the branch that holds the view leaf (the main side refuses it
 * unconfirmed). Takes the focus like the delete confirmation: Enter archives, Escape or Cancel
 * keeps the branch, and the focus goes back to the archive button either way.
 */
import type { EditResultDto } from "../../../../core/api/dto.ts";
import { useCanopy } from "../../store/index.ts";
import { useReturnFocus } from "../common/return-focus.ts";

/** The Archive/Restore branch button (the one that asked may have been disabled meanwhile). */
const archiveButton = () => document.querySelector<HTMLElement>("[data-archive-button]");

/** `track`: EditActions' useEditFocus, which gives the focus to the archive button afterwards. */
export function ArchiveConfirm({
  track,
}: {
  track: (edit: () => Promise<EditResultDto | null>) => Promise<EditResultDto | null>;
}) {
  const pending = useCanopy((state) => state.archiveConfirm);
  const archiveBranch = useCanopy((state) => state.archiveBranch);
  const cancelArchive = useCanopy((state) => state.cancelArchive);
  useReturnFocus(pending !== null, archiveButton);
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
      {/* It closes as the archive starts, while the buttons are disabled: its focus key gives the
          focus to the archive button (Restore branch by then) once the archive has landed. */}
      <button
        type="button"
        // biome-ignore lint/a11y/noAutofocus: the question takes the focus so Enter/Escape answer it
        autoFocus
        data-focus-key="archive"
        onClick={() => void track(() => archiveBranch(pending.entryId, true))}
      >
        Archive anyway
      </button>
      <button type="button" onClick={cancelArchive}>
        Cancel
      </button>
    </div>
  );
}
