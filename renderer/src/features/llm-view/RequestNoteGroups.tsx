/**
 * Request notes that many messages share ("thinking not sent" on every reply of a long session),
 * each said once above the messages with how many; "Show which" lists the messages, and each
 * number brings its message into view. The messages themselves keep a short mark. The opened list
 * is pinned to the top of the pane (the LLM view's `slot`), so it stays in view as a number
 * scrolls to its message; it takes the focus when opened, and Escape closes it.
 */
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { createPortal } from "react-dom";
import {
  type RequestNoteGroup,
  requestGroupText,
  requestNoteFlag,
} from "../../../../core/session/request-note-groups.ts";
import { revealMessage } from "./message-reveal.ts";

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface GroupProps {
  group: RequestNoteGroup;
  entryIds: readonly (string | null)[];
  /** Where the opened list goes (pinned in the pane); null: under its line. */
  slot: HTMLElement | null;
}

function GroupLine({ group, entryIds, slot }: GroupProps) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const text = requestGroupText(group);
  const first = group.changes[0];
  // Opened: the focus goes to its first number, wherever the list is pinned.
  useEffect(() => {
    if (open) list.current?.querySelector("button")?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  // The list's keys bubble here through the portal: Escape closes it (and cancels nothing else).
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || !open) return;
    event.preventDefault();
    event.stopPropagation();
    close();
  };
  const which = (
    <div className="request-which" data-group={group.key}>
      <span className="request-which-title">
        {first ? `${capitalized(requestNoteFlag(first))}: ` : ""}
        {group.indexes.length} messages
      </span>
      <ol ref={list} id={listId} className="request-group-messages" aria-label={`Messages: ${text}`}>
        {group.indexes.map((index) => (
          <li key={index}>
            <button
              type="button"
              className="link-button"
              aria-label={`Go to message ${index + 1}${entryIds[index] ? ` (entry ${entryIds[index]})` : ""}`}
              onClick={() => revealMessage(index)}
            >
              #{index + 1}
            </button>
          </li>
        ))}
      </ol>
      <button type="button" className="link-button request-which-close" title="Escape" onClick={close}>
        Close
      </button>
    </div>
  );
  return (
    <li
      className="request-group"
      data-group={group.key}
      data-count={group.indexes.length}
      onKeyDown={onKeyDown}
    >
      {text}{" "}
      <button
        ref={toggle}
        type="button"
        className="link-button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
      >
        {open ? "Hide which" : "Show which"}
      </button>
      {open && (slot ? createPortal(which, slot) : which)}
    </li>
  );
}

export function RequestNoteGroups({
  groups,
  entryIds,
  slot = null,
}: {
  groups: readonly RequestNoteGroup[];
  entryIds: readonly (string | null)[];
  slot?: HTMLElement | null;
}) {
  if (groups.length === 0) return null;
  return (
    <ul className="request-groups" data-testid="request-note-groups">
      {groups.map((group) => (
        <GroupLine key={group.key} group={group} entryIds={entryIds} slot={slot} />
      ))}
    </ul>
  );
}
