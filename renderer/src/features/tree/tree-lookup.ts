/**
 * Lookups over a session's tree nodes computed once per tree (cached on the nodes array), for
 * components whose store selectors run on every store change: a search over 25,000 nodes in a
 * selector cost every keyboard move on the canvas a full scan.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";

interface TreeLookup {
  byId: ReadonlyMap<string, TreeNodeDto>;
  hasArchived: boolean;
  hasPruned: boolean;
}

const cache = new WeakMap<readonly TreeNodeDto[], TreeLookup>();

export function treeLookup(nodes: readonly TreeNodeDto[]): TreeLookup {
  let lookup = cache.get(nodes);
  if (!lookup) {
    const byId = new Map<string, TreeNodeDto>();
    let hasArchived = false;
    let hasPruned = false;
    for (const node of nodes) {
      byId.set(node.id, node);
      if (node.archived) hasArchived = true;
      if (node.pruned) hasPruned = true;
    }
    lookup = { byId, hasArchived, hasPruned };
    cache.set(nodes, lookup);
  }
  return lookup;
}

/** The tree node with this id (undefined: no tree, no id, or not in it). */
export function treeNode(nodes: readonly TreeNodeDto[] | undefined, id: string | null | undefined): TreeNodeDto | undefined {
  return nodes && id ? treeLookup(nodes).byId.get(id) : undefined;
}
