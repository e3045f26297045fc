/**
 * LLM view actions: expand or collapse every message, and the diff modes — the selected entry
 * against the view leaf, before/after the compaction in effect (or the selected one), or any two
 * entry ids typed in.
 */
import { type FormEvent, useRef, useState } from "react";
import type { ContextView } from "../../../../core/api/dto.ts";
import { DIFF_OPEN_TEXT, NO_COMPACTION_ON_PATH, NO_OTHER_ENTRY } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { entryLinks } from "./entry-links.ts";

export function useViewLeafId(): string | null {
  return useCanopy((state) => {
    if (state.tree?.sessionId === state.selectedSessionId && state.tree) return state.tree.viewLeafId;
    return state.sessions.find((session) => session.id === state.selectedSessionId)?.viewLeafId ?? null;
  });
}

function TwoEntryForm({
  defaultBefore,
  defaultAfter,
  onDone,
}: {
  defaultBefore: string;
  defaultAfter: string;
  onDone(): void;
}) {
  const [before, setBefore] = useState(defaultBefore);
  const [after, setAfter] = useState(defaultAfter);
  const openLeafDiff = useCanopy((state) => state.openLeafDiff);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const a = before.trim();
    const b = after.trim();
    void openLeafDiff(
      a === "" ? null : a,
      b === "" ? null : b,
      `Entry ${a || "(empty)"} → entry ${b || "(empty)"}`,
    );
    onDone();
  };
  return (
    <form
      className="diff-form"
      onSubmit={submit}
      aria-label="Compare two entries"
      // As Cancel (and as the other plans and dialogs): Escape closes the form, and nothing else.
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.stopPropagation();
        onDone();
      }}
    >
      <label>
        Before (leaf id)
        <input value={before} onChange={(event) => setBefore(event.target.value)} spellCheck={false} />
      </label>
      <label>
        After (leaf id)
        <input value={after} onChange={(event) => setAfter(event.target.value)} spellCheck={false} />
      </label>
      <button type="submit">Compare</button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

export function LlmToolbar({ context }: { context: ContextView }) {
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const tree = useCanopy((state) => state.tree);
  const diffOpen = useCanopy((state) => state.diff !== null || state.diffLoading || state.diffError !== null);
  const openLeafDiff = useCanopy((state) => state.openLeafDiff);
  const openCompactionDiff = useCanopy((state) => state.openCompactionDiff);
  const setExpandAll = useCanopy((state) => state.setExpandAll);
  const plainText = useCanopy((state) => state.plainText);
  const setPlainText = useCanopy((state) => state.setPlainText);
  const viewLeafId = useViewLeafId();
  const [formOpen, setFormOpen] = useState(false);
  // Closing the form (Compare, Cancel) removes the focused button: the focus goes back to its toggle.
  const formToggle = useRef<HTMLButtonElement>(null);
  const closeForm = () => {
    setFormOpen(false);
    formToggle.current?.focus();
  };

  const selectedType = selectedEntryId ? entryLinks(tree).get(selectedEntryId)?.type : undefined;
  const compactionId = selectedType === "compaction" ? selectedEntryId : context.compactionId;
  const canCompareLeaf = selectedEntryId !== null && selectedEntryId !== viewLeafId;

  return (
    <div className="llm-toolbar">
      <div className="row" role="toolbar" aria-label="LLM view actions">
        <button
          type="button"
          onClick={() => setExpandAll(true)}
          disabled={diffOpen}
          title={diffOpen ? DIFF_OPEN_TEXT : undefined}
        >
          Expand all
        </button>
        <button
          type="button"
          onClick={() => setExpandAll(false)}
          disabled={diffOpen}
          title={diffOpen ? DIFF_OPEN_TEXT : undefined}
        >
          Collapse all
        </button>
        <label
          className="toolbar-check"
          title="Show every text exactly as the model receives it: markdown is not rendered (a link shows its URL, ** and # stay)"
        >
          <input
            type="checkbox"
            checked={plainText}
            onChange={(event) => setPlainText(event.target.checked)}
          />
          Plain text
        </label>
        <span className="toolbar-label" aria-hidden="true">
          Diff:
        </span>
        <button
          type="button"
          disabled={!canCompareLeaf}
          aria-label="Diff with view leaf"
          title={
            canCompareLeaf
              ? "What changes between the view leaf and the selected entry"
              : NO_OTHER_ENTRY
          }
          onClick={() =>
            void openLeafDiff(
              viewLeafId,
              selectedEntryId,
              `View leaf ${viewLeafId ?? "(empty)"} → selected entry ${selectedEntryId}`,
            )
          }
        >
          {/* "with", as its name says: speech input users say what they see ("vs" was not in the name). */}
          with view leaf
        </button>
        <button
          type="button"
          disabled={compactionId === null}
          aria-label="Diff compaction"
          title={compactionId ? `Before and after compaction ${compactionId}` : NO_COMPACTION_ON_PATH}
          onClick={() => compactionId && void openCompactionDiff(compactionId)}
        >
          compaction
        </button>
        <button
          ref={formToggle}
          type="button"
          aria-label="Diff two entries"
          aria-expanded={formOpen}
          onClick={() => setFormOpen(!formOpen)}
        >
          two entries…
        </button>
      </div>
      {formOpen && (
        <TwoEntryForm
          defaultBefore={viewLeafId ?? ""}
          defaultAfter={selectedEntryId ?? context.leafId ?? ""}
          onDone={closeForm}
        />
      )}
    </div>
  );
}
