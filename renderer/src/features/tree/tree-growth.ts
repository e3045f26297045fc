/**
 * Node lists made by appending nodes to another one (a refresh's delta that only added nodes, as
 * an agent's append gives): the tree slice notes them, and the canvas's per-tree caches (lookup,
 * structure, model view) extend what they had for the previous list instead of starting over.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";

export interface TreeGrowth {
  /** The list `next` starts with (the very same node objects, in the same order). */
  previous: readonly TreeNodeDto[];
  /** The nodes after them. */
  added: readonly TreeNodeDto[];
}

const grown = new WeakMap<readonly TreeNodeDto[], TreeGrowth>();

/** Notes that `next` is `previous` followed by `added`; ignored when it is not exactly that. */
export function noteGrowth(
  previous: readonly TreeNodeDto[],
  next: readonly TreeNodeDto[],
  added: readonly TreeNodeDto[],
): void {
  if (added.length === 0 || next.length !== previous.length + added.length) return;
  for (let i = 0; i < added.length; i++) if (next[previous.length + i] !== added[i]) return;
  // The shared prefix is checked at its ends only: the slice builds `next` from `previous`.
  if (
    previous.length > 0 &&
    (next[0] !== previous[0] || next[previous.length - 1] !== previous[previous.length - 1])
  )
    return;
  grown.set(next, { previous, added });
}

/** How `nodes` grew from an earlier list, when the slice noted it. */
export function growthOf(nodes: readonly TreeNodeDto[]): TreeGrowth | undefined {
  return grown.get(nodes);
}
