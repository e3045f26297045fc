/**
 * The part of the canvas layout that depends only on the tree and the view leaf (pure): parent
 * links, children in display order, preorder, the active path and which compactions keep a first
 * entry above them. Cached per (nodes array, view leaf), so laying out again for a selection, a
 * filter or an expanded chain does not index, sort and walk the whole session again.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";

export interface TreeStructure {
  indexOf: ReadonlyMap<string, number>;
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
  for (let i = 0; i < n; i++) {
    const parentId = (nodes[i] as TreeNodeDto).parentId;
    const p = parentId === null ? undefined : indexOf.get(parentId);
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
  const byLine = (a: number, b: number) => (nodes[a] as TreeNodeDto).line - (nodes[b] as TreeNodeDto).line;
  const order = (a: number, b: number) => {
    if (active[a] !== active[b]) return active[a] ? -1 : 1;
    const left = nodes[a] as TreeNodeDto;
    const right = nodes[b] as TreeNodeDto;
    if (left.timestamp !== right.timestamp) return left.timestamp < right.timestamp ? -1 : 1;
    return byLine(a, b);
  };
  // Roots keep file order (SPEC §2.3): the file, not the clock that stamped it, says what came first.
  roots.sort((a, b) => (active[a] !== active[b] ? (active[a] ? -1 : 1) : byLine(a, b)));
  for (let i = 0; i < n; i++)
    if ((childCount[i] as number) > 1) childList.subarray(childStart[i], childStart[i + 1]).sort(order);
  return { indexOf, parent, active, roots, childStart, childList };
}

function buildStructure(nodes: readonly TreeNodeDto[], viewLeafId: string | null): TreeStructure {
  const n = nodes.length;
  const { indexOf, parent, active, roots, childStart, childList } = indexTree(nodes, viewLeafId);

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
  const isAbove = (k: number, c: number) =>
    k !== c &&
    (position[k] as number) < (position[c] as number) &&
    (position[c] as number) < (position[k] as number) + (subtreeSize[k] as number);

  // A first kept entry counts only above its compaction: one on another branch (or missing)
  // keeps nothing (§3.1).
  const keptPairs: number[] = [];
  for (let i = 0; i < n; i++) {
    const node = nodes[i] as TreeNodeDto;
    if (node.type !== "compaction" || !node.firstKeptEntryId) continue;
    const kept = indexOf.get(node.firstKeptEntryId);
    if (kept !== undefined && isAbove(kept, i)) keptPairs.push(i, kept);
  }

  const activePath = new Set<string>();
  for (let i = 0; i < n; i++) if (active[i] === 1) activePath.add((nodes[i] as TreeNodeDto).id);
  return { indexOf, parent, active, preorder, visited, activePath, keptPairs };
}

const cache = new WeakMap<readonly TreeNodeDto[], { viewLeafId: string | null; structure: TreeStructure }>();

/** The structure of `nodes` with `viewLeafId` as the view leaf; the same object while neither changes. */
export function treeStructure(nodes: readonly TreeNodeDto[], viewLeafId: string | null): TreeStructure {
  const cached = cache.get(nodes);
  if (cached && cached.viewLeafId === viewLeafId) return cached.structure;
  const structure = buildStructure(nodes, viewLeafId);
  cache.set(nodes, { viewLeafId, structure });
  return structure;
}
