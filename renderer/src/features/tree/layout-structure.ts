/**
 * The part of the canvas layout that depends only on the tree and the view leaf (pure): parent
 * links, children in display order, preorder, the active path and which compactions keep a first
 * entry above them. Cached per (nodes array, view leaf), so laying out again for a selection, a
 * filter or an expanded chain does not index, sort and walk the whole session again. A list the
 * tree slice noted as grown by appended nodes (tree-growth.ts) extends its previous list's
 * structure (growStructure) instead: an agent's append no longer re-indexes 100,000 entries.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import { growthOf } from "./tree-growth.ts";

/** Entry id → index (a Map, or the previous list's lookup with the appended ids on top). */
export interface IndexLookup {
  get(id: string): number | undefined;
}

export interface TreeStructure {
  indexOf: IndexLookup;
  /** Parent entry index, -1 for roots. */
  parent: Int32Array;
  /** 1 on the path from the root to the view leaf. */
  active: Uint8Array;
  /** Entry indices in preorder (roots and siblings in display order); `visited` of them are filled. */
  preorder: Int32Array;
  visited: number;
  /** Entry ids from the root to the view leaf. */
  activePath: ReadonlySet<string>;
  /** Pairs (compaction index, first kept index) whose first kept entry is above the compaction. */
  keptPairs: readonly number[];
  /** Preorder position of every entry, and its subtree's size (itself included). */
  position: Int32Array;
  subtreeSize: Int32Array;
  /** Parent ids of roots that name an entry not in the tree (a later append may bring it). */
  missingParents: ReadonlySet<string>;
  /** How many lookups `indexOf` stacks (a grown structure's lookup is a layer on the previous one). */
  layers: number;
}

/**
 * Parent links and children lists over entry indices: roots in file order, children by time
 * (SPEC §2.3), the view leaf's branch first in both.
 */
function indexTree(nodes: readonly TreeNodeDto[], viewLeafId: string | null) {
  const n = nodes.length;
  const indexOf = new Map<string, number>();
  for (let i = 0; i < n; i++) indexOf.set((nodes[i] as TreeNodeDto).id, i);
  const parent = new Int32Array(n).fill(-1);
  const childCount = new Int32Array(n);
  const roots: number[] = [];
  const missingParents = new Set<string>();
  for (let i = 0; i < n; i++) {
    const parentId = (nodes[i] as TreeNodeDto).parentId;
    const p = parentId === null ? undefined : indexOf.get(parentId);
    if (p === undefined && parentId !== null) missingParents.add(parentId);
    if (p === undefined || p === i) roots.push(i);
    else {
      parent[i] = p;
      childCount[p] = (childCount[p] as number) + 1;
    }
  }
  // The path to the view leaf, guarded against loops even though the server repairs parents.
  const active = new Uint8Array(n);
  for (
    let i = viewLeafId === null ? -1 : (indexOf.get(viewLeafId) ?? -1);
    i >= 0 && active[i] === 0;
    i = parent[i] as number
  ) {
    active[i] = 1;
  }
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) childStart[i + 1] = (childStart[i] as number) + (childCount[i] as number);
  const fill = childStart.slice(0, n);
  const childList = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    if (p >= 0) {
      childList[fill[p] as number] = i;
      fill[p] = (fill[p] as number) + 1;
    }
  }
  const order = siblingOrder(nodes, active);
  // Roots keep file order (SPEC §2.3): the file, not the clock that stamped it, says what came first.
  roots.sort((a, b) =>
    active[a] !== active[b]
      ? active[a]
        ? -1
        : 1
      : (nodes[a] as TreeNodeDto).line - (nodes[b] as TreeNodeDto).line,
  );
  for (let i = 0; i < n; i++)
    if ((childCount[i] as number) > 1) childList.subarray(childStart[i], childStart[i + 1]).sort(order);
  return { indexOf, parent, active, roots, childStart, childList, missingParents };
}

/** Children's display order: the view leaf's branch first, then by time, then by file line. */
function siblingOrder(nodes: readonly TreeNodeDto[], active: Uint8Array) {
  return (a: number, b: number) => {
    if (active[a] !== active[b]) return active[a] ? -1 : 1;
    const left = nodes[a] as TreeNodeDto;
    const right = nodes[b] as TreeNodeDto;
    if (left.timestamp !== right.timestamp) return left.timestamp < right.timestamp ? -1 : 1;
    return left.line - right.line;
  };
}

function buildStructure(nodes: readonly TreeNodeDto[], viewLeafId: string | null): TreeStructure {
  const n = nodes.length;
  const { indexOf, parent, active, roots, childStart, childList, missingParents } = indexTree(
    nodes,
    viewLeafId,
  );

  // Every entry in preorder (explicit stack), then subtree sizes: k is above c when c's position
  // falls inside k's subtree.
  const preorder = new Int32Array(n);
  let visited = 0;
  const stack = new Int32Array(n);
  let top = 0;
  for (let r = roots.length - 1; r >= 0; r--) stack[top++] = roots[r] as number;
  while (top > 0) {
    const i = stack[--top] as number;
    preorder[visited++] = i;
    for (let c = (childStart[i + 1] as number) - 1; c >= (childStart[i] as number); c--)
      stack[top++] = childList[c] as number;
  }
  const position = new Int32Array(n);
  const subtreeSize = new Int32Array(n).fill(1);
  for (let v = visited - 1; v >= 0; v--) {
    const i = preorder[v] as number;
    position[i] = v;
    const p = parent[i] as number;
    if (p >= 0) subtreeSize[p] = (subtreeSize[p] as number) + (subtreeSize[i] as number);
  }
  const keptPairs = keptPairsFrom(nodes, 0, indexOf, position, subtreeSize);

  const activePath = new Set<string>();
  for (let i = 0; i < n; i++) if (active[i] === 1) activePath.add((nodes[i] as TreeNodeDto).id);
  return {
    indexOf,
    parent,
    active,
    preorder,
    visited,
    activePath,
    keptPairs,
    position,
    subtreeSize,
    missingParents,
    layers: 1,
  };
}

/**
 * The kept pairs (compaction index, first kept index) of the compactions from index `from` on. A
 * first kept entry counts only above its compaction (in its subtree by preorder position): one on
 * another branch (or missing) keeps nothing (§3.1).
 */
function keptPairsFrom(
  nodes: readonly TreeNodeDto[],
  from: number,
  indexOf: IndexLookup,
  position: Int32Array,
  subtreeSize: Int32Array,
): number[] {
  const isAbove = (k: number, c: number) =>
    k !== c &&
    (position[k] as number) < (position[c] as number) &&
    (position[c] as number) < (position[k] as number) + (subtreeSize[k] as number);
  const pairs: number[] = [];
  for (let i = from; i < nodes.length; i++) {
    const node = nodes[i] as TreeNodeDto;
    if (node.type !== "compaction" || !node.firstKeptEntryId) continue;
    const kept = indexOf.get(node.firstKeptEntryId);
    if (kept !== undefined && isAbove(kept, i)) pairs.push(i, kept);
  }
  return pairs;
}

/** At most this many appended nodes are placed one by one; more are laid out from scratch. */
const MAX_GROWN = 64;
/** Past this many stacked lookups, the index is built again (each lookup would climb them all). */
const MAX_LAYERS = 16;

/**
 * The structure of `nodes` = `previousNodes` + `added`, from `previousNodes`' structure, exactly
 * as buildStructure would make it; null where that is not sure to hold, and the caller builds it:
 * an appended node that is a root or parents an old root, a view leaf that left the old view
 * leaf's path (the active branch, and so the sibling order, would change), a cycle.
 */
function growStructure(
  previous: TreeStructure,
  previousLeafId: string | null,
  nodes: readonly TreeNodeDto[],
  added: readonly TreeNodeDto[],
  viewLeafId: string | null,
): TreeStructure | null {
  const n = nodes.length;
  const old = n - added.length;
  if (added.length > MAX_GROWN || previous.layers >= MAX_LAYERS || previous.visited !== old) return null;
  const addedIndex = new Map<string, number>();
  for (let k = 0; k < added.length; k++) {
    const id = (added[k] as TreeNodeDto).id;
    if (addedIndex.has(id) || previous.indexOf.get(id) !== undefined || previous.missingParents.has(id))
      return null;
    addedIndex.set(id, old + k);
  }
  const base = previous.indexOf;
  const indexOf: IndexLookup = { get: (id) => addedIndex.get(id) ?? base.get(id) };
  const parent = new Int32Array(n);
  parent.set(previous.parent);
  for (let i = old; i < n; i++) {
    const parentId = (nodes[i] as TreeNodeDto).parentId;
    const p = parentId === null ? undefined : indexOf.get(parentId);
    if (p === undefined || p >= i) return null; // a new root, or a parent further down the file
    parent[i] = p;
  }
  // The old nodes' active flags must stay as they were: the view leaf stays, or moves down to an
  // appended node under it.
  const active = new Uint8Array(n);
  active.set(previous.active);
  const previousLeaf = previousLeafId === null ? undefined : previous.indexOf.get(previousLeafId);
  // A view leaf the previous list did not hold may be appended now: its path was never marked.
  if (previousLeafId !== null && previousLeaf === undefined) return null;
  let activePath = previous.activePath;
  if (viewLeafId !== previousLeafId) {
    let i = viewLeafId === null ? -1 : (indexOf.get(viewLeafId) ?? -1);
    if (i < old || previousLeaf === undefined) return null;
    const path = new Set(previous.activePath);
    for (; i >= old; i = parent[i] as number) {
      active[i] = 1;
      path.add((nodes[i] as TreeNodeDto).id);
    }
    if (i !== previousLeaf) return null;
    activePath = path;
  }

  // Each appended node goes into the preorder after its parent's subtree part that comes first.
  const order = siblingOrder(nodes, active);
  const preorder = new Int32Array(n);
  preorder.set(previous.preorder.subarray(0, old));
  const position = new Int32Array(n);
  position.set(previous.position);
  const subtreeSize = new Int32Array(n).fill(1);
  subtreeSize.set(previous.subtreeSize);
  let visited = old;
  for (let i = old; i < n; i++) {
    const p = parent[i] as number;
    const end = (position[p] as number) + (subtreeSize[p] as number);
    let at = end;
    for (let c = (position[p] as number) + 1; c < end; c += subtreeSize[preorder[c] as number] as number) {
      if (order(i, preorder[c] as number) < 0) {
        at = c;
        break;
      }
    }
    preorder.copyWithin(at + 1, at, visited);
    preorder[at] = i;
    visited++;
    for (let v = at; v < visited; v++) position[preorder[v] as number] = v;
    for (let a = p; a >= 0; a = parent[a] as number) subtreeSize[a] = (subtreeSize[a] as number) + 1;
  }

  const newPairs = keptPairsFrom(nodes, old, indexOf, position, subtreeSize);
  const keptPairs = newPairs.length === 0 ? previous.keptPairs : [...previous.keptPairs, ...newPairs];
  return {
    indexOf,
    parent,
    active,
    preorder,
    visited,
    activePath,
    keptPairs,
    position,
    subtreeSize,
    missingParents: previous.missingParents,
    layers: previous.layers + 1,
  };
}

const cache = new WeakMap<readonly TreeNodeDto[], { viewLeafId: string | null; structure: TreeStructure }>();

/** The structure of `nodes` with `viewLeafId` as the view leaf; the same object while neither changes. */
export function treeStructure(nodes: readonly TreeNodeDto[], viewLeafId: string | null): TreeStructure {
  const cached = cache.get(nodes);
  if (cached && cached.viewLeafId === viewLeafId) return cached.structure;
  const growth = growthOf(nodes);
  const before = growth ? cache.get(growth.previous) : undefined;
  const structure =
    (growth &&
      before &&
      growStructure(before.structure, before.viewLeafId, nodes, growth.added, viewLeafId)) ||
    buildStructure(nodes, viewLeafId);
  cache.set(nodes, { viewLeafId, structure });
  return structure;
}

/**
 * Whether `added`, appended to `previous`, leaves every old entry's path to its root as it was
 * (none of them is the missing parent of an old root); false when `previous` was never laid out.
 */
export function appendKeepsOldPaths(
  previous: readonly TreeNodeDto[],
  added: readonly TreeNodeDto[],
): boolean {
  const missing = cache.get(previous)?.structure.missingParents;
  return missing !== undefined && added.every((node) => !missing.has(node.id));
}
