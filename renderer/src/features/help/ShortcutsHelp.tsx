/**
 * The keyboard shortcuts: a "?" button in the sidebar's head, the "?" key and Help › Keyboard
 * Shortcuts (desktop app) open a dialog listing them (shortcut-list.ts); "/" and Ctrl/Cmd+K put
 * the keyboard in the search box. Escape or Close shuts the dialog (without cancelling running
 * work) and the focus goes back where it was.
 */
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { keepTabInside } from "../common/focus-trap.ts";
import { useReturnFocus } from "../common/return-focus.ts";
import { isTyping } from "../edits/typing.ts";
import "../common/modal.css";
import "./help.css";
import { SHORTCUT_GROUPS, SHOW_SHORTCUTS_EVENT } from "./shortcut-list.ts";

function focusSearch(): boolean {
  const search = document.getElementById("library-search");
  if (!(search instanceof HTMLInputElement)) return false;
  search.focus();
  search.select();
  return true;
}

export function ShortcutsHelp() {
  const [open, setOpen] = useState(false);
  const closeButton = useRef<HTMLButtonElement>(null);
  useReturnFocus(open);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const command = event.ctrlKey || event.metaKey;
      if (command && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k") {
        if (focusSearch()) event.preventDefault();
        return;
      }
      if (command || event.altKey || isTyping(event.target)) return;
      // Another dialog open (export, delete, branch summary) keeps the keyboard.
      if (document.querySelector('[aria-modal="true"]')) return;
      if (event.key === "?") {
        event.preventDefault();
        setOpen(true);
      } else if (event.key === "/" && focusSearch()) {
        event.preventDefault();
      }
    };
    const show = () => setOpen(true);
    window.addEventListener("keydown", onKey);
    window.addEventListener(SHOW_SHORTCUTS_EVENT, show);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(SHOW_SHORTCUTS_EVENT, show);
    };
  }, []);

  useEffect(() => {
    // Close is at the end of a list taller than its box: focused with a scroll, the list opened
    // at its end, its first shortcuts out of sight.
    if (open) closeButton.current?.focus({ preventScroll: true });
  }, [open]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    keepTabInside(event);
    if (event.key === "Escape" || event.key === "?") {
      // Closing the list is all Escape means here: running work goes on.
      event.stopPropagation();
      event.preventDefault();
      setOpen(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className="shortcuts-button"
        title="Keyboard shortcuts (?)"
        aria-label="Keyboard shortcuts"
        onClick={() => setOpen(true)}
      >
        ?
      </button>
      {open && (
        <div className="modal-backdrop shortcuts-backdrop">
          <div
            className="modal-dialog shortcuts-dialog"
            role="dialog"
            aria-modal="true"
            aria-labelledby="shortcuts-title"
            onKeyDown={onKeyDown}
          >
            <h2 id="shortcuts-title">Keyboard shortcuts</h2>
            {SHORTCUT_GROUPS.map((group) => (
              // A group, not a named <section>: that made each one a landmark, and "Session tree"
              // then stood twice among the page's landmarks (the tree panel has that name).
              // biome-ignore lint/a11y/useSemanticElements: shortcuts, not form controls (what a fieldset groups)
              <div key={group.title} role="group" aria-label={group.title}>
                <h3>{group.title}</h3>
                <dl>
                  {group.shortcuts.map((shortcut) => (
                    <div key={`${group.title}:${shortcut.keys.join()}`} className="shortcut">
                      <dt>
                        {shortcut.keys.map((key, index) => (
                          <span key={key}>
                            {index > 0 && " or "}
                            <kbd>{key}</kbd>
                          </span>
                        ))}
                      </dt>
                      <dd>{shortcut.what}</dd>
                    </div>
                  ))}
                </dl>
              </div>
            ))}
            <div className="row">
              <button type="button" ref={closeButton} onClick={() => setOpen(false)}>
                Close
              </button>
            </div>
          </div>
        </div>
      )}
    </>
  );
}
