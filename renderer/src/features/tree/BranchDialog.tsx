/**
 * After a drop (or Enter / a double-click with "Ask to summarize when navigating" on): move the
 * view leaf with no summary, with a summary of the branch being left, or with a summary focused
 * by the user's instructions — added as a focus, or instead of the branch-summary prompt
 * (SPEC §2.8, §10.4, D13). Tab stays inside; Escape closes it; the
 * focus then goes to the entry it was about. The instructions typed stay with the session
 * (closed, cancelled, failed) until its branch summary is added.
 */
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { NO_INSTRUCTIONS, NOTHING_TO_SUMMARIZE } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { keepTabInside } from "../common/focus-trap.ts";
import { kindLabel } from "./filter.ts";
import { selectLayout } from "./selectors.ts";
import { shownSnippet } from "./snippet.ts";
import { focusTreeNode } from "./use-canvas-viewport.ts";

export function BranchDialog() {
  const dialog = useCanopy((state) => state.branchDialog);
  const target = useCanopy((state) =>
    state.branchDialog ? selectLayout(state)?.entry(state.branchDialog.targetId) : undefined,
  );
  const close = useCanopy((state) => state.closeBranchDialog);
  const confirm = useCanopy((state) => state.confirmBranch);
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const kept = useCanopy((state) => (sessionId === null ? undefined : state.branchInstructions[sessionId]));
  const keep = useCanopy((state) => state.setBranchInstructions);
  const [withInstructions, setWithInstructions] = useState(false);
  const instructions = kept?.text ?? "";
  const replacePrompt = kept?.replacePrompt ?? false;
  const setInstructions = (text: string) => {
    if (sessionId !== null) keep(sessionId, { text, replacePrompt });
  };
  const setReplacePrompt = (replace: boolean) => {
    if (sessionId !== null) keep(sessionId, { text: instructions, replacePrompt: replace });
  };
  const firstButton = useRef<HTMLButtonElement>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const instructionsButton = useRef<HTMLButtonElement>(null);
  const targetId = dialog?.targetId ?? null;

  // The dialog took the focus: once it closes (moved, or Escape) with the focus gone with it,
  // the entry it was about gets it, so the arrow keys go on from there.
  const lastTarget = useRef<string | null>(null);
  useEffect(() => {
    if (targetId !== null) {
      lastTarget.current = targetId;
      return;
    }
    const closed = lastTarget.current;
    lastTarget.current = null;
    if (closed === null) return;
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    const layoutId = selectLayout(useCanopy.getState())?.nodeOfEntry(closed);
    if (layoutId) focusTreeNode(document.querySelector<HTMLElement>("[data-testid=tree-canvas]"), layoutId);
  }, [targetId]);

  useEffect(() => {
    if (targetId === null) return;
    setWithInstructions(false);
    firstButton.current?.focus();
  }, [targetId]);
  useEffect(() => {
    if (withInstructions) textarea.current?.focus();
  }, [withInstructions]);

  if (!dialog) return null;
  const preview = dialog.preview;
  const count = preview?.entriesToSummarize.length ?? null;
  // Only tool results and bookkeeping left behind (a model change, a label…), as core reads the
  // entries (SPEC §8.2): the agents' summary then says just that.
  const readsNothing = count !== null && count > 0 && preview?.summaryHasMessages === false;
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    keepTabInside(event);
    if (event.key !== "Escape") return;
    event.stopPropagation();
    if (withInstructions) {
      // The field goes, with the focus it had: its button takes it, so Escape again closes the dialog.
      setWithInstructions(false);
      instructionsButton.current?.focus();
    } else close();
  };

  return (
    <div
      className="branch-dialog"
      role="dialog"
      aria-modal="true"
      aria-labelledby="branch-dialog-title"
      aria-describedby="branch-dialog-text"
      data-target-id={dialog.targetId}
      onKeyDown={onKeyDown}
    >
      <h2 id="branch-dialog-title">Move the view leaf</h2>
      <div id="branch-dialog-text">
        <p>
          To {target ? kindLabel(target) : "entry"} <code>{dialog.targetId}</code>
          {target?.text ? ` — “${shownSnippet(target, 80)}”` : ""}.
        </p>
        {preview?.editorText !== null && preview?.editorText !== undefined && (
          <p className="note">
            It is a message you wrote: the leaf goes to its parent and its text to the composer.
          </p>
        )}
        <p data-testid="branch-summary-count">
          {count === null
            ? dialog.error !== undefined
              ? `Could not work out what the branch you leave contains: ${dialog.error}`
              : "Working out what the branch you leave contains…"
            : count === 0
              ? "Nothing to summarize: the branch you leave has no entries of its own."
              : readsNothing
                ? `The branch you leave has ${count} entr${count === 1 ? "y" : "ies"}, none of them a message: a summary would only say “No content to summarize”.`
                : `A summary would cover the ${count} entr${count === 1 ? "y" : "ies"} of the branch you leave (highlighted).`}
        </p>
      </div>
      <div className="row">
        <button type="button" ref={firstButton} onClick={() => void confirm(false)}>
          No summary
        </button>
        <button
          type="button"
          onClick={() => void confirm(true)}
          disabled={count === 0}
          title={count === 0 ? NOTHING_TO_SUMMARIZE : undefined}
        >
          Summarize
        </button>
        <button
          type="button"
          ref={instructionsButton}
          onClick={() => setWithInstructions(true)}
          disabled={count === 0}
          title={count === 0 ? NOTHING_TO_SUMMARIZE : undefined}
          aria-expanded={withInstructions}
        >
          Summarize with instructions…
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
      {withInstructions && (
        <div className="branch-instructions">
          <label htmlFor="branch-instructions">What the summary should focus on</label>
          <textarea
            id="branch-instructions"
            ref={textarea}
            rows={3}
            value={instructions}
            onChange={(event) => setInstructions(event.target.value)}
          />
          <label className="checkbox">
            <input
              type="checkbox"
              checked={replacePrompt}
              onChange={(event) => setReplacePrompt(event.target.checked)}
            />
            Use them instead of the branch-summary prompt
          </label>
          <button
            type="button"
            onClick={() => void confirm(true, instructions, replacePrompt)}
            disabled={instructions.trim() === ""}
            title={instructions.trim() === "" ? NO_INSTRUCTIONS : undefined}
          >
            Summarize with these instructions
          </button>
        </div>
      )}
    </div>
  );
}
