/**
 * Above the canvas: the filter (SPEC §10.4), archived branches, chain collapsing, "Go to leaf", and what is shown.
 */
import type { MouseEvent } from "react";
import { NO_ARCHIVED_BRANCH, NO_VIEW_LEAF_TO_GO } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { TREE_FILTERS, type TreeFilter } from "./filter.ts";
import { selectLayout } from "./selectors.ts";
import { treeLookup } from "./tree-lookup.ts";
import { focusTreeNode } from "./use-canvas-viewport.ts";

export function TreeToolbar({ onGoToLeaf }: { onGoToLeaf: () => void }) {
  const filter = useCanopy((state) => state.filter);
  const setFilter = useCanopy((state) => state.setFilter);
  const collapse = useCanopy((state) => state.collapseChains);
  const setCollapse = useCanopy((state) => state.setCollapseChains);
  const collapseAll = useCanopy((state) => state.collapseAll);
  const showArchived = useCanopy((state) => state.showArchived);
  const setShowArchived = useCanopy((state) => state.setShowArchived);
  const hasArchived = useCanopy((state) => (state.tree ? treeLookup(state.tree.nodes).hasArchived : false));
  const expandedCount = useCanopy((state) => state.expandedIds.size);
  const hasLeaf = useCanopy((state) => Boolean(state.tree?.viewLeafId));
  const totalCount = useCanopy((state) => selectLayout(state)?.totalCount ?? 0);
  const shownCount = useCanopy((state) => selectLayout(state)?.shownCount ?? 0);
  const chainCount = useCanopy((state) => selectLayout(state)?.chainCount ?? 0);

  // The button goes away with the expanded chains: the focus it had goes to the selected entry's
  // node (or the tree itself), not to <body>, so the arrow keys go on.
  const recollapse = (event: MouseEvent<HTMLButtonElement>) => {
    const canvas = event.currentTarget.closest<HTMLElement>(".tree-canvas");
    collapseAll();
    const selected = useCanopy.getState().selectedEntryId;
    if (selected) focusTreeNode(canvas, selected);
    else canvas?.querySelector<HTMLElement>(".tree-flow")?.focus({ preventScroll: true });
  };

  return (
    <div className="tree-toolbar" role="toolbar" aria-label="Tree view">
      <label className="tree-filter">
        Filter
        <select value={filter} onChange={(event) => setFilter(event.target.value as TreeFilter)}>
          {TREE_FILTERS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <label className="tree-collapse">
        <input type="checkbox" checked={collapse} onChange={(event) => setCollapse(event.target.checked)} />
        Collapse long chains
      </label>
      <label
        className="tree-show-archived"
        title={hasArchived ? undefined : NO_ARCHIVED_BRANCH}
      >
        <input
          type="checkbox"
          checked={showArchived}
          onChange={(event) => setShowArchived(event.target.checked)}
        />
        Show archived
      </label>
      {collapse && expandedCount > 0 && (
        <button type="button" onClick={recollapse}>
          Re-collapse
        </button>
      )}
      <button
        type="button"
        onClick={onGoToLeaf}
        disabled={!hasLeaf}
        title={hasLeaf ? undefined : NO_VIEW_LEAF_TO_GO}
      >
        Go to leaf
      </button>
      <span className="tree-counts" data-testid="tree-counts">
        {shownCount.toLocaleString()} of {totalCount.toLocaleString()} entries
        {chainCount > 0 ? ` · ${chainCount} collapsed chain${chainCount === 1 ? "" : "s"}` : ""}
      </span>
    </div>
  );
}
