/**
 * Parent, type, creation time and (for branch summaries) `fromId` of every entry of the open
 * session, from the tree the canvas uses (repaired parents). The context diff walks these
 * links. Pure; cached per node list (a refresh that changed no node keeps them), and a list
 * grown by an append (tree-growth.ts) layers the appended entries' links on the previous list's
 * instead of parsing 100,000 timestamps again.
 */
import type { TreeNodeDto, SessionTreeDto } from "../../../../core/api/dto.ts";
import type { EntryLink, EntryLinks } from "../../../../core/session/context-diff.ts";
import { growthOf } from "../tree/tree-growth.ts";

const cache = new WeakMap<readonly TreeNodeDto[], { links: EntryLinks; layers: number }>();
/** Past this many stacked lookups, the list's links are made again. */
const MAX_LAYERS = 16;

function linkOf(node: TreeNodeDto): EntryLink {
  const time = Date.parse(node.timestamp);
  return {
    parentId: node.parentId,
    type: node.type,
    fromId: node.fromId ?? null,
    ...(Number.isNaN(time) ? {} : { time }),
  };
}

export function entryLinks(tree: SessionTreeDto | null): EntryLinks {
  if (!tree) return new Map();
  const nodes = tree.nodes;
  const cached = cache.get(nodes);
  if (cached) return cached.links;
  const growth = growthOf(nodes);
  const before = growth ? cache.get(growth.previous) : undefined;
  let made: { links: EntryLinks; layers: number };
  if (growth && before && before.layers < MAX_LAYERS) {
    // A later node with the same id wins, as it does in a Map made from the whole list.
    const added = new Map(growth.added.map((node) => [node.id, linkOf(node)]));
    const base = before.links;
    made = { links: { get: (id) => added.get(id) ?? base.get(id) }, layers: before.layers + 1 };
  } else {
    const links = new Map<string, EntryLink>();
    for (const node of nodes) links.set(node.id, linkOf(node));
    made = { links, layers: 1 };
  }
  cache.set(nodes, made);
  return made.links;
}
