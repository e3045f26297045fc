/**
 * The tree index as core/session/tree.ts built it before session:tree's first open was made
 * cheaper (a Map per link, children by parent id): the reference the tests compare today's
 * buildTreeIndex with, every field and every lookup, on fixtures and hostile sessions.
 */
import type { SessionProblem } from "../../core/api/dto.ts";
import { isKnownEntry, type SessionEntry } from "../../core/session/entries.ts";
import {
  applyLabelEntry,
  entryIdOf,
  invalidParentReason,
  type TreeIndex,
  type TreeIndexOptions,
} from "../../core/session/tree.ts";

const EMPTY: readonly SessionEntry[] = [];

function timeOf(entry: SessionEntry): number {
  const ms = Date.parse(entry.timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}

/** Union-find over node indices; each set is one tree of the forest built so far. */
class Forest {
  readonly #up: number[] = [];
  add(): number {
    this.#up.push(this.#up.length);
    return this.#up.length - 1;
  }
  find(node: number): number {
    let root = node;
    while (this.#up[root] !== root) root = this.#up[root] ?? root;
    let cursor = node;
    while (cursor !== root) {
      const next = this.#up[cursor] ?? root;
      this.#up[cursor] = root;
      cursor = next;
    }
    return root;
  }
  join(a: number, b: number): void {
    this.#up[this.find(a)] = this.find(b);
  }
}

export function buildTreeIndexReference(entries: readonly SessionEntry[], options: TreeIndexOptions = {}): TreeIndex {
  const problems: SessionProblem[] = [];
  const lineOf = (i: number): { line?: number } => {
    const line = options.lines?.[i];
    return line === undefined ? {} : { line };
  };

  // 1. ids, duplicates, missing ids, parentIds that are no link, unknown types, labels (file order)
  const byId = new Map<string, SessionEntry>();
  const labels = new Map<string, string>();
  entries.forEach((entry, i) => {
    const id = entryIdOf(entry);
    if (!isKnownEntry(entry)) {
      problems.push({
        kind: "unknown_type",
        message: `Unknown entry type "${entry.type}": kept as is, never sent to the model`,
        ...lineOf(i),
        ...(id === null ? {} : { entryId: id }),
      });
    }
    const invalidParent = invalidParentReason(entry);
    if (invalidParent !== null) {
      problems.push({
        kind: "invalid_parent",
        message: invalidParent,
        ...lineOf(i),
        ...(id === null ? {} : { entryId: id }),
      });
    }
    if (id === null) {
      problems.push({
        kind: "missing_id",
        message: `Entry of type "${entry.type}" has no string id: kept, but it cannot be part of the tree`,
        ...lineOf(i),
      });
    } else {
      if (byId.has(id)) {
        problems.push({
          kind: "duplicate_id",
          message: `Duplicate entry id ${id}: this later entry replaces the earlier one in the tree`,
          ...lineOf(i),
          entryId: id,
        });
      }
      byId.set(id, entry);
    }
    if (entry.type === "label") applyLabelEntry(labels, entry);
  });

  // 2. nodes = the winning entry of every id, in file order; edges added in that order
  const nodeIndex = new Map<string, number>();
  const nodes: { entry: SessionEntry; id: string; at: number }[] = [];
  entries.forEach((entry, at) => {
    const id = entryIdOf(entry);
    if (id !== null && byId.get(id) === entry) {
      nodeIndex.set(id, nodes.length);
      nodes.push({ entry, id, at });
    }
  });

  const forest = new Forest();
  for (let n = 0; n < nodes.length; n++) forest.add();
  const parent = new Map<string, string | null>();
  const roots: SessionEntry[] = [];
  const childrenOf = new Map<string, SessionEntry[]>();

  for (const [n, { entry, id, at }] of nodes.entries()) {
    const raw: unknown = entry.parentId;
    let effective: string | null = null;
    if (typeof raw === "string") {
      const p = nodeIndex.get(raw);
      if (raw === id) {
        problems.push({
          kind: "cycle",
          message: `Entry ${id} names itself as its parent: treated as a root`,
          ...lineOf(at),
          entryId: id,
        });
      } else if (p === undefined) {
        problems.push({
          kind: "orphan",
          message: `Entry ${id} has unknown parent ${raw}: treated as a root`,
          ...lineOf(at),
          entryId: id,
        });
      } else if (forest.find(p) === forest.find(n)) {
        problems.push({
          kind: "cycle",
          message: `Entry ${id}'s parent link to ${raw} closes a parentId cycle: treated as a root`,
          ...lineOf(at),
          entryId: id,
        });
      } else {
        forest.join(n, p);
        effective = raw;
      }
    }
    // Any other parentId (a number, an object, none at all) was reported above: a root.
    parent.set(id, effective);
    if (effective === null) roots.push(entry);
    else {
      const list = childrenOf.get(effective);
      if (list) list.push(entry);
      else childrenOf.set(effective, [entry]);
    }
  }

  const sortedCache = new Map<string, readonly SessionEntry[]>();
  const nodeCount = nodes.length;

  return {
    entries,
    byId,
    roots,
    labels,
    problems,
    parentOf: (id) => parent.get(id) ?? null,
    children: (id) => childrenOf.get(id) ?? EMPTY,
    childrenSorted(id) {
      const cached = sortedCache.get(id);
      if (cached) return cached;
      const list = childrenOf.get(id);
      if (!list) return EMPTY;
      // Array.prototype.sort is stable: equal timestamps keep file order.
      const sorted = [...list].sort((a, b) => timeOf(a) - timeOf(b));
      sortedCache.set(id, sorted);
      return sorted;
    },
    pathTo(id) {
      const path: SessionEntry[] = [];
      let cursor: string | null = byId.has(id) ? id : null;
      // The parent map is a forest after repair; the bound is a second line of defence.
      while (cursor !== null && path.length <= nodeCount) {
        const entry = byId.get(cursor);
        if (!entry) break;
        path.push(entry);
        cursor = parent.get(cursor) ?? null;
      }
      return path.reverse();
    },
    tips: () => nodes.filter((node) => !childrenOf.has(node.id)).map((node) => node.entry),
  };
}
