/**
 * A leaf's path walked on the structural columns (EntryLink rows in seq order) without parsing
 * an entry: the leaf's position, then the positions of its path from the leaf up to the root.
 * Shared by the partial context load and the compaction and pruning previews.
 */
import type { EntryLink } from "../store/repos/entries.ts";

/** Position of the LAST entry with this id (as the agents' byId resolves it), or -1. */
export function lastIndexOfId(links: readonly EntryLink[], id: string): number {
  for (let i = links.length - 1; i >= 0; i--) if ((links[i] as EntryLink)[1] === id) return i;
  return -1;
}

/**
 * Parent positions along the path from `leafIndex` up to the root, leaf first. Agents append
 * children after their parents, so the parent is found by scanning backwards from the child;
 * the walk only moves backwards, so the whole scan is O(entries). Returns null when a parent is
 * not found before its child (merged or hand-edited files): the caller then uses a map.
 */
function walkBackwards(links: readonly EntryLink[], leafIndex: number): number[] | null {
  const up: number[] = [leafIndex];
  let i = leafIndex;
  let parent = (links[i] as EntryLink)[2];
  let j = i - 1;
  while (parent !== null) {
    while (j >= 0 && (links[j] as EntryLink)[1] !== parent) j--;
    if (j < 0) return null;
    i = j;
    up.push(i);
    parent = (links[i] as EntryLink)[2];
    j = i - 1;
  }
  return up;
}

function walkWithMap(links: readonly EntryLink[], leafIndex: number): number[] {
  const byId = new Map<string, number>();
  for (let i = 0; i < links.length; i++) byId.set((links[i] as EntryLink)[1] as string, i);
  const up: number[] = [];
  for (let i: number | undefined = leafIndex; i !== undefined && up.length <= links.length; ) {
    up.push(i);
    const parent: string | null = (links[i] as EntryLink)[2];
    i = parent === null ? undefined : byId.get(parent);
  }
  return up;
}

/**
 * Positions of the path of `links[leafIndex]`, leaf first, root last. Exact for a session
 * without tree problems (D3); one with problems needs core's repairs (buildTreeIndex) instead.
 */
export function pathPositions(links: readonly EntryLink[], leafIndex: number): number[] {
  return walkBackwards(links, leafIndex) ?? walkWithMap(links, leafIndex);
}
