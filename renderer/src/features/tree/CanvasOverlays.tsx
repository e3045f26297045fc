/**
 * Small overlays on the canvas: the ghost that follows the pointer while dragging the leaf, the
 * progress of a running branch summary (Escape or the button cancels it), and a short-lived line
 * about a move that did nothing (the view leaf dropped or Entered onto itself, or dropped on a
 * collapsed run).
 */
import { useEffect, useRef } from "react";
import { counted } from "../../../../core/session/describe.ts";
import { useCanopy } from "../../store/index.ts";
import { ALREADY_AT_LEAF, OVER_CHAIN } from "../../store/tree-slice.ts";
import { selectRunning } from "../../store/jobs-slice.ts";
import { kindLabel } from "./filter.ts";
import { useKeepTreeFocus } from "./keep-tree-focus.ts";
import { selectLayout } from "./selectors.ts";

export function DragGhost() {
  const drag = useCanopy((state) => state.drag);
  const target = useCanopy((state) =>
    state.drag?.targetId ? selectLayout(state)?.entry(state.drag.targetId) : undefined,
  );
  const count = useCanopy((state) =>
    state.drag?.targetId && state.branchPreview?.targetId === state.drag.targetId
      ? state.branchPreview.entriesToSummarize.length
      : null,
  );
  if (!drag) return null;
  // The transform is set by branch-drag.ts on every pointer move, outside React.
  return (
    <div className="drag-ghost" aria-hidden="true">
      {target ? (
        <>
          Move the view leaf to {kindLabel(target)} <code>{target.id}</code>
          <br />
          {count === null
            ? "…"
            : count === 0
              ? "nothing to summarize"
              : `${counted(count, "entry", "entries")} would be summarized`}
        </>
      ) : drag.atViewLeaf ? (
        ALREADY_AT_LEAF
      ) : drag.overChain ? (
        OVER_CHAIN
      ) : (
        "Drop on an entry to move the view leaf there"
      )}
    </div>
  );
}

export function BranchProgress() {
  const running = useCanopy((state) => {
    const running = selectRunning(state);
    return running?.kind === "branch-summary" ? running : null;
  });
  if (!running) return null;
  return <BranchProgressBox text={running.text} />;
}

function BranchProgressBox({ text }: { text: string }) {
  const count = useCanopy((state) => state.branchPreview?.entriesToSummarize.length ?? null);
  const cancel = useCanopy((state) => state.cancelRunning);
  // Cancel summary goes with the box (cancelled or done): its focus stays in the tree.
  const box = useRef<HTMLDivElement>(null);
  useKeepTreeFocus(box);
  return (
    <div className="branch-progress" aria-live="polite" data-testid="branch-progress" ref={box}>
      <div className="row">
        <span className="spinner" aria-hidden="true" />
        <span>Summarizing the branch you left{count ? ` (${counted(count, "entry", "entries")})` : ""}… Escape cancels.</span>
        <button type="button" onClick={() => void cancel()} aria-keyshortcuts="Escape">
          Cancel summary
        </button>
      </div>
      {text && <pre className="stream">{text.slice(-600)}</pre>}
    </div>
  );
}

/** How long the canvas line about a move that did nothing stays. */
const HINT_MS = 4000;

export function TreeHint() {
  const hint = useCanopy((state) => state.treeHint);
  const clear = useCanopy((state) => state.clearTreeHint);
  useEffect(() => {
    if (!hint) return;
    const timer = setTimeout(clear, HINT_MS);
    return () => clearTimeout(timer);
  }, [hint, clear]);
  return (
    <p className="tree-hint" role="status" data-testid="tree-hint">
      {hint?.text ?? ""}
    </p>
  );
}
