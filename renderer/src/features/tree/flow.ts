/**
 * Layout → React Flow nodes and edges. Node data holds ids and display fields only (DESIGN §5);
 * every node has a fixed size and declared handles, so React Flow can cull and draw edges of
 * nodes it never mounted (`onlyRenderVisibleElements`).
 */
import { type Edge, type Node, type NodeHandle, Position } from "@xyflow/react";
import { showBidiControls } from "../common/bidi-controls.ts";
import { type KindCategory, kindCategory, kindLabel } from "./filter.ts";
import { NODE_HEIGHT, NODE_WIDTH, type TreeLayout } from "./layout.ts";

export interface EntryNodeData extends Record<string, unknown> {
  entryId: string;
  kind: string;
  category: KindCategory;
  title: string;
  text: string;
  tokens: number;
  label?: string;
  tokensBefore?: number;
  summary?: string;
  /** The summary's full length when `summary` is only its beginning. */
  summaryChars?: number;
  stopReason?: string;
  pruned?: boolean;
  archived?: boolean;
}

export interface ChainNodeData extends Record<string, unknown> {
  chainId: string;
  firstId: string;
  lastId: string;
  /** Entries shown by the filter inside the run. */
  count: number;
  /** Every entry the chain stands for, hidden ones included. */
  entryCount: number;
  userCount: number;
  tokens: number;
}

export type EntryFlowNode = Node<EntryNodeData, "entry">;
export type ChainFlowNode = Node<ChainNodeData, "chain">;
export type TreeFlowNode = EntryFlowNode | ChainFlowNode;

const HANDLES: NodeHandle[] = [
  { type: "target", position: Position.Top, x: NODE_WIDTH / 2 - 4, y: -4, width: 8, height: 8 },
  {
    type: "source",
    position: Position.Bottom,
    x: NODE_WIDTH / 2 - 4,
    y: NODE_HEIGHT - 4,
    width: 8,
    height: 8,
  },
];

const MEASURED = { width: NODE_WIDTH, height: NODE_HEIGHT };

export function toFlowNodes(layout: TreeLayout): TreeFlowNode[] {
  return layout.nodes.map((node): TreeFlowNode => {
    const common = {
      id: node.id,
      position: { x: node.x, y: node.y },
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      // Declared as measured so that React Flow counts culled (never mounted) nodes as
      // initialized: fitView and edges work without rendering every node once.
      measured: MEASURED,
      handles: HANDLES,
      draggable: false,
      selectable: false,
      connectable: false,
      focusable: false,
    };
    if (node.kind === "chain") {
      return {
        ...common,
        type: "chain",
        data: {
          chainId: node.id,
          firstId: node.firstId,
          lastId: node.lastId,
          count: node.count,
          entryCount: node.entryIds.length,
          userCount: node.userCount,
          tokens: node.tokens,
        },
      };
    }
    const entry = node.entry;
    const data: EntryNodeData = {
      entryId: entry.id,
      kind: entry.kind,
      category: kindCategory(entry),
      title: showBidiControls(kindLabel(entry)),
      text: showBidiControls(entry.text),
      tokens: entry.tokens,
    };
    if (entry.label) data.label = showBidiControls(entry.label);
    if (entry.tokensBefore !== undefined) data.tokensBefore = entry.tokensBefore;
    if (entry.summary !== undefined) data.summary = showBidiControls(entry.summary);
    if (entry.summaryChars !== undefined) data.summaryChars = entry.summaryChars;
    if (entry.stopReason !== undefined) data.stopReason = entry.stopReason;
    if (entry.pruned) data.pruned = true;
    if (entry.archived) data.archived = true;
    return { ...common, type: "entry", data };
  });
}

export function toFlowEdges(layout: TreeLayout): Edge[] {
  return layout.edges.map((edge) => ({
    id: edge.id,
    source: edge.source,
    target: edge.target,
    type: "smoothstep",
    className: edge.active ? "tree-edge active" : "tree-edge",
    zIndex: edge.active ? 1 : 0,
    focusable: false,
    selectable: false,
    interactionWidth: 0,
  }));
}
