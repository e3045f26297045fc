/**
 * Node lists made by appending nodes to another one (a refresh's delta that only added nodes, as
 * an agent's append gives): the tree slice notes them (noteTreeGrowth: only for a delta made
 * against the very tree on screen), and the canvas's caches, each keyed on the exact node list it
 * was built from, extend what they had for the previous list instead of starting over.
 */
import type { SessionTreeDto, SessionTreeUpdateDto, TreeNodeDto } from "../../../../core/api/dto.ts";

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
  // `next` keeps `previous` (what the caches extend from); `previous` lets its own previous go, or
  // an open session growing by appends would keep every list it had, and every cache built on them.
  grown.delete(previous);
}

/**
 * Notes `after` as grown from `before` when, and only when, `update` is a delta that only added
 * nodes, made for `before`'s session against `before`'s very version, and `after` is the version
 * it gave: any other refresh (another session, a session opened again, a whole tree, a rewrite,
 * an edit that changed or removed nodes) leaves the canvas to build everything for `after`.
 */
export function noteTreeGrowth(
  before: SessionTreeDto,
  after: SessionTreeDto,
  update: SessionTreeUpdateDto,
): void {
  if (update.kind !== "delta" || update.removed.length > 0 || update.changed.length > 0) return;
  if (before.sessionId !== update.sessionId || after.sessionId !== update.sessionId) return;
  if (before.version === undefined || before.version !== update.since || after.version !== update.version)
    return;
  noteGrowth(before.nodes, after.nodes, update.added);
}

/** How `nodes` grew from an earlier list, when the slice noted it. */
export function growthOf(nodes: readonly TreeNodeDto[]): TreeGrowth | undefined {
  return grown.get(nodes);
}
