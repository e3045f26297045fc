/**
 * The open session's problems under its bar (malformed lines, duplicate ids, cycles, orphans,
 * parentIds that are neither an id nor null, unknown entry types), folded by default and listed
 * in file order. A problem about an entry selects that entry on the canvas, so the user sees where
 * it sits and what the model sees there. A file gone from its place (deleted or moved) offers
 * what the user can do about it: keep the library's copy as the only one (the notice then becomes
 * a quiet "only copy" note), or delete the session from the library (asked first, undoable).
 */
import { useState } from "react";
import type { SessionProblem } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { problemText } from "../../../../core/session/problems.ts";
import { call } from "../../api.ts";
import { KEEPING_LIBRARY_COPY } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { EDIT_BUSY_TEXT } from "../edits/edit-unavailable.ts";
import "./tree.css";
import { treeNode } from "./tree-lookup.ts";
import { namedTitle } from "../library/SessionList.tsx";

const NONE: SessionProblem[] = [];

/** What the user can do about the open session's file being gone: keep the copy, or delete it. */
function FileGoneActions({ sessionId }: { sessionId: string }) {
  const summary = useCanopy((state) => state.sessions.find((session) => session.id === sessionId));
  const askDelete = useCanopy((state) => state.askDelete);
  const busy = useCanopy((state) => state.editBusy);
  const [keeping, setKeeping] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const keep = async () => {
    setKeeping(true);
    setError(null);
    try {
      await call("library:keep-copy", { sessionId });
      const state = useCanopy.getState();
      await state.loadLibrary();
      state.refreshOpenSession(sessionId);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setKeeping(false);
    }
  };
  return (
    <span className="file-gone-actions">
      <button
        type="button"
        title={
          keeping
            ? KEEPING_LIBRARY_COPY
            : "The session stays in the library as the only copy of it, and this notice goes; Export… writes it to a file again"
        }
        aria-disabled={keeping || undefined}
        onClick={() => {
          if (!keeping) void keep();
        }}
      >
        Keep the library copy
      </button>
      {summary && (
        <button
          type="button"
          // Disabled while an edit is saved (as the library's ×): the tooltip says why.
          title={
            busy
              ? EDIT_BUSY_TEXT
              : "Delete the session from the library too (asked first; Undo brings it back)"
          }
          disabled={busy}
          onClick={() => askDelete({ sessionId, title: namedTitle(summary) })}
        >
          Delete from library…
        </button>
      )}
      {error !== null && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}

/** The open session's file is gone and the user kept the library's copy: said once, quietly. */
export function KeptCopyNote() {
  const kept = useCanopy((state) => {
    const summary = state.sessions.find((session) => session.id === state.selectedSessionId);
    return summary?.fileState === "kept" ? summary.sourcePath : null;
  });
  if (kept === null) return null;
  return (
    <p className="kept-copy-note" data-testid="kept-copy-note" title={kept}>
      Only copy: its file ({kept}) is gone, and this library copy is the session now. Export… writes it to a
      file again.
    </p>
  );
}

export function SessionProblems() {
  const problems = useCanopy((state) =>
    state.tree !== null && state.tree.sessionId === state.selectedSessionId ? state.tree.problems : NONE,
  );
  const nodes = useCanopy((state) => state.tree?.nodes);
  const revealEntry = useCanopy((state) => state.revealEntry);
  const selectEntry = useCanopy((state) => state.selectEntry);
  const sessionId = useCanopy((state) => state.selectedSessionId);
  if (problems.length === 0) return null;
  const isNode = (id: string | undefined): id is string =>
    treeNode(nodes, id) !== undefined;

  return (
    <details className="session-problems" data-testid="session-problems">
      <summary>
        ⚠ {counted(problems.length, "problem")} in this session's file (nothing of it is lost)
      </summary>
      <ol>
        {problems.map((problem, i) => (
          // Problems have no id of their own; their order is fixed for a loaded tree.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <li key={i} data-problem-kind={problem.kind}>
            {isNode(problem.entryId) ? (
              <button
                type="button"
                className="link-button"
                title="Select this entry on the canvas"
                onClick={() => {
                  const id = problem.entryId as string;
                  revealEntry(id);
                  void selectEntry(id);
                }}
              >
                {showBidiControls(problemText(problem))}
              </button>
            ) : (
              showBidiControls(problemText(problem))
            )}
            {problem.kind === "file_missing" && sessionId !== null && (
              <FileGoneActions sessionId={sessionId} />
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
