/**
 * One session entry on the canvas. `data` carries only the id and display fields; everything that
 * changes with the selection (marks, view leaf, selection) is read from the store by id, so a
 * selection change re-renders only the nodes it affects.
 */
import { Handle, type NodeProps, Position } from "@xyflow/react";
import { type KeyboardEvent, memo, type PointerEvent, useRef } from "react";
import { useCanopy } from "../../store/index.ts";
import { beginPointerDrag } from "./branch-drag.ts";
import { formatTokens } from "./filter.ts";
import { useKeepTreeFocus } from "./keep-tree-focus.ts";
import type { EntryFlowNode } from "./flow.ts";
import { MARK } from "./marks.ts";
import { sameData } from "./same-data.ts";
import { selectLayout, selectNodeMarks } from "./selectors.ts";
import { selectTreePosition, treePositionAttributes } from "./tree-position.ts";

const flag = (marks: number, bit: number) => ((marks & bit) !== 0 ? "true" : "false");

function EntryNodeView({ data }: NodeProps<EntryFlowNode>) {
  const id = data.entryId;
  const element = useRef<HTMLDivElement>(null);
  useKeepTreeFocus(element);
  const marks = useCanopy((state) => selectNodeMarks(state, id));
  const selected = useCanopy((state) => state.selectedEntryId === id);
  const position = useCanopy((state) => selectTreePosition(state, id, id));
  const isViewLeaf = useCanopy((state) => state.tree?.viewLeafId === id);
  const keptBy = useCanopy((state) => selectLayout(state)?.firstKeptBy.get(id)?.join(" ") ?? "");
  const plannedTokens = useCanopy((state) =>
    state.plan && state.plan.firstKeptEntryId === id
      ? `keeps ~${formatTokens(state.plan.keptTokens)} + summary`
      : "",
  );

  const abnormal =
    data.stopReason !== undefined && data.stopReason !== "stop" && data.stopReason !== "toolUse";
  const name = [
    `${data.title}${data.label ? ` [${data.label}]` : ""}`,
    data.text.slice(0, 90) || "(no text)",
    isViewLeaf ? "view leaf" : "",
    data.archived ? "archived" : "",
    (marks & MARK.dimmed) !== 0 ? "not seen by the model" : "",
  ]
    .filter(Boolean)
    .join(" · ");

  // The node shows two lines of text and a label cut at 90px: the tooltip gives both whole.
  const tooltip = `${data.title}${data.label ? ` [${data.label}]` : ""}\n${
    data.tokensBefore !== undefined
      ? `Summarized ${data.tokensBefore.toLocaleString()} tokens`
      : data.text || "(no text)"
  }`;

  const onClick = () => {
    if (!selected) void useCanopy.getState().selectEntry(id);
  };
  const onDoubleClick = () => void useCanopy.getState().moveViewLeaf(id);
  // Space selects like a click; arrows, Enter and Escape are handled by the tree (TreeCanvas).
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== " ") return;
    event.preventDefault();
    onClick();
  };
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => beginPointerDrag(id, event);

  return (
    <div
      ref={element}
      className={`tree-node nopan cat-${data.category}${selected ? " is-selected" : ""}`}
      data-entry-id={id}
      data-kind={data.kind}
      data-category={data.category}
      data-dimmed={flag(marks, MARK.dimmed)}
      data-active={flag(marks, MARK.active)}
      data-view-leaf={isViewLeaf ? "true" : "false"}
      data-archived={data.archived ? "true" : "false"}
      data-will-summarize={flag(marks, MARK.willSummarize)}
      data-turn-prefix={flag(marks, MARK.turnPrefix)}
      data-replaced={flag(marks, MARK.replaced)}
      data-drop-target={flag(marks, MARK.dropTarget)}
      role="treeitem"
      tabIndex={selected || isViewLeaf ? 0 : -1}
      aria-selected={selected}
      aria-label={name}
      {...treePositionAttributes(position)}
      title={tooltip}
      onClick={onClick}
      onDoubleClick={onDoubleClick}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="tree-handle" />
      <div className="tree-node-head">
        <span className="tree-node-kind">{data.title}</span>
        {data.label && <span className="tree-badge label-badge">{data.label}</span>}
        {abnormal && <span className="tree-badge stop-badge">{data.stopReason}</span>}
        {data.pruned && <span className="tree-badge">pruned</span>}
        {data.tokens > 0 && <span className="tree-node-tokens">~{formatTokens(data.tokens)} tok</span>}
      </div>
      {data.tokensBefore !== undefined ? (
        <div className="tree-node-text">
          Summarized <strong>{data.tokensBefore.toLocaleString()}</strong> tokens
        </div>
      ) : (
        <div className="tree-node-text">{data.text || "\u00a0"}</div>
      )}
      {data.summary && data.category === "compaction" && (
        // tabIndex -1: a long summary scrolls, and Chrome would otherwise Tab into it, which
        // hides it (the node loses :focus-visible) and drops the focus on the page.
        <div className="summary-pop nowheel" role="note" aria-label="Compaction summary" tabIndex={-1}>
          <div className="summary-pop-head">
            Compaction · tokens before {data.tokensBefore?.toLocaleString() ?? "?"}
          </div>
          {data.summary}
          {data.summaryChars !== undefined && (
            <div className="summary-pop-more">
              … {data.summaryChars.toLocaleString("en-US")} characters in all: the LLM view shows the whole
              summary.
            </div>
          )}
        </div>
      )}
      {isViewLeaf && (
        <div
          className="leaf-marker"
          data-testid="leaf-marker"
          data-entry-id-of={id}
          role="img"
          aria-label="View leaf marker: drag it onto another entry to move the view leaf there"
          title="View leaf: drag onto another entry to branch"
        >
          leaf
        </div>
      )}
      {keptBy && (
        <div
          className="first-kept-marker"
          data-testid="first-kept-marker"
          data-compaction-id={keptBy}
          title="First entry kept verbatim by a compaction"
        >
          first kept
        </div>
      )}
      {(marks & MARK.plannedCut) !== 0 && (
        <div className="planned-cut" data-testid="planned-cut" title="A compaction now would keep from here">
          <span>✂ planned cut · {plannedTokens}</span>
        </div>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="tree-handle" />
    </div>
  );
}

export const EntryNode = memo(EntryNodeView, sameData);
