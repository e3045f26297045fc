/**
 * The open session's title in the session bar (next to Compact…), renamed in place (Rename, F2,
 * or a double-click on the title, with the title selected; Enter saves, an empty title goes back
 * to the file's own, Escape cancels — not once saving: the field stays until the title is saved;
 * saved while another edit runs, it waits its turn; Undo reverts it), and the button that opens the
 * export dialog.
 */
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { useReturnFocus } from "../common/return-focus.ts";
import "./edits.css";
import { isTyping } from "./typing.ts";

export function SessionHeader() {
  const summary = useCanopy((state) =>
    state.sessions.find((session) => session.id === state.selectedSessionId),
  );
  const busy = useCanopy((state) => state.editBusy);
  const renameSession = useCanopy((state) => state.renameSession);
  const openExport = useCanopy((state) => state.openExport);
  const [draft, setDraft] = useState<string | null>(null);
  // The title typed is being saved: the field stays (Escape and Cancel can no longer stop it), and
  // closes once it is saved, when the new Rename button takes the focus back.
  const [saving, setSaving] = useState(false);
  // Saved while another edit ran: it waits its turn, and the field says so.
  const [waits, setWaits] = useState(false);
  const sessionId = summary?.id ?? null;
  const ownTitle = summary?.title ?? "";
  const renameButton = useRef<HTMLButtonElement>(null);
  // Saving or cancelling takes the title field away: the focus goes back where it was (the Rename
  // button is a new one by then).
  useReturnFocus(draft !== null, () => renameButton.current);
  // The field opens with the whole title selected (as file managers do): typing replaces it.
  const titleField = useRef<HTMLInputElement>(null);
  const renaming = draft !== null;
  useEffect(() => {
    if (renaming) titleField.current?.select();
  }, [renaming]);

  // Another session: any rename in progress belonged to the previous one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the session changes
  useEffect(() => setDraft(null), [sessionId]);
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "F2" || isTyping(event.target) || sessionId === null) return;
      event.preventDefault();
      setDraft(ownTitle);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [sessionId, ownTitle]);

  if (!summary) return null;
  const shown = showBidiControls(summary.title ?? summary.firstMessage);

  const onSave = (event: FormEvent) => {
    event.preventDefault();
    // While another edit runs, the rename waits its turn (edits-slice renameSession).
    if (draft === null || saving) return;
    setSaving(true);
    setWaits(busy);
    void renameSession(draft).then((result) => {
      setSaving(false);
      setWaits(false);
      if (result) setDraft(null);
    });
  };
  // Escape from the field or its buttons.
  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== "Escape") return;
    event.stopPropagation();
    if (!saving) setDraft(null);
  };

  return (
    <div className="session-header" data-testid="session-header">
      {draft === null ? (
        <h2
          className="session-heading"
          // The heading is cut with an ellipsis in a narrow window: the tooltip gives it whole.
          title={`${shown}\nDouble-click or F2 to rename`}
          onDoubleClick={() => setDraft(ownTitle)}
        >
          {shown}
        </h2>
      ) : (
        <form className="session-rename" onSubmit={onSave} onKeyDown={onKeyDown}>
          <input
            ref={titleField}
            aria-label="Session title"
            // biome-ignore lint/a11y/noAutofocus: renaming starts with the title field focused
            autoFocus
            value={draft}
            placeholder={`${summary.firstMessage} (empty: the file's own title)`}
            onChange={(event) => setDraft(event.target.value)}
          />
          {/* Saving: aria-disabled, not disabled, which would drop a keyboard user's focus on the page. */}
          <button type="submit" aria-disabled={saving}>
            Save title
          </button>
          {saving && waits && (
            <span className="edit-waits" role="status">
              Saved once the edit running now is done…
            </span>
          )}
          <button type="button" disabled={saving} onClick={() => setDraft(null)}>
            Cancel
          </button>
        </form>
      )}
      {draft === null && (
        <button
          type="button"
          ref={renameButton}
          // Open while another edit is saved too, as F2 is: the title's save waits its turn.
          onClick={() => setDraft(ownTitle)}
          title="F2"
        >
          Rename
        </button>
      )}
      <button type="button" onClick={openExport} title="Ctrl/Cmd+E in the desktop app">
        Export…
      </button>
    </div>
  );
}
