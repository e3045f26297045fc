/**
 * One message the model receives: its position, kind, source entry (a button that selects the
 * entry, so the tree highlights it and the view previews there), token estimate, and its body,
 * collapsed when long. Carries `data-role` and `data-entry-id` for tests and tools.
 */
import { memo, useEffect, useId, useMemo, useState } from "react";
import type { LlmMessage } from "../../../../core/session/entries.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { MessageBody } from "./MessageBody.tsx";
import { formatTokens, isLong, limitParts, messageKindLabel, messageParts } from "./message-parts.ts";

/** A collapsed body lays out at most this much; expanding shows everything. */
const COLLAPSED_CHARS = 4000;

export interface MessageItemProps {
  message: LlmMessage;
  index: number;
  entryId: string | null;
  tokens: number;
  entryType: string | undefined;
  entryKind: string | undefined;
  /** This message's entry is the selected entry (the preview leaf). */
  current: boolean;
}

export function EntryLink({ entryId }: { entryId: string | null }) {
  const selectEntry = useCanopy((state) => state.selectEntry);
  if (entryId === null) return <span className="entry-link none">no entry</span>;
  return (
    <button
      type="button"
      className="entry-link"
      aria-label={`Select entry ${entryId} in the tree`}
      title="Select this entry in the tree and preview the LLM view there"
      onClick={() => void selectEntry(entryId)}
    >
      {entryId}
    </button>
  );
}

function MessageHeading({ message, label }: { message: LlmMessage; label: string }) {
  if (message.role === "assistant") {
    return (
      <>
        <span className="role">{label}</span>
        <span className="model">{showBidiControls(`${message.provider}/${message.model}`)}</span>
      </>
    );
  }
  if (message.role === "toolResult") {
    return (
      <>
        <span className="role">{label}</span>
        <code className="tool-name">{showBidiControls(message.toolName)}</code>
        {message.isError && <span className="flag error-flag">error</span>}
      </>
    );
  }
  return <span className="role">{label}</span>;
}

export const MessageItem = memo(function MessageItem(props: MessageItemProps) {
  const { message, index, entryId, tokens, entryType, entryKind, current } = props;
  const expandAll = useCanopy((state) => state.expandAll);
  const parts = useMemo(() => messageParts(message), [message]);
  const long = useMemo(() => isLong(parts), [parts]);
  const [override, setOverride] = useState<boolean | null>(null);
  const bodyId = useId();
  // "Expand all" / "Collapse all" wins over earlier clicks on single messages.
  useEffect(() => {
    if (expandAll.revision > 0) setOverride(null);
  }, [expandAll.revision]);
  const expanded = override ?? (expandAll.revision > 0 ? expandAll.expanded : !long);
  const collapsed = long && !expanded;
  const shown = useMemo(
    () => (collapsed ? limitParts(parts, COLLAPSED_CHARS) : { parts, hiddenChars: 0 }),
    [collapsed, parts],
  );
  const label = messageKindLabel(message, entryType, entryKind);
  const summary = label.endsWith("summary");

  return (
    <li
      className={`message role-${message.role}${summary ? " is-summary" : ""}${current ? " current" : ""}`}
      data-role={message.role}
      data-entry-id={entryId ?? ""}
      aria-current={current ? "true" : undefined}
      aria-label={`Message ${index + 1}: ${label}`}
    >
      <div className="message-meta">
        <span className="index">#{index + 1}</span>
        <MessageHeading message={message} label={label} />
        <EntryLink entryId={entryId} />
        <span className="tokens" title="Heuristic estimate (characters / 4)">
          ~{formatTokens(tokens)} tok
        </span>
        {long && (
          <button
            type="button"
            className="toggle"
            aria-expanded={expanded}
            aria-controls={bodyId}
            aria-label={`${expanded ? "Collapse" : "Expand"} message ${index + 1}`}
            onClick={() => setOverride(!expanded)}
          >
            {expanded ? "Collapse" : "Expand"}
          </button>
        )}
      </div>
      <div id={bodyId} className={`message-body${collapsed ? " collapsed" : ""}`}>
        <MessageBody parts={shown.parts} hiddenChars={shown.hiddenChars} />
      </div>
    </li>
  );
});
