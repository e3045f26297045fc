/**
 * One message the model receives: its position, kind, source entry (a button that selects the
 * entry, so the tree highlights it and the view previews there), token estimate, and its body,
 * collapsed when long, and what the request does to it (SPEC §3.6): a message it leaves out is
 * dimmed and struck with the reason, other changes are noted under the heading — or, when many
 * messages share the note (said once above the list), marked by a short flag. Carries `data-role`,
 * `data-entry-id` and `data-message-index` for tests and tools (`data-request="dropped"` when not sent).
 */
import { memo, useEffect, useId, useMemo, useState } from "react";
import type { LlmMessage } from "../../../../core/session/entries.ts";
import { modelLabel } from "../../../../core/session/message-text.ts";
import type { MessageTextHole } from "../../../../core/text/text-hole.ts";
import type { RequestChange } from "../../../../core/session/request-messages.ts";
import {
  type RequestNoteKey,
  requestNoteFlag,
  requestNoteKey,
} from "../../../../core/session/request-note-groups.ts";
import { requestChangeText } from "../../../../core/session/request-notes.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { MessageBody } from "./MessageBody.tsx";
import { ReplyUsage } from "./ReplyUsage.tsx";
import {
  type BlobSizes,
  formatTokens,
  isLong,
  limitParts,
  messageKindLabel,
  messageParts,
} from "./message-parts.ts";

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
  /** What the request does to this message (empty: sent as it is). */
  changes: readonly RequestChange[];
  /** Kinds of note said once above the list: this message shows them as a short mark only. */
  grouped: ReadonlySet<RequestNoteKey>;
  /** Its texts that came without their middle (none: undefined). */
  holes?: readonly MessageTextHole[] | undefined;
  /** The view's image blob refs and their sizes in the agent's blob store (ContextView). */
  blobs?: BlobSizes | undefined;
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
    const model = modelLabel(message);
    return (
      <>
        <span className="role">{label}</span>
        {model !== "" && <span className="model">{showBidiControls(model)}</span>}
      </>
    );
  }
  if (message.role === "toolResult") {
    return (
      <>
        <span className="role">{label}</span>
        {/* A hand-edited result may lack its tool name: none is shown then. */}
        {typeof message.toolName === "string" && message.toolName !== "" && (
          <code className="tool-name">{showBidiControls(message.toolName)}</code>
        )}
        {message.isError && <span className="flag error-flag">error</span>}
      </>
    );
  }
  return <span className="role">{label}</span>;
}

export const MessageItem = memo(function MessageItem(props: MessageItemProps) {
  const { message, index, entryId, tokens, entryType, entryKind, current, changes, grouped, holes, blobs } = props;
  const expandAll = useCanopy((state) => state.expandAll);
  const loadWholeContext = useCanopy((state) => state.loadWholeContext);
  const label = messageKindLabel(message, entryType, entryKind);
  const summary = label.endsWith("summary");
  const parts = useMemo(() => messageParts(message, holes, blobs, summary), [message, holes, blobs, summary]);
  const wholeParts = useMemo(
    () =>
      holes
        ? async () => {
            const whole = (await loadWholeContext()).messages[index];
            if (!whole) throw new Error("the view changed");
            return messageParts(whole, undefined, blobs, summary);
          }
        : undefined,
    [holes, index, loadWholeContext, blobs, summary],
  );
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
  const dropped = changes.some((change) => change.kind === "dropped");
  const request = dropped ? "dropped" : changes.length > 0 ? "changed" : undefined;
  const inGroup = (change: RequestChange) => grouped.has(requestNoteKey(change));
  const notes = changes.filter((change) => !inGroup(change));
  const marks = changes.filter((change) => inGroup(change) && change.kind !== "dropped");
  const dropReason = changes.find((change) => change.kind === "dropped");

  return (
    <li
      className={`message role-${message.role}${summary ? " is-summary" : ""}${current ? " current" : ""}${request ? ` request-${request}` : ""}`}
      data-role={message.role}
      data-entry-id={entryId ?? ""}
      data-request={request}
      data-message-index={index}
      aria-current={current ? "true" : undefined}
      aria-label={`Message ${index + 1}: ${label}${dropped ? " (not sent by the request)" : ""}`}
    >
      <div className="message-meta">
        <span className="index">#{index + 1}</span>
        <MessageHeading message={message} label={label} />
        <EntryLink entryId={entryId} />
        {dropReason && (
          <span className="flag request-flag" title={requestChangeText(dropReason, message)}>
            not sent
          </span>
        )}
        {marks.map((change) => (
          <span
            key={change.kind}
            className="flag request-flag request-mark"
            data-change={change.kind}
            title={requestChangeText(change, message)}
          >
            {requestNoteFlag(change)}
          </span>
        ))}
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
      {notes.length > 0 && (
        <ul className="request-notes">
          {notes.map((change, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's changes never reorder
            <li key={i} className="request-note" data-change={change.kind}>
              {requestChangeText(change, message)}
            </li>
          ))}
        </ul>
      )}
      <div id={bodyId} className={`message-body${collapsed ? " collapsed" : ""}`}>
        <MessageBody parts={shown.parts} hiddenChars={shown.hiddenChars} wholeParts={wholeParts} />
      </div>
      {message.role === "assistant" && <ReplyUsage usage={message.usage} />}
    </li>
  );
});
