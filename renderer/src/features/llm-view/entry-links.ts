/**
 * Parent, type, creation time and (for branch summaries) `fromId` of every entry of the open
 * session, from the tree the canvas uses (repaired parents). The context diff and the
 * stale-measurement check walk these links. Pure; cached per tree object.
 */
import type { SessionTreeDto } from "../../../../core/api/dto.ts";
import type { EntryLink } from "../../../../core/session/context-diff.ts";

const cache = new WeakMap<SessionTreeDto, Map<string, EntryLink>>();

export function entryLinks(tree: SessionTreeDto | null): Map<string, EntryLink> {
  if (!tree) return new Map();
  const cached = cache.get(tree);
  if (cached) return cached;
  const links = new Map<string, EntryLink>();
  for (const node of tree.nodes) {
    const time = Date.parse(node.timestamp);
    links.set(node.id, {
      parentId: node.parentId,
      type: node.type,
      fromId: node.fromId ?? null,
      ...(Number.isNaN(time) ? {} : { time }),
    });
  }
  cache.set(tree, links);
  return links;
}

/** The entry and its ancestors (cycle-safe). */
export function ancestorsOf(entryId: string | null, links: ReadonlyMap<string, EntryLink>): Set<string> {
  const out = new Set<string>();
  let current = entryId;
  while (current !== null && !out.has(current)) {
    out.add(current);
    current = links.get(current)?.parentId ?? null;
  }
  return out;
}
