/**
 * Lookups over a session's tree nodes computed once per tree (cached on the nodes array), for
 * components whose store selectors run on every store change: a search over 25,000 nodes in a
 * selector cost every keyboard move on the canvas a full scan. A list grown by appended nodes
 * (tree-growth.ts) puts them on top of the previous list's lookup instead of indexing it again.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import { growthOf } from "./tree-growth.ts";

interface NodeById {
  get(id: string): TreeNodeDto | undefined;
  has(id: string): boolean;
}

interface TreeLookup {
  byId: NodeById;
  hasArchived: boolean;
  hasPruned: boolean;
  /** Lookups stacked in `byId` (appends put theirs on the previous list's). */
  layers: number;
}

const cache = new WeakMap<readonly TreeNodeDto[], TreeLookup>();
/** Past this many stacked lookups, the list is indexed again. */
const MAX_LAYERS = 16;

function grownLookup(nodes: readonly TreeNodeDto[]): TreeLookup | undefined {
  const growth = growthOf(nodes);
  const before = growth ? cache.get(growth.previous) : undefined;
  if (!growth || !before || before.layers >= MAX_LAYERS) return;
  const added = new Map<string, TreeNodeDto>();
  let { hasArchived, hasPruned } = before;
  for (const node of growth.added) {
    // A repeated id: the first one wins, as Map.set over the whole list would not; index again.
    if (added.has(node.id) || before.byId.has(node.id)) return;
    added.set(node.id, node);
    if (node.archived) hasArchived = true;
    if (node.pruned) hasPruned = true;
  }
  const base = before.byId;
  const byId: NodeById = {
    get: (id) => added.get(id) ?? base.get(id),
    has: (id) => added.has(id) || base.has(id),
  };
  return { byId, hasArchived, hasPruned, layers: before.layers + 1 };
}

export function treeLookup(nodes: readonly TreeNodeDto[]): TreeLookup {
  let lookup = cache.get(nodes) ?? grownLookup(nodes);
  if (lookup) cache.set(nodes, lookup);
  if (!lookup) {
    const byId = new Map<string, TreeNodeDto>();
    let hasArchived = false;
    let hasPruned = false;
    for (const node of nodes) {
      byId.set(node.id, node);
      if (node.archived) hasArchived = true;
      if (node.pruned) hasPruned = true;
    }
    lookup = { byId, hasArchived, hasPruned, layers: 1 };
    cache.set(nodes, lookup);
  }
  return lookup;
}

/** The tree node with this id (undefined: no tree, no id, or not in it). */
export function treeNode(nodes: readonly TreeNodeDto[] | undefined, id: string | null | undefined): TreeNodeDto | undefined {
  return nodes && id ? treeLookup(nodes).byId.get(id) : undefined;
}
