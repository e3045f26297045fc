/**
 * Each entry's depth in the session tree (its number of ancestors), computed once per node list
 * and without recursion: the level a canvas node tells a screen reader (tree-position.ts).
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import { treeLookup } from "./tree-lookup.ts";

const depthCache = new WeakMap<readonly TreeNodeDto[], Map<string, number>>();

/** Each entry's number of ancestors, once per node list (iterative: a chain may be 100,000 deep). */
export function entryDepths(nodes: readonly TreeNodeDto[]): Map<string, number> {
  const cached = depthCache.get(nodes);
  if (cached) return cached;
  const depths = new Map<string, number>();
  const path: string[] = [];
  for (const start of nodes) {
    if (depths.has(start.id)) continue;
    // The usual case, a parent listed before its child: one lookup.
    const parentDepth = start.parentId === null ? -1 : depths.get(start.parentId);
    if (parentDepth !== undefined) {
      depths.set(start.id, parentDepth + 1);
      continue;
    }
    // A parent listed later (or missing): walk up to an entry whose depth is known.
    const { byId } = treeLookup(nodes);
    path.length = 0;
    let node: TreeNodeDto | undefined = start;
    while (node && !depths.has(node.id)) {
      path.push(node.id);
      // A cycle (a malformed file) ends the walk as if at a root.
      if (path.length > nodes.length) break;
      node = node.parentId === null ? undefined : byId.get(node.parentId);
    }
    const base = node ? (depths.get(node.id) ?? -1) : -1;
    for (let i = path.length - 1; i >= 0; i--) depths.set(path[i] as string, base + (path.length - i));
  }
  depthCache.set(nodes, depths);
  return depths;
}
