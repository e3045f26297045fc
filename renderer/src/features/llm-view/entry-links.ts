/**
 * Parent, type and (for branch summaries) `fromId` of every entry of the open session, from the
 * tree the canvas uses (repaired parents) and the session detail (for `fromId`). The context
 * diff and the stale-measurement check walk these links. Pure; cached per tree object.
 */
import type { SessionDetail, SessionTreeDto } from "../../../../core/api/dto.ts";
import type { EntryLink } from "../../../../core/session/context-diff.ts";

const cache = new WeakMap<object, { detail: SessionDetail | null; links: Map<string, EntryLink> }>();

export function entryLinks(
  tree: SessionTreeDto | null,
  detail: SessionDetail | null,
): Map<string, EntryLink> {
  const key = tree ?? detail;
  if (!key) return new Map();
  const cached = cache.get(key);
  if (cached && cached.detail === detail) return cached.links;
  const fromIds = new Map<string, string>();
  for (const { entry } of detail?.entries ?? []) {
    if (entry.type === "branch_summary" && typeof entry.fromId === "string" && typeof entry.id === "string") {
      fromIds.set(entry.id, entry.fromId);
    }
  }
  const links = new Map<string, EntryLink>();
  if (tree) {
    for (const node of tree.nodes) {
      links.set(node.id, { parentId: node.parentId, type: node.type, fromId: fromIds.get(node.id) ?? null });
    }
  } else {
    for (const { entry } of detail?.entries ?? []) {
      if (typeof entry.id !== "string") continue;
      const parentId = typeof entry.parentId === "string" ? entry.parentId : null;
      links.set(entry.id, { parentId, type: entry.type, fromId: fromIds.get(entry.id) ?? null });
    }
  }
  cache.set(key, { detail, links });
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
