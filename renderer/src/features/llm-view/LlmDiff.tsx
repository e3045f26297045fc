/**
 * Diff mode: how the model's input changes between two leaves, or before/after a compaction —
 * which messages are added, removed, kept, or replaced by a summary (core/session/context-diff).
 * Each row carries `data-change`; rows expand to the message itself.
 */
import { useMemo, useState } from "react";
import type { ContextDiffRow } from "../../../../core/session/context-diff.ts";
import { counted, flatten } from "../../../../core/session/describe.ts";
import type { LlmMessage } from "../../../../core/session/entries.ts";
import { messageText } from "../../../../core/session/message-text.ts";
import { useCanopy } from "../../store/index.ts";
import type { LlmDiffState } from "../../store/llm-view-slice.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { EntryLink } from "./MessageItem.tsx";
import { MessageBody } from "./MessageBody.tsx";
import { formatTokens, limitParts, messageKindLabel, messageParts } from "./message-parts.ts";

type EntryKinds = ReadonlyMap<string, { type: string; kind: string }>;

const CHANGE_LABEL = { added: "added", removed: "removed", kept: "kept", summarized: "summarized" } as const;
const CHANGE_MARK = { added: "+", removed: "−", kept: "=", summarized: "⇢" } as const;

function rowMessage(diff: LlmDiffState, row: ContextDiffRow): LlmMessage | undefined {
  if (row.afterIndex !== null) return diff.after.messages[row.afterIndex];
  if (row.beforeIndex !== null) return diff.before.messages[row.beforeIndex];
  return undefined;
}

function snippet(message: LlmMessage | undefined): string {
  if (!message) return "";
  // flatten folds only a prefix: a 20 MB message costs no more than a short one. Bidi controls
  // are spelled out, as in the message list: hidden, they reorder the snippet.
  return showBidiControls(flatten(messageText(message), 161));
}

function DiffRow({
  diff,
  row,
  position,
  kinds,
}: {
  diff: LlmDiffState;
  row: ContextDiffRow;
  position: number;
  kinds: EntryKinds;
}) {
  const [open, setOpen] = useState(false);
  const message = rowMessage(diff, row);
  // Named as in the message list ("compaction summary", "bash"), not by the role it is sent as.
  const info = row.entryId === null ? undefined : kinds.get(row.entryId);
  const role = message ? messageKindLabel(message, info?.type, info?.kind) : "unknown";
  const blobs = row.afterIndex !== null ? diff.after.blobImages : diff.before.blobImages;
  const summary = role.endsWith("summary");
  const shown = open && message ? limitParts(messageParts(message, undefined, blobs, summary), 20_000) : null;
  return (
    <li
      className={`diff-row change-${row.change}`}
      data-change={row.change}
      data-diff-entry-id={row.entryId ?? ""}
      data-content-changed={row.contentChanged ? "true" : undefined}
    >
      <div className="diff-meta">
        <span className="change-mark" aria-hidden="true">
          {CHANGE_MARK[row.change]}
        </span>
        <span className="change-label">{CHANGE_LABEL[row.change]}</span>
        <span className="role">{role}</span>
        <EntryLink entryId={row.entryId} />
        {row.contentChanged && <span className="flag">content changed</span>}
        <span className="tokens">~{formatTokens(row.tokens)} tok</span>
        {message && (
          <button
            type="button"
            className="toggle"
            aria-expanded={open}
            aria-label={`${open ? "Hide" : "Show"} message ${position + 1} of the diff`}
            onClick={() => setOpen(!open)}
          >
            {open ? "Hide" : "Show"}
          </button>
        )}
      </div>
      {shown ? (
        <div className="message-body">
          <MessageBody parts={shown.parts} hiddenChars={shown.hiddenChars} />
        </div>
      ) : (
        <p className="diff-snippet">
          {row.summaryEntryId && <span className="by-summary">now in summary {row.summaryEntryId}: </span>}
          <span className="snippet-text">{snippet(message)}</span>
        </p>
      )}
    </li>
  );
}

export function LlmDiff() {
  const diff = useCanopy((state) => state.diff);
  const loading = useCanopy((state) => state.diffLoading);
  const error = useCanopy((state) => state.diffError);
  const closeDiff = useCanopy((state) => state.closeDiff);
  const tree = useCanopy((state) => state.tree);
  const kinds: EntryKinds = useMemo(
    () => new Map((tree?.nodes ?? []).map((node) => [node.id, { type: node.type, kind: node.kind }])),
    [tree],
  );

  const close = (
    <button type="button" onClick={closeDiff}>
      Close diff
    </button>
  );
  if (error) {
    return (
      <section className="llm-diff" aria-label="Context diff">
        <p className="error" role="alert">
          Could not compare: {error}
        </p>
        {close}
      </section>
    );
  }
  if (!diff) {
    return (
      <section className="llm-diff" aria-label="Context diff">
        <p className="empty">{loading ? "Comparing…" : "Nothing to compare."}</p>
        {close}
      </section>
    );
  }
  const { result } = diff;
  const delta = result.afterTokens - result.beforeTokens;
  const identical = result.counts.added + result.counts.removed + result.counts.summarized === 0;
  return (
    <section className="llm-diff" data-testid="llm-diff" data-kind={diff.kind} aria-label="Context diff">
      <header className="diff-header">
        <div className="row">
          <strong>{diff.title}</strong>
          {close}
        </div>
        <p className="diff-sides">
          Before: leaf <code>{result.beforeLeafId ?? "(empty)"}</code>, {counted(diff.before.messages.length, "message")}, ~{formatTokens(result.beforeTokens)} tok → After: leaf{" "}
          <code>{result.afterLeafId ?? "(empty)"}</code>, {counted(diff.after.messages.length, "message")}, ~
          {formatTokens(result.afterTokens)} tok ({delta >= 0 ? "+" : "−"}
          {formatTokens(Math.abs(delta))})
        </p>
        <ul className="diff-counts" aria-label="Changes">
          {(["added", "removed", "summarized", "kept"] as const).map((change) => (
            <li key={change} className={`change-${change}`} data-count-change={change}>
              {CHANGE_MARK[change]} {result.counts[change]} {CHANGE_LABEL[change]} (~
              {formatTokens(result.tokens[change])} tok)
            </li>
          ))}
        </ul>
        {identical && <p className="empty">The model receives the same messages at both leaves.</p>}
      </header>
      <ol className="diff-rows">
        {result.rows.map((row, position) => (
          <DiffRow
            // biome-ignore lint/suspicious/noArrayIndexKey: rows of one diff never reorder
            key={position}
            diff={diff}
            row={row}
            position={position}
            kinds={kinds}
          />
        ))}
      </ol>
    </section>
  );
}
