/**
 * Where a canvas node sits in the tree, for screen readers: its level (1 for a root) and its
 * place among the siblings shown. The treeitems are flat in the DOM (React Flow positions them),
 * so aria-level, aria-posinset and aria-setsize are what tell a branch from a straight run.
 * The level is the entry's depth in the session, not in the layout: a chain that splits around a
 * revealed entry then changes no other node's level (and re-renders no other node).
 */
import type { CanopyState } from "../../store/index.ts";
import { entryDepths } from "./entry-depths.ts";
import { ROOTS_KEY } from "./layout.ts";
import { selectLayout } from "./selectors.ts";

/**
 * "level posinset setsize" of a layout node whose first entry is `entryId` (one string, so a node
 * re-renders only when it changes); empty when it is not laid out.
 */
export function selectTreePosition(state: CanopyState, layoutId: string, entryId: string): string {
  const layout = selectLayout(state);
  const node = layout?.byId.get(layoutId);
  const nodes = state.tree?.nodes;
  if (!layout || !node || !nodes) return "";
  const depth = entryDepths(nodes).get(entryId);
  if (depth === undefined) return "";
  const siblings = layout.childrenOf.get(node.parentId ?? ROOTS_KEY) ?? [];
  return `${depth + 1} ${siblings.indexOf(node.id) + 1} ${siblings.length}`;
}

/** The ARIA attributes of a position read by selectTreePosition (none when the node is not laid out). */
export function treePositionAttributes(position: string): {
  "aria-level"?: number;
  "aria-posinset"?: number;
  "aria-setsize"?: number;
} {
  const [level, posInSet, setSize] = position.split(" ").map(Number);
  if (!level || !posInSet || !setSize) return {};
  return { "aria-level": level, "aria-posinset": posInSet, "aria-setsize": setSize };
}
