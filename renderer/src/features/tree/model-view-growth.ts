/**
 * The model view (marks.ts) of a node list grown by appended entries (tree-growth.ts), from the
 * view computed on the list before: an agent's append no longer walks a 100,000-entry path again.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import { appendKeepsOldPaths } from "./layout-structure.ts";
import type { ModelView } from "./marks.ts";
import { growthOf } from "./tree-growth.ts";

/**
 * The model view at `leafId` after `entries` grew from the list `last` was computed on, without
 * walking the path again: the same view when the leaf stayed (appended entries are on no old
 * entry's path), or the previous view plus the appended entries down to the new leaf when they
 * hang under the previous leaf and none of them is a compaction; undefined otherwise.
 */
export function grownModelView(
  last: { entries: readonly TreeNodeDto[]; leafId: string | null; view: ModelView | null },
  entries: readonly TreeNodeDto[],
  leafId: string | null,
): ModelView | null | undefined {
  const growth = growthOf(entries);
  if (!growth || growth.previous !== last.entries || !appendKeepsOldPaths(growth.previous, growth.added))
    return;
  // The same leaf: the same view, unless the leaf was not in the previous list (no view then) and
  // may be one of the appended entries.
  if (leafId === last.leafId) return leafId === null || last.view !== null ? last.view : undefined;
  if (!last.view || last.leafId === null || leafId === null) return;
  const added = new Map(growth.added.map((node) => [node.id, node]));
  const seen = new Set(last.view.seen);
  let id: string | null = leafId;
  let steps = 0;
  for (let node = added.get(id); node; id = node.parentId, node = added.get(id ?? "")) {
    // A compaction changes what is seen; more steps than appended entries is a loop.
    if (node.type === "compaction" || ++steps > added.size) return;
    if (node.noMessage !== true) seen.add(node.id);
  }
  if (id !== last.leafId) return;
  return { leafId, seen, compaction: last.view.compaction };
}
