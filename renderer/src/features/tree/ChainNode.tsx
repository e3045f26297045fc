/**
 * A collapsed run of single-child entries: one node that says how many entries it stands for and
 * expands on click or Enter.
 */
import { Handle, type NodeProps, Position } from "@xyflow/react";
import { type KeyboardEvent, memo, useRef } from "react";
import { useCanopy } from "../../store/index.ts";
import { formatTokens } from "./filter.ts";
import { useKeepTreeFocus } from "./keep-tree-focus.ts";
import type { ChainFlowNode } from "./flow.ts";
import { MARK } from "./marks.ts";
import { sameData } from "./same-data.ts";
import { selectMarks, selectNodeMarks } from "./selectors.ts";
import { selectTreePosition, treePositionAttributes } from "./tree-position.ts";

const flag = (marks: number, bit: number) => ((marks & bit) !== 0 ? "true" : "false");

function ChainNodeView({ data }: NodeProps<ChainFlowNode>) {
  const element = useRef<HTMLDivElement>(null);
  useKeepTreeFocus(element);
  const marks = useCanopy((state) => selectNodeMarks(state, data.chainId));
  const position = useCanopy((state) => selectTreePosition(state, data.chainId, data.firstId));
  const summarized = useCanopy((state) => selectMarks(state)?.chain(data.chainId).summarized ?? 0);
  const expand = () => useCanopy.getState().expandChain(data.firstId);
  // Space expands like a click; Enter is handled by the tree (TreeCanvas), which also moves the selection in.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== " ") return;
    event.preventDefault();
    expand();
  };
  const users = data.userCount === 1 ? "1 user message" : `${data.userCount} user messages`;
  return (
    <div
      ref={element}
      className="tree-node chain-node nopan"
      data-chain-id={data.chainId}
      data-kind="chain"
      data-entry-count={data.entryCount}
      data-first-entry-id={data.firstId}
      data-last-entry-id={data.lastId}
      data-dimmed={flag(marks, MARK.dimmed)}
      data-active={flag(marks, MARK.active)}
      data-will-summarize={flag(marks, MARK.willSummarize)}
      data-replaced={flag(marks, MARK.replaced)}
      role="treeitem"
      aria-expanded={false}
      tabIndex={-1}
      aria-label={`${data.count} entries collapsed (${users}); press Enter to expand`}
      {...treePositionAttributes(position)}
      onClick={expand}
      onKeyDown={onKeyDown}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} className="tree-handle" />
      <div className="tree-node-head">
        <span className="tree-node-kind">⋯ {data.count} entries</span>
        {data.tokens > 0 && <span className="tree-node-tokens">~{formatTokens(data.tokens)} tok</span>}
      </div>
      <div className="tree-node-text">
        {users}
        {summarized > 0 ? ` · ${summarized} to summarize` : ""} · click to expand
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="tree-handle" />
    </div>
  );
}

export const ChainNode = memo(ChainNodeView, sameData);
