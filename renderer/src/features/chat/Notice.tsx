/**
 * App-wide notices: what the desktop shell reports (app:command notify), dropped files, exports,
 * and a session deleted from the library (with Undo while it is still the last delete). A notice
 * about one session (an export) shows only while that session is open.
 */
import { useEffect, useRef } from "react";
import { useCanopy } from "../../store/index.ts";
import { useReturnFocus } from "../common/return-focus.ts";

/** Where the focus goes when the notice that had it goes and what had it before is gone too. */
const openSessionRow = () =>
  document.querySelector<HTMLElement>(".session.selected") ?? document.getElementById("library-search");

export function Notice() {
  // A notice about one session (an export that ended after another one was opened) waits for it.
  const notice = useCanopy((state) => {
    const about = state.notice?.sessionId;
    return about === undefined || about === state.selectedSessionId ? state.notice : null;
  });
  const notify = useCanopy((state) => state.notify);
  const canUndoDelete = useCanopy(
    (state) => state.notice?.undoDeleteOf !== undefined && state.notice.undoDeleteOf === state.lastDeleted?.sessionId,
  );
  // As Ctrl+Z: clicked while the delete still updates the list (or another edit runs), it waits its turn.
  const pressUndo = useCanopy((state) => state.pressUndoRedo);
  const dismiss = useRef<HTMLButtonElement>(null);
  // Dismiss takes the notice away with the focus: it goes back where it was (else the open session's row).
  useReturnFocus(notice !== null, openSessionRow);
  // Undo takes itself away (the notice then says the session is back): Dismiss, beside it, takes the focus.
  useEffect(() => {
    if (!canUndoDelete && document.activeElement === document.body) dismiss.current?.focus();
  }, [canUndoDelete]);
  if (!notice) return null;
  return (
    <p
      className={`notice ${notice.level === "error" ? "error" : "ok"}`}
      role={notice.level === "error" ? "alert" : "status"}
      data-testid="notice"
    >
      {notice.message}{" "}
      {canUndoDelete && (
        <>
          <button
            type="button"
            className="link-button"
            onClick={() => void pressUndo("undo")}
            aria-label="Undo the delete"
            title="Ctrl+Z"
          >
            Undo
          </button>{" "}
        </>
      )}
      <button
        type="button"
        ref={dismiss}
        className="link-button"
        onClick={() => notify(null)}
        aria-label="Dismiss"
      >
        Dismiss
      </button>
    </p>
  );
}
