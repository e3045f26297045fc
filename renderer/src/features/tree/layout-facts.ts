/**
 * What the layout reads from each entry, as flat arrays cached per node list (pure): ids, token
 * counts, user flags, the entry-kind part of "interesting", archived flags, and per filter which
 * entries pass it. A layout for a new selection (an arrow key that reveals an entry of a chain)
 * then walks typed arrays instead of reading fields of 30,000 entry objects again. A list the
 * tree slice noted as grown by appended nodes (tree-growth.ts) extends its previous list's facts.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";
import { passesFilter, type TreeFilter } from "./filter.ts";
import { growthOf } from "./tree-growth.ts";

export interface LayoutFacts {
  ids: readonly string[];
  tokens: Float64Array;
  /** 1 for user messages. */
  user: Uint8Array;
  /** 1 for a compaction, a branch summary or a labelled entry: never collapsed into a chain. */
  special: Uint8Array;
  archived: Uint8Array;
  /** 1 where the entry passes the filter (archived or not), one array per filter asked for. */
  passing(filter: TreeFilter): Uint8Array;
}

interface Stored {
  ids: string[];
  tokens: Float64Array;
  user: Uint8Array;
  special: Uint8Array;
  archived: Uint8Array;
  byFilter: Map<TreeFilter, Uint8Array>;
}

const cache = new WeakMap<readonly TreeNodeDto[], Stored>();

function fill(stored: Stored, nodes: readonly TreeNodeDto[], from: number): void {
  for (let i = from; i < nodes.length; i++) {
    const node = nodes[i] as TreeNodeDto;
    stored.ids[i] = node.id;
    stored.tokens[i] = node.tokens;
    stored.user[i] = node.kind === "user" ? 1 : 0;
    stored.special[i] =
      node.type === "compaction" || node.type === "branch_summary" || (node.label ?? "") !== "" ? 1 : 0;
    stored.archived[i] = node.archived ? 1 : 0;
  }
}

function build(nodes: readonly TreeNodeDto[]): Stored {
  const n = nodes.length;
  const growth = growthOf(nodes);
  const before = growth ? cache.get(growth.previous) : undefined;
  const from = before && growth ? growth.previous.length : 0;
  const grow = <T extends Float64Array | Uint8Array>(make: (n: number) => T, old: T | undefined): T => {
    const array = make(n);
    if (old && from > 0) array.set(old.subarray(0, from));
    return array;
  };
  const stored: Stored = {
    ids: before && from > 0 ? before.ids.slice(0, from) : new Array<string>(n),
    tokens: grow((size) => new Float64Array(size), before?.tokens),
    user: grow((size) => new Uint8Array(size), before?.user),
    special: grow((size) => new Uint8Array(size), before?.special),
    archived: grow((size) => new Uint8Array(size), before?.archived),
    byFilter: new Map(),
  };
  fill(stored, nodes, from);
  if (before && from > 0) {
    for (const [filter, old] of before.byFilter) {
      const passing = new Uint8Array(n);
      passing.set(old.subarray(0, from));
      for (let i = from; i < n; i++) passing[i] = passesFilter(nodes[i] as TreeNodeDto, filter) ? 1 : 0;
      stored.byFilter.set(filter, passing);
    }
  }
  return stored;
}

export function layoutFacts(nodes: readonly TreeNodeDto[]): LayoutFacts {
  let stored = cache.get(nodes);
  if (!stored) {
    stored = build(nodes);
    cache.set(nodes, stored);
  }
  const { byFilter } = stored;
  return {
    ids: stored.ids,
    tokens: stored.tokens,
    user: stored.user,
    special: stored.special,
    archived: stored.archived,
    passing(filter) {
      let passing = byFilter.get(filter);
      if (!passing) {
        passing = new Uint8Array(nodes.length);
        for (let i = 0; i < nodes.length; i++)
          passing[i] = passesFilter(nodes[i] as TreeNodeDto, filter) ? 1 : 0;
        byFilter.set(filter, passing);
      }
      return passing;
    },
  };
}
