/**
 * Layout → React Flow nodes and edges. Node data holds ids and display fields only (DESIGN §5);
 * every node has a fixed size and declared handles, so React Flow can cull and draw edges of
 * nodes it never mounted (`onlyRenderVisibleElements`).
 */
import { type Edge, type Node, type NodeHandle, Position } from "@xyflow/react";
import { showBidiControls } from "../common/bidi-controls.ts";
import { type KindCategory, kindCategory, kindLabel } from "./filter.ts";
import { shownSnippet } from "./snippet.ts";
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
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

// React Flow marks each node's wrapper as a "node" (aria-roledescription) and each edge as an
// image named "Edge from … to …": inside the tree they stood between it and its treeitems and
// read out ids. The wrapper stays a plain box (the treeitem inside it speaks), the edges are hidden.
const NODE_DOM = { "aria-roledescription": undefined };
const EDGE_DOM = { "aria-hidden": true, "aria-roledescription": undefined };

/**
 * What the previous conversion made, so that a new layout (a revealed entry, an expanded chain)
 * hands React Flow the same node, data and edge objects where nothing changed: React Flow then
 * skips them, and a node whose `data` is the same object does not re-render (EntryNode, ChainNode).
 */
export interface FlowCache {
  entryData: WeakMap<TreeNodeDto, EntryNodeData>;
  nodes: Map<string, TreeFlowNode>;
  edges: Map<string, Edge>;
}

export function createFlowCache(): FlowCache {
  return { entryData: new WeakMap(), nodes: new Map(), edges: new Map() };
}

function entryData(entry: TreeNodeDto): EntryNodeData {
  const data: EntryNodeData = {
    entryId: entry.id,
    kind: entry.kind,
    category: kindCategory(entry),
    title: showBidiControls(kindLabel(entry)),
    text: showBidiControls(shownSnippet(entry)),
    tokens: entry.tokens,
  };
  if (entry.label) data.label = showBidiControls(entry.label);
  if (entry.tokensBefore !== undefined) data.tokensBefore = entry.tokensBefore;
  if (entry.summary !== undefined) data.summary = showBidiControls(entry.summary);
  if (entry.summaryChars !== undefined) data.summaryChars = entry.summaryChars;
  if (entry.stopReason !== undefined) data.stopReason = entry.stopReason;
  if (entry.pruned) data.pruned = true;
  if (entry.archived) data.archived = true;
  return data;
}

function sameChainData(a: ChainNodeData, b: ChainNodeData): boolean {
  return (
    a.firstId === b.firstId &&
    a.lastId === b.lastId &&
    a.count === b.count &&
    a.entryCount === b.entryCount &&
    a.userCount === b.userCount &&
    a.tokens === b.tokens
  );
}

export function toFlowNodes(layout: TreeLayout, cache: FlowCache = createFlowCache()): TreeFlowNode[] {
  const made = new Map<string, TreeFlowNode>();
  const nodes = layout.nodes.map((node): TreeFlowNode => {
    const previous = cache.nodes.get(node.id);
    let flowNode: TreeFlowNode;
    if (node.kind === "chain") {
      const fresh: ChainNodeData = {
        chainId: node.id,
        firstId: node.firstId,
        lastId: node.lastId,
        count: node.count,
        entryCount: node.entryIds.length,
        userCount: node.userCount,
        tokens: node.tokens,
      };
      const data = previous?.type === "chain" && sameChainData(previous.data, fresh) ? previous.data : fresh;
      flowNode =
        previous?.type === "chain" && previous.data === data && samePosition(previous, node.x, node.y)
          ? previous
          : { ...common(node.id, node.x, node.y), type: "chain", data };
    } else {
      let data = cache.entryData.get(node.entry);
      if (!data) {
        data = entryData(node.entry);
        cache.entryData.set(node.entry, data);
      }
      flowNode =
        previous?.type === "entry" && previous.data === data && samePosition(previous, node.x, node.y)
          ? previous
          : { ...common(node.id, node.x, node.y), type: "entry", data };
    }
    made.set(node.id, flowNode);
    return flowNode;
  });
  cache.nodes = made;
  return nodes;
}

function samePosition(node: TreeFlowNode, x: number, y: number): boolean {
  return node.position.x === x && node.position.y === y;
}

function common(id: string, x: number, y: number) {
  return {
    id,
    position: { x, y },
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
    domAttributes: NODE_DOM,
  };
}

export function toFlowEdges(layout: TreeLayout, cache: FlowCache = createFlowCache()): Edge[] {
  const made = new Map<string, Edge>();
  const edges = layout.edges.map((edge): Edge => {
    const className = edge.active ? "tree-edge active" : "tree-edge";
    const previous = cache.edges.get(edge.id);
    const flowEdge =
      previous && previous.className === className
        ? previous
        : {
            id: edge.id,
            source: edge.source,
            target: edge.target,
            type: "smoothstep",
            className,
            zIndex: edge.active ? 1 : 0,
            focusable: false,
            selectable: false,
            interactionWidth: 0,
            domAttributes: EDGE_DOM,
          };
    made.set(edge.id, flowEdge);
    return flowEdge;
  });
  cache.edges = made;
  return edges;
}
