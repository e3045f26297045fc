/**
 * Memoised store selectors for the canvas: the layout (recomputed only when the tree revision or
 * a layout option changes) and the marks on top of it. Nodes subscribe to one number each
 * (`useNodeMarks`), so a selection change re-renders only the nodes whose marks changed.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import type { CanopyState } from "../../store/index.ts";
import { selectRunning } from "../../store/jobs-slice.ts";
import { layoutTree, type TreeLayout } from "./layout.ts";
import { type CanvasMarks, computeMarks, layoutNodeMarks, type ModelView, modelViewOfLeaf } from "./marks.ts";
import { grownModelView } from "./model-view-growth.ts";
import { treeLookup } from "./tree-lookup.ts";

function memoize<Args extends readonly unknown[], Result>(compute: (...args: Args) => Result) {
  let last: { args: Args; result: Result } | null = null;
  return (...args: Args): Result => {
    if (last && last.args.length === args.length && last.args.every((arg, i) => Object.is(arg, args[i]))) {
      return last.result;
    }
    const result = compute(...args);
    last = { args, result };
    return result;
  };
}

function planFor(state: CanopyState) {
  const plan = state.plan;
  return plan && plan.sessionId === state.tree?.sessionId ? plan : null;
}

// Keyed on the node list and the view leaf, not the tree object: a refresh whose delta changed
// no node (a leaf move, a new undo state) keeps the node list, and so the layout.
function layoutOf(
  nodes: readonly TreeNodeDto[] | null,
  viewLeafId: string | null,
  filter: CanopyState["filter"],
  collapseChains: boolean,
  expandedIds: ReadonlySet<string>,
  revealedEntryId: string | null,
  plannedCut: string | null,
  turnStart: string | null,
  showArchived: boolean,
): TreeLayout | null {
  if (!nodes) return null;
  return layoutTree(nodes, {
    filter,
    viewLeafId,
    pinnedIds: [plannedCut, turnStart],
    // Laid out from the layout without it: only the chain it is in splits.
    revealedId: revealedEntryId,
    collapseChains,
    expandedIds,
    showArchived,
  });
}

const layoutMemo = memoize(layoutOf);

function layoutArgs(state: CanopyState): Parameters<typeof layoutOf> {
  const plan = planFor(state);
  return [
    state.tree?.nodes ?? null,
    state.tree?.viewLeafId ?? null,
    state.filter,
    state.collapseChains,
    state.expandedIds,
    state.revealedEntryId,
    plan?.firstKeptEntryId ?? null,
    plan?.isSplitTurn ? plan.turnStartEntryId : null,
    state.showArchived,
  ];
}

export function selectLayout(state: CanopyState): TreeLayout | null {
  return layoutMemo(...layoutArgs(state));
}

/**
 * Lays `state`'s tree out ahead (open-steps.ts), without touching the memo the canvas reads:
 * layoutTree keeps what it made, and selectLayout on that state later gets it without a walk.
 */
export function layOutAhead(state: CanopyState): void {
  layoutOf(...layoutArgs(state));
}

// What the model sees depends on the tree and the leaf only: a layout change (a revealed entry)
// recomputes the chains' marks, not the walk along a 25,000-entry path; an agent's append
// extends the previous view (grownModelView).
interface ComputedView {
  entries: readonly TreeNodeDto[];
  leafId: string | null;
  view: ModelView | null;
}
let lastView: ComputedView | null = null;
function viewMemo(entries: TreeLayout["entries"], leafId: string | null): ModelView | null {
  if (lastView && lastView.entries === entries && lastView.leafId === leafId) return lastView.view;
  const grown = lastView ? grownModelView(lastView, entries, leafId) : undefined;
  let view: ModelView | null;
  if (grown !== undefined) view = grown;
  else {
    const byId = treeLookup(entries).byId;
    view = modelViewOfLeaf((id) => byId.get(id), leafId);
  }
  lastView = { entries, leafId, view };
  return view;
}

const marksMemo = memoize(
  (
    layout: TreeLayout | null,
    leafId: string | null,
    plan: CanopyState["plan"],
    branchPreview: CanopyState["branchPreview"],
    dropTargetId: string | null,
  ): CanvasMarks | null => {
    if (!layout) return null;
    const view = viewMemo(layout.entries, leafId);
    return computeMarks({ layout, leafId, plan, branchPreview, dropTargetId, view });
  },
);

/** The leaf whose LLM view is on screen: the selected entry, else the view leaf. */
export function selectLeafId(state: CanopyState): string | null {
  return state.selectedEntryId ?? state.tree?.viewLeafId ?? null;
}

export function selectMarks(state: CanopyState): CanvasMarks | null {
  const preview =
    state.drag || state.branchDialog || selectRunning(state)?.kind === "branch-summary" ? state.branchPreview : null;
  return marksMemo(
    selectLayout(state),
    selectLeafId(state),
    planFor(state),
    preview,
    state.drag?.targetId ?? null,
  );
}

export function selectNodeMarks(state: CanopyState, layoutId: string): number {
  const layout = selectLayout(state);
  const marks = selectMarks(state);
  return layout && marks ? layoutNodeMarks(marks, layout, layoutId) : 0;
}
