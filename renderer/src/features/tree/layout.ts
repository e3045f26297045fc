/**
 * The canvas layout: tree nodes → positioned layout nodes and edges, top to bottom (DESIGN §5).
 * Pure and iterative (explicit stacks, typed arrays indexed by entry position, d3-hierarchy's
 * iterative `tree()`), so a 100,000-deep chain lays out without touching the call-stack limit.
 * The caller memoises it on the tree revision and the options.
 *
 * Steps: filter (SPEC §10.4; a shown entry's parent is its nearest shown ancestor), order roots
 * by file line and other siblings by time (SPEC §2.3, as `canopy show` does) with the branch
 * holding the view leaf first, collapse long linear runs into one chain node, then place
 * everything with d3's tidy tree.
 */
import { type HierarchyNode, hierarchy, tree as tidyTree } from "d3-hierarchy";
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import type { TreeFilter } from "./filter.ts";
import { layoutFacts } from "./layout-facts.ts";
import { treeStructure } from "./layout-structure.ts";

export const NODE_WIDTH = 236;
export const NODE_HEIGHT = 66;
const GAP_X = 28;
const GAP_Y = 46;
/** A run of more than this many single-child entries becomes one chain node. */
export const DEFAULT_MAX_CHAIN = 8;

export interface LayoutOptions {
  filter: TreeFilter;
  viewLeafId: string | null;
  /** Entries always shown as their own node, whatever the filter (the selected entry, a planned cut…). */
  pinnedIds?: readonly (string | null | undefined)[];
  /** Show entries of archived branches (hidden by default; pinned entries are always shown). */
  showArchived?: boolean;
  /** Collapse long linear runs (default true). */
  collapseChains?: boolean;
  maxChainLength?: number;
  /** Entry ids the user expanded: a run containing one of them is not collapsed. */
  expandedIds?: ReadonlySet<string>;
  /**
   * The entry the selection reveals (pinned like `pinnedIds`): laid out from the layout without
   * it, splitting only the chain it is in, when it is a shown entry of a collapsed chain there.
   */
  revealedId?: string | null;
}

interface Placed {
  id: string;
  /** Layout parent (null for roots). */
  parentId: string | null;
  x: number;
  y: number;
  depth: number;
  /** On the path from the root to the view leaf. */
  active: boolean;
}

export interface EntryLayoutNode extends Placed {
  kind: "entry";
  entry: TreeNodeDto;
}

export interface ChainLayoutNode extends Placed {
  kind: "chain";
  firstId: string;
  lastId: string;
  /** Shown entries in the run. */
  count: number;
  /** Every entry the chain stands for, hidden ones included, in path order. */
  entryIds: string[];
  userCount: number;
  tokens: number;
}

export type LayoutNode = EntryLayoutNode | ChainLayoutNode;

export interface LayoutEdge {
  id: string;
  source: string;
  target: string;
  active: boolean;
}

export interface TreeLayout {
  /** Layout nodes in preorder (roots and siblings in display order). */
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  byId: Map<string, LayoutNode>;
  /** Layout children in display order; roots under the key ROOTS_KEY. */
  childrenOf: Map<string, string[]>;
  /** The tree's entries, as given. */
  entries: readonly TreeNodeDto[];
  entry(id: string): TreeNodeDto | undefined;
  /** The layout node showing an entry: itself, its chain, or its nearest shown ancestor's node. */
  nodeOfEntry(id: string): string | undefined;
  /** Entry ids from the root to the view leaf. */
  activePath: ReadonlySet<string>;
  /** First kept entry → the compactions that keep from it. */
  firstKeptBy: ReadonlyMap<string, string[]>;
  totalCount: number;
  /** Entries the filter shows (collapsed ones included). */
  shownCount: number;
  chainCount: number;
  bounds: { minX: number; minY: number; maxX: number; maxY: number };
}

export const ROOTS_KEY = "";

export function chainNodeId(firstEntryId: string): string {
  return `chain:${firstEntryId}`;
}

/** The entry a layout node stands for when the keyboard lands on it (a chain: its first or last entry). */
export function entryOfLayoutNode(node: LayoutNode, end: "first" | "last" = "first"): string {
  if (node.kind === "entry") return node.id;
  return end === "first" ? node.firstId : node.lastId;
}

interface Chain {
  first: number;
  last: number;
  count: number;
}

/** What a reveal needs of the layout it starts from (per entry index, per chain, per layout node). */
interface LayoutParts {
  nodes: readonly TreeNodeDto[];
  nearestShown: Int32Array;
  chainOf: Int32Array;
  firstShownChild: Int32Array;
  chains: readonly Chain[];
  chainEntries: readonly (readonly number[])[];
  layoutIds: readonly string[];
  layoutParent: readonly number[];
  layoutEntry: readonly number[];
  maxChain: number;
}

const partsOf = new WeakMap<TreeLayout, LayoutParts>();

export function layoutTree(nodes: readonly TreeNodeDto[], options: LayoutOptions): TreeLayout {
  const revealed = options.revealedId;
  if (!revealed) {
    // The same list and options as the layout kept (one made ahead while a big tree opened,
    // see open-steps.ts): that layout, not a second walk of every entry.
    const kept = lastBase.get(nodes);
    if (kept && sameBase(kept.options, options)) return kept.layout;
    // Kept as the layout a later reveal starts from.
    const layout = fullLayout(nodes, options);
    lastBase.set(nodes, { options: { ...options, revealedId: null }, layout });
    return layout;
  }
  const pinned = [...(options.pinnedIds ?? []), revealed];
  return (
    revealInBase(nodes, options, revealed) ??
    fullLayout(nodes, { ...options, pinnedIds: pinned, revealedId: null })
  );
}

/** Per node list, the last layout made without a revealed entry, and its options: what reveals start from. */
const lastBase = new WeakMap<readonly TreeNodeDto[], { options: LayoutOptions; layout: TreeLayout }>();

function sameBase(a: LayoutOptions, b: LayoutOptions): boolean {
  const pinsA = a.pinnedIds ?? [];
  const pinsB = b.pinnedIds ?? [];
  return (
    a.filter === b.filter &&
    a.viewLeafId === b.viewLeafId &&
    (a.showArchived ?? false) === (b.showArchived ?? false) &&
    (a.collapseChains ?? true) === (b.collapseChains ?? true) &&
    (a.maxChainLength ?? DEFAULT_MAX_CHAIN) === (b.maxChainLength ?? DEFAULT_MAX_CHAIN) &&
    a.expandedIds === b.expandedIds &&
    pinsA.length === pinsB.length &&
    pinsA.every((id, k) => (id ?? null) === (pinsB[k] ?? null))
  );
}

/**
 * The layout with `revealed` pinned, from the layout without it, when `revealed` is a shown entry
 * inside a collapsed chain there: pinning it makes it (and nothing else) interesting, so only that
 * chain changes, into the part above it, the entry and the part below it (each part a chain when
 * still longer than the longest run, else its entries). The layout nodes are placed again (a few
 * hundred), the entries are not walked. Null when the fast path does not apply.
 */
function revealInBase(
  nodes: readonly TreeNodeDto[],
  options: LayoutOptions,
  revealed: string,
): TreeLayout | null {
  const baseOptions: LayoutOptions = { ...options, revealedId: null };
  let kept = lastBase.get(nodes);
  if (!kept || !sameBase(kept.options, baseOptions)) {
    kept = { options: baseOptions, layout: fullLayout(nodes, baseOptions) };
    lastBase.set(nodes, kept);
  }
  const baseLayout = kept.layout;
  const base = partsOf.get(baseLayout);
  const { indexOf, active, activePath } = treeStructure(nodes, options.viewLeafId);
  const r = indexOf.get(revealed);
  if (!base || r === undefined || base.nearestShown[r] !== r) return null;
  const c = base.chainOf[r] as number;
  const chain = base.chains[c];
  if (c < 0 || !chain) return null;
  const ids = layoutFacts(nodes).ids;

  // The chain's members in path order, split around the revealed entry.
  const members: number[] = [];
  for (let m = chain.first; ; m = base.firstShownChild[m] as number) {
    members.push(m);
    if (m === chain.last) break;
  }
  const at = members.indexOf(r);
  const chains: (Chain | undefined)[] = [...base.chains];
  chains[c] = undefined;
  const chainEntries: (readonly number[])[] = [...base.chainEntries];
  chainEntries[c] = [];
  // Per member: the layout node it ends up in (a new piece number), and the pieces in order.
  const pieceOf = new Map<number, number>();
  const pieces: { id: string; entry: number }[] = [];
  const addPiece = (part: number[]) => {
    if (part.length === 0) return;
    if (part.length > base.maxChain) {
      const piece = pieces.length;
      const k = chains.length;
      chains.push({ first: part[0] as number, last: part[part.length - 1] as number, count: part.length });
      chainEntries.push([]);
      pieces.push({ id: chainNodeId(ids[part[0] as number] as string), entry: -1 - k });
      for (const m of part) pieceOf.set(m, piece);
    } else {
      for (const m of part) {
        pieceOf.set(m, pieces.length);
        pieces.push({ id: ids[m] as string, entry: m });
      }
    }
  };
  addPiece(members.slice(0, at));
  pieceOf.set(r, pieces.length);
  pieces.push({ id: ids[r] as string, entry: r });
  addPiece(members.slice(at + 1));
  // The entries the old chain stood for go to their piece's chain, in the same (pre)order.
  for (const i of base.chainEntries[c] ?? []) {
    const piece = pieces[pieceOf.get(base.nearestShown[i] as number) as number];
    if (piece && piece.entry < 0) (chainEntries[-1 - piece.entry] as number[]).push(i);
  }

  // The layout nodes, the chain's node replaced by its pieces (a path: preorder is path order).
  const old = base.layoutIds.indexOf(chainNodeId(ids[chain.first] as string));
  if (old < 0) return null;
  const extra = pieces.length - 1;
  const renumber = (k: number) => (k < 0 ? k : k < old ? k : k > old ? k + extra : old + extra);
  const layoutIds = [...base.layoutIds];
  const layoutEntry = [...base.layoutEntry];
  const layoutParent = base.layoutParent.map(renumber);
  layoutIds.splice(old, 1, ...pieces.map((piece) => piece.id));
  layoutEntry.splice(old, 1, ...pieces.map((piece) => piece.entry));
  const parentOfChain = base.layoutParent[old] as number;
  layoutParent.splice(old, 1, ...pieces.map((_, k) => (k === 0 ? renumber(parentOfChain) : old + k - 1)));

  const oldChainId = base.layoutIds[old];
  return assemble({
    nodes,
    indexOf,
    active,
    activePath,
    firstKeptBy: baseLayout.firstKeptBy,
    shownCount: baseLayout.shownCount,
    layoutIds,
    layoutParent,
    layoutEntry,
    chains,
    chainEntries,
    nodeOfEntry: (i) => {
      const before = baseLayout.nodeOfEntry(ids[i] as string);
      if (before !== oldChainId) return before;
      return pieces[pieceOf.get(base.nearestShown[i] as number) as number]?.id;
    },
  });
}

let fullLayouts = 0;

/** How many layouts walked every entry so far (the tests' view of the reveal fast path). */
export function fullLayoutsMade(): number {
  return fullLayouts;
}

function fullLayout(nodes: readonly TreeNodeDto[], options: LayoutOptions): TreeLayout {
  fullLayouts++;
  const n = nodes.length;
  // What depends only on the tree and the view leaf is computed once per tree revision: a
  // selection that reveals an entry lays out again without walking and sorting 25,000 entries.
  const { indexOf, parent, active, preorder, visited, activePath, keptPairs } = treeStructure(
    nodes,
    options.viewLeafId,
  );
  // The entries' fields, read once per node list: a layout for another selection reads no entry.
  const facts = layoutFacts(nodes);
  const { ids, archived, special } = facts;
  const filterPasses = facts.passing(options.filter);
  const showArchived = options.showArchived === true;

  const pinned = new Uint8Array(n);
  for (const id of [...(options.pinnedIds ?? []), options.viewLeafId]) {
    const i = id ? indexOf.get(id) : undefined;
    if (i !== undefined) pinned[i] = 1;
  }
  const passes = (i: number): boolean =>
    pinned[i] === 1 || ((showArchived || archived[i] === 0) && filterPasses[i] === 1);

  // A first kept entry is marked only above its compaction: one on another branch (or missing)
  // keeps nothing (§3.1). A shown compaction's first kept entry is shown whatever the filter, so
  // its marker is never hidden with it (a model_change under the default filter).
  const firstKeptBy = new Map<string, string[]>();
  const firstKept = new Uint8Array(n);
  for (let k = 0; k < keptPairs.length; k += 2) {
    const i = keptPairs[k] as number;
    const kept = keptPairs[k + 1] as number;
    // `kept` is the index of the compaction's firstKeptEntryId: its id is that id.
    const keptId = ids[kept] as string;
    const list = firstKeptBy.get(keptId);
    if (list) list.push(ids[i] as string);
    else firstKeptBy.set(keptId, [ids[i] as string]);
    firstKept[kept] = 1;
    if (passes(i)) pinned[kept] = 1;
  }

  // Shown entries, each attached to its nearest shown ancestor (parents come first in preorder).
  const shownParent = new Int32Array(n).fill(-1);
  const shownChildCount = new Int32Array(n);
  const firstShownChild = new Int32Array(n).fill(-1);
  const nearestShown = new Int32Array(n).fill(-1);
  const shownPreorder = new Int32Array(visited);
  let shownCount = 0;
  for (let v = 0; v < visited; v++) {
    const i = preorder[v] as number;
    const p = parent[i] as number;
    const anchor = p >= 0 ? (nearestShown[p] as number) : -1;
    let next = anchor;
    if (passes(i)) {
      shownParent[i] = anchor;
      if (anchor >= 0) {
        if (shownChildCount[anchor] === 0) firstShownChild[anchor] = i;
        shownChildCount[anchor] = (shownChildCount[anchor] as number) + 1;
      }
      shownPreorder[shownCount++] = i;
      next = i;
    }
    nearestShown[i] = next;
  }

  // Interesting points stay their own node; runs of the rest collapse.
  const interesting = (i: number): boolean => {
    return (
      shownChildCount[i] !== 1 ||
      shownParent[i] === -1 ||
      pinned[i] === 1 ||
      firstKept[i] === 1 ||
      special[i] === 1
    );
  };
  const shown = shownPreorder.subarray(0, shownCount);
  // chainOf[i] = index (into chains) of the chain a shown entry is collapsed into, else -1.
  const chainOf = new Int32Array(n).fill(-1);
  const chains: Chain[] = [];
  const maxChain = options.maxChainLength ?? DEFAULT_MAX_CHAIN;
  if (options.collapseChains ?? true) {
    const anyExpanded = (options.expandedIds?.size ?? 0) > 0;
    const isInteresting = new Uint8Array(n);
    for (const i of shown) isInteresting[i] = interesting(i) ? 1 : 0;
    for (const i of shown) {
      const parent = shownParent[i] as number;
      if (isInteresting[i] === 1 || (parent >= 0 && isInteresting[parent] === 0)) continue; // not a run start
      let last = i;
      let count = 1;
      let expanded = anyExpanded && (options.expandedIds?.has(ids[i] as string) ?? false);
      for (
        let child = firstShownChild[i] as number;
        child >= 0 && isInteresting[child] === 0;
        child = firstShownChild[child] as number
      ) {
        last = child;
        count++;
        if (anyExpanded && !expanded && options.expandedIds?.has(ids[child] as string)) expanded = true;
      }
      if (count <= maxChain || expanded) continue;
      const chain = chains.length;
      chains.push({ first: i, last, count });
      for (let member = i; ; member = firstShownChild[member] as number) {
        chainOf[member] = chain;
        if (member === last) break;
      }
    }
  }

  // Layout nodes (shown entries not in a chain, and chains), numbered in preorder.
  const layoutOf = new Int32Array(n).fill(-1);
  const layoutIds: string[] = [];
  const layoutParent: number[] = [];
  const layoutEntry: number[] = []; // entry index for entry nodes, -1 - chain for chains
  for (const i of shown) {
    const chain = chainOf[i] as number;
    if (chain >= 0 && chains[chain]?.first !== i) {
      layoutOf[i] = layoutOf[chains[chain]?.first as number] as number;
      continue;
    }
    const number = layoutIds.length;
    layoutOf[i] = number;
    layoutIds.push(chain >= 0 ? chainNodeId(ids[i] as string) : (ids[i] as string));
    const anchor = shownParent[i] as number;
    layoutParent.push(anchor >= 0 ? (layoutOf[anchor] as number) : -1);
    layoutEntry.push(chain >= 0 ? -1 - chain : i);
  }

  // What each chain stands for: its members and the hidden entries that hang under them.
  const chainEntries: number[][] = chains.map(() => []);
  for (let v = 0; v < visited; v++) {
    const i = preorder[v] as number;
    const anchor = nearestShown[i] as number;
    const chain = anchor >= 0 ? (chainOf[anchor] as number) : -1;
    if (chain >= 0) chainEntries[chain]?.push(i);
  }

  const layout = assemble({
    nodes,
    indexOf,
    active,
    activePath,
    firstKeptBy,
    shownCount,
    layoutIds,
    layoutParent,
    layoutEntry,
    chains,
    chainEntries,
    nodeOfEntry: (i) => {
      const shown = nearestShown[i] as number;
      return shown >= 0 ? layoutIds[layoutOf[shown] as number] : undefined;
    },
  });
  partsOf.set(layout, {
    nodes,
    nearestShown,
    chainOf,
    firstShownChild,
    chains,
    chainEntries,
    layoutIds,
    layoutParent,
    layoutEntry,
    maxChain,
  });
  return layout;
}

interface Assembly {
  nodes: readonly TreeNodeDto[];
  indexOf: { get(id: string): number | undefined };
  active: Uint8Array;
  activePath: ReadonlySet<string>;
  firstKeptBy: ReadonlyMap<string, string[]>;
  shownCount: number;
  /** Layout nodes in preorder: id, parent number (-1 for roots), entry index or -1 - chain index. */
  layoutIds: readonly string[];
  layoutParent: readonly number[];
  layoutEntry: readonly number[];
  chains: readonly (Chain | undefined)[];
  chainEntries: readonly (readonly number[])[];
  /** The layout node id showing the entry at index i. */
  nodeOfEntry(i: number): string | undefined;
}

/** Places the layout nodes and builds the layout's nodes, edges and lookups. */
function assemble(parts: Assembly): TreeLayout {
  const { nodes, indexOf, active, layoutIds, layoutParent, layoutEntry, chains, chainEntries } = parts;
  const entryAt = (i: number) => nodes[i] as TreeNodeDto;
  const facts = layoutFacts(nodes);
  const ids = facts.ids;
  const layoutChildren: number[][] = layoutIds.map(() => []);
  const layoutRoots: number[] = [];
  for (let k = 0; k < layoutIds.length; k++) {
    const parent = layoutParent[k] as number;
    if (parent >= 0) layoutChildren[parent]?.push(k);
    else layoutRoots.push(k);
  }
  let chainCount = 0;
  const xy = placeTidy(layoutChildren, layoutRoots);
  const layoutNodes: LayoutNode[] = [];
  const byId = new Map<string, LayoutNode>();
  const childrenOf = new Map<string, string[]>();
  const edges: LayoutEdge[] = [];
  const bounds = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  for (let k = 0; k < layoutIds.length; k++) {
    const id = layoutIds[k] as string;
    const parentNumber = layoutParent[k] as number;
    const parentId = parentNumber >= 0 ? (layoutIds[parentNumber] as string) : null;
    const x = xy.x[k] as number;
    const y = xy.y[k] as number;
    const depth = xy.depth[k] as number;
    const entryIndex = layoutEntry[k] as number;
    let node: LayoutNode;
    if (entryIndex >= 0) {
      node = {
        kind: "entry",
        id,
        parentId,
        x,
        y,
        depth,
        active: active[entryIndex] === 1,
        entry: entryAt(entryIndex),
      };
    } else {
      const chain = chains[-1 - entryIndex] as Chain;
      chainCount++;
      const members = chainEntries[-1 - entryIndex] ?? [];
      let tokens = 0;
      let userCount = 0;
      for (const i of members) {
        tokens += facts.tokens[i] as number;
        userCount += facts.user[i] as number;
      }
      node = {
        kind: "chain",
        id,
        parentId,
        x,
        y,
        depth,
        active: active[chain.first] === 1,
        firstId: ids[chain.first] as string,
        lastId: ids[chain.last] as string,
        count: chain.count,
        entryIds: members.map((i) => ids[i] as string),
        userCount,
        tokens,
      };
    }
    layoutNodes.push(node);
    byId.set(id, node);
    const siblings = childrenOf.get(parentId ?? ROOTS_KEY);
    if (siblings) siblings.push(id);
    else childrenOf.set(parentId ?? ROOTS_KEY, [id]);
    if (parentId !== null)
      edges.push({ id: `${parentId}->${id}`, source: parentId, target: id, active: node.active });
    bounds.minX = Math.min(bounds.minX, x);
    bounds.minY = Math.min(bounds.minY, y);
    bounds.maxX = Math.max(bounds.maxX, x + NODE_WIDTH);
    bounds.maxY = Math.max(bounds.maxY, y + NODE_HEIGHT);
  }

  return {
    nodes: layoutNodes,
    edges,
    byId,
    childrenOf,
    entries: nodes,
    entry: (id) => {
      const i = indexOf.get(id);
      return i === undefined ? undefined : entryAt(i);
    },
    nodeOfEntry: (id) => {
      const i = indexOf.get(id);
      return i === undefined ? undefined : parts.nodeOfEntry(i);
    },
    activePath: parts.activePath,
    firstKeptBy: parts.firstKeptBy,
    totalCount: nodes.length,
    shownCount: parts.shownCount,
    chainCount,
    bounds,
  };
}

type HierarchyFields = {
  data: number;
  depth: number;
  height: number;
  parent: HierarchyNode<number> | null;
  children?: HierarchyNode<number>[];
};

/**
 * Tidy-tree positions of the layout nodes (numbers) under a virtual root. d3's `hierarchy()`
 * computes every node's height by walking up from each node in preorder, which is quadratic on a
 * long chain (20 s for 100,000 entries); `tree()` needs only data, parent, children and depth,
 * so the nodes are built here, iteratively, on d3's prototype.
 */
function placeTidy(children: readonly number[][], roots: readonly number[]) {
  const make = (data: number, parent: HierarchyNode<number> | null, depth: number): HierarchyNode<number> => {
    const node = Object.create(hierarchy.prototype) as HierarchyNode<number> & HierarchyFields;
    node.data = data;
    node.depth = depth;
    node.height = 0;
    node.parent = parent;
    return node;
  };
  const root = make(-1, null, 0);
  const stack: HierarchyNode<number>[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as HierarchyNode<number> & HierarchyFields;
    const ids = node.data < 0 ? roots : children[node.data];
    if (!ids || ids.length === 0) continue;
    node.children = ids.map((id) => make(id, node, node.depth + 1));
    for (const child of node.children) stack.push(child);
  }
  const placed = tidyTree<number>()
    .nodeSize([NODE_WIDTH + GAP_X, NODE_HEIGHT + GAP_Y])
    .separation((a, b) => (a.parent === b.parent ? 1 : 1.25))(root);
  const x = new Float64Array(children.length);
  const y = new Float64Array(children.length);
  const depth = new Int32Array(children.length);
  for (const point of placed) {
    if (point.data < 0) continue;
    x[point.data] = point.x - NODE_WIDTH / 2;
    y[point.data] = (point.depth - 1) * (NODE_HEIGHT + GAP_Y);
    depth[point.data] = point.depth - 1;
  }
  return { x, y, depth };
}
