/**
 * Keyboard moves over the laid-out tree (pure): up = parent, down = first child, left/right =
 * siblings, Home = the root the entry hangs from, End = the tip of its branch (first children
 * down: the view leaf's branch is listed first). Landing on a chain selects its nearest entry
 * (its last entry going up, its first going down), which the canvas then reveals as its own node.
 */
import { entryOfLayoutNode, type LayoutNode, ROOTS_KEY, type TreeLayout } from "./layout.ts";

export type ArrowKey = "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight";

export type TreeMoveKey = ArrowKey | "Home" | "End";

export function isArrowKey(key: string): key is ArrowKey {
  return key === "ArrowUp" || key === "ArrowDown" || key === "ArrowLeft" || key === "ArrowRight";
}

export function isTreeMoveKey(key: string): key is TreeMoveKey {
  return isArrowKey(key) || key === "Home" || key === "End";
}

/** Home and End: the entry at the root above, or at the branch tip below, a layout node. */
function endOf(layout: TreeLayout, from: LayoutNode, key: "Home" | "End"): string | null {
  let node = from;
  for (;;) {
    const nextId = key === "Home" ? node.parentId : layout.childrenOf.get(node.id)?.[0];
    const next = nextId === null || nextId === undefined ? undefined : layout.byId.get(nextId);
    if (!next) break;
    node = next;
  }
  const entry = entryOfLayoutNode(node, key === "Home" ? "first" : "last");
  return node === from && node.kind === "entry" ? null : entry;
}

/** The entry the key moves the selection to from a layout node, or null when there is none. */
export function stepFrom(layout: TreeLayout, fromLayoutId: string, key: TreeMoveKey): string | null {
  const node = layout.byId.get(fromLayoutId);
  if (!node) return null;
  if (key === "Home" || key === "End") return endOf(layout, node, key);
  if (key === "ArrowUp") {
    const parent = node.parentId === null ? undefined : layout.byId.get(node.parentId);
    return parent ? entryOfLayoutNode(parent, "last") : null;
  }
  if (key === "ArrowDown") {
    const child = layout.childrenOf.get(node.id)?.[0];
    const childNode = child === undefined ? undefined : layout.byId.get(child);
    return childNode ? entryOfLayoutNode(childNode, "first") : null;
  }
  const siblings = layout.childrenOf.get(node.parentId ?? ROOTS_KEY) ?? [];
  const index = siblings.indexOf(node.id);
  const sibling = siblings[index + (key === "ArrowLeft" ? -1 : 1)];
  const siblingNode = index < 0 || sibling === undefined ? undefined : layout.byId.get(sibling);
  return siblingNode ? entryOfLayoutNode(siblingNode, "first") : null;
}
