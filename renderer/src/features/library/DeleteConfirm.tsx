/**
 * Asks before deleting a session from the library, naming it; says that the file stays (or, its
 * file gone, that the library's copy is the only one) and that Undo brings the session back.
 * Escape or Cancel keeps it.
 */
import { useCanopy } from "../../store/index.ts";
import { useReturnFocus } from "../common/return-focus.ts";

/** Once the session is deleted (its × gone with it), the focus goes to the first session in the list. */
const firstSession = () => document.querySelector<HTMLElement>(".session-groups button.session");

/**
 * After the delete: the focus went with the session's row (or with the × disabled meanwhile), or
 * with the open session's canvas when the deleted one was open: it goes to the first session —
 * or, the list now empty (a filter showed only that one), to the filter box.
 */
function focusFirstSessionIfLost(): void {
  const active = document.activeElement;
  if (active !== null && active !== document.body) return;
  (firstSession() ?? document.querySelector<HTMLElement>(".session-filter"))?.focus();
}

export function DeleteConfirm() {
  const pending = useCanopy((state) => state.deleteConfirm);
  const deleteSession = useCanopy((state) => state.deleteSession);
  const cancelDelete = useCanopy((state) => state.cancelDelete);
  const fileGone = useCanopy((state) => {
    const asked = state.deleteConfirm?.sessionId;
    const fileState = state.sessions.find((session) => session.id === asked)?.fileState;
    return fileState === "gone" || fileState === "kept";
  });
  useReturnFocus(pending !== null, firstSession);
  if (!pending) return null;
  const confirm = () => void deleteSession(pending).then(focusFirstSessionIfLost);
  return (
    <div
      className="delete-confirm"
      role="alertdialog"
      aria-label="Delete this session from the library?"
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.stopPropagation();
        cancelDelete();
      }}
    >
      {fileGone ? (
        <p>
          Delete “{pending.title}” from the library? Its file is gone: this is the only copy of the session.
          Undo (Ctrl+Z) brings it back.
        </p>
      ) : (
        <p>
          Delete “{pending.title}” from the library? Its file stays untouched, and Undo (Ctrl+Z) brings the
          session back.
        </p>
      )}
      <div className="row">
        {/* biome-ignore lint/a11y/noAutofocus: the confirmation takes the focus so Enter/Escape answer it */}
        <button type="button" autoFocus onClick={confirm}>
          Delete
        </button>
        <button type="button" onClick={cancelDelete}>
          Cancel
        </button>
      </div>
    </div>
  );
}
