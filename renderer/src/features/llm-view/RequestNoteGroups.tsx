/**
 * Request notes that many messages share ("thinking not sent" on every reply of a long session),
 * each said once above the messages with how many; "Show which" lists the messages, and each
 * number brings its message into view. The messages themselves keep a short mark.
 */
import { useId, useState } from "react";
import { type RequestNoteGroup, requestGroupText } from "../../../../core/session/request-note-groups.ts";

/** Scrolls the LLM view's message at `index` (0-based) into view. */
function goToMessage(index: number): void {
  document
    .querySelector(`[data-testid="llm-view"] .messages > [data-message-index="${index}"]`)
    ?.scrollIntoView({ block: "center" });
}

function GroupLine({ group, entryIds }: { group: RequestNoteGroup; entryIds: readonly (string | null)[] }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  return (
    <li className="request-group" data-group={group.key} data-count={group.indexes.length}>
      {requestGroupText(group)}{" "}
      <button
        type="button"
        className="link-button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
      >
        {open ? "Hide which" : "Show which"}
      </button>
      {open && (
        <ol
          id={listId}
          className="request-group-messages"
          aria-label={`Messages: ${requestGroupText(group)}`}
        >
          {group.indexes.map((index) => (
            <li key={index}>
              <button
                type="button"
                className="link-button"
                aria-label={`Go to message ${index + 1}${entryIds[index] ? ` (entry ${entryIds[index]})` : ""}`}
                onClick={() => goToMessage(index)}
              >
                #{index + 1}
              </button>
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}

export function RequestNoteGroups({
  groups,
  entryIds,
}: {
  groups: readonly RequestNoteGroup[];
  entryIds: readonly (string | null)[];
}) {
  if (groups.length === 0) return null;
  return (
    <ul className="request-groups" data-testid="request-note-groups">
      {groups.map((group) => (
        <GroupLine key={group.key} group={group} entryIds={entryIds} />
      ))}
    </ul>
  );
}
