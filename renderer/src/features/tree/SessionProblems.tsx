/**
 * The open session's problems under its bar (malformed lines, duplicate ids, cycles, orphans,
 * parentIds that are neither an id nor null, unknown entry types), folded by default and listed
 * in file order. A problem about an entry selects that entry on the canvas, so the user sees where
 * it sits and what the model sees there.
 */
import type { SessionProblem } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { problemText } from "../../../../core/session/problems.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import "./tree.css";
import { treeNode } from "./tree-lookup.ts";

const NONE: SessionProblem[] = [];

export function SessionProblems() {
  const problems = useCanopy((state) =>
    state.tree !== null && state.tree.sessionId === state.selectedSessionId ? state.tree.problems : NONE,
  );
  const nodes = useCanopy((state) => state.tree?.nodes);
  const revealEntry = useCanopy((state) => state.revealEntry);
  const selectEntry = useCanopy((state) => state.selectEntry);
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
          </li>
        ))}
      </ol>
    </details>
  );
}
