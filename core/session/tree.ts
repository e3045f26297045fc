/**
 * Tree index over a session's entries (SPEC §2.1, §2.3, §2.4, D3): id lookup, effective parents,
 * children, roots, tips, paths and labels, plus validation. Duplicate ids, parentId cycles
 * (self-parent included), orphans, parentIds that are neither an id nor null, entries without an
 * id, unknown types and messages of an unknown role are reported; cycles are broken deterministically so that no walk can loop.
 */
import type { SessionProblem } from "../api/dto.ts";
import { isKnownEntry, isKnownMessageRole, type SessionEntry } from "./entries.ts";
import { toJson } from "../text/json-deep.ts";

export interface TreeIndexOptions {
  /** 1-based file line of each entry (parallel to `entries`), used in problem reports. */
  lines?: readonly number[];
}

export interface TreeIndex {
  /** The entries the index was built from, in file order. */
  readonly entries: readonly SessionEntry[];
  /** id → entry; a later duplicate overwrites an earlier one (as the anchor does). */
  readonly byId: ReadonlyMap<string, SessionEntry>;
  /** Entries treated as roots (parent null, self, unknown, or cycle-closing), file order. */
  readonly roots: readonly SessionEntry[];
  /** targetId → label, label entries applied in file order (labels are global). */
  readonly labels: ReadonlyMap<string, string>;
  readonly problems: readonly SessionProblem[];
  /** The parent used by every walk: the stored parentId, or null where the tree was repaired. */
  parentOf(id: string): string | null;
  /** Children in file order. */
  children(id: string): readonly SessionEntry[];
  /** Children sorted by entry timestamp, oldest first (SPEC §2.3 getTree). */
  childrenSorted(id: string): readonly SessionEntry[];
  /** Path root → id (inclusive); empty for an unknown id. Never loops. */
  pathTo(id: string): SessionEntry[];
  /** Entries without children, file order. */
  tips(): SessionEntry[];
}

const EMPTY: readonly SessionEntry[] = [];

function timeOf(entry: SessionEntry): number {
  const ms = Date.parse(entry.timestamp);
  return Number.isNaN(ms) ? 0 : ms;
}

export function entryIdOf(entry: SessionEntry): string | null {
  const id: unknown = entry.id;
  return typeof id === "string" ? id : null;
}

/** "5 (a number)" / "{"id":"a"} (an object)": a parentId that is not a string, as a problem names it. */
function describeValue(value: unknown): string {
  const kind = Array.isArray(value)
    ? "an array"
    : typeof value === "object"
      ? "an object"
      : `a ${typeof value}`;
  const text = toJson(value) ?? String(value);
  return `${text.length > 40 ? `${text.slice(0, 39)}…` : text} (${kind})`;
}

/**
 * Why an entry's parentId is not a parent link (SPEC §1.4: a string id, or null for a root), or
 * null when it is one. The agents' walks stop at such an entry and their tree shows it as a root
 * (a lookup by a number or an object finds nothing), so Canopy treats it as a root too.
 */
export function invalidParentReason(entry: SessionEntry): string | null {
  const raw: unknown = entry.parentId;
  if (raw === null || typeof raw === "string") return null;
  const id = entryIdOf(entry);
  const who = id === null ? `Entry of type "${entry.type}" without an id` : `Entry ${id}`;
  const what =
    raw === undefined
      ? "has no parentId (an entry id, or null for a root)"
      : `has parentId ${describeValue(raw)}, not an entry id or null`;
  return `${who} ${what}: treated as a root, as the agents do`;
}

/**
 * Why a `message` entry is never sent to the model although its type is known: its role is none
 * of the agent's (convertToLlm skips it, SPEC §3.4), or it has none. Null for any other entry.
 */
export function unknownRoleReason(entry: SessionEntry): string | null {
  if (entry.type !== "message") return null;
  const message: unknown = entry.message;
  const role = message !== null && typeof message === "object" ? (message as { role?: unknown }).role : undefined;
  if (isKnownMessageRole(role)) return null;
  const id = entryIdOf(entry);
  const who = id === null ? "A message without an id" : `Message ${id}`;
  const what = typeof role === "string" ? `has the unknown role "${role}"` : "has no role";
  return `${who} ${what}: kept as is, never sent to the model`;
}

/** A label entry applied to `labels` (targetId → label): a non-empty label sets, anything else clears. */
export function applyLabelEntry(labels: Map<string, string>, entry: SessionEntry): void {
  const target: unknown = entry.targetId;
  const label: unknown = entry.label;
  if (typeof target !== "string") return;
  if (typeof label === "string" && label !== "") labels.set(target, label);
  else labels.delete(target);
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

export function buildTreeIndex(entries: readonly SessionEntry[], options: TreeIndexOptions = {}): TreeIndex {
  const problems: SessionProblem[] = [];
  const lineOf = (i: number): { line?: number } => {
    const line = options.lines?.[i];
    return line === undefined ? {} : { line };
  };

  // 1. ids, duplicates, missing ids, parentIds that are no link, unknown types, labels (file order)
  const byId = new Map<string, SessionEntry>();
  const labels = new Map<string, string>();
  let duplicates = 0;
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
    const unknownRole = unknownRoleReason(entry);
    if (unknownRole !== null) {
      problems.push({
        kind: "unknown_role",
        message: unknownRole,
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
      // The map did not grow: the id was there already.
      const known = byId.size;
      byId.set(id, entry);
      if (byId.size === known) {
        duplicates++;
        problems.push({
          kind: "duplicate_id",
          message: `Duplicate entry id ${id}: this later entry replaces the earlier one in the tree`,
          ...lineOf(i),
          entryId: id,
        });
      }
    }
    if (entry.type === "label") applyLabelEntry(labels, entry);
  });

  // 2. nodes = the winning entry of every id, in file order; edges added in that order. A node's
  // parent and children are kept by its number (n), found from its id through nodeIndex.
  const nodeIndex = new Map<string, number>();
  const nodes: { entry: SessionEntry; id: string; at: number }[] = [];
  entries.forEach((entry, at) => {
    const id = entryIdOf(entry);
    // Without duplicates every entry with an id is the one its id names.
    if (id !== null && (duplicates === 0 || byId.get(id) === entry)) {
      nodeIndex.set(id, nodes.length);
      nodes.push({ entry, id, at });
    }
  });

  const forest = new Forest();
  for (let n = 0; n < nodes.length; n++) forest.add();
  const parentOfNode: (string | null)[] = new Array(nodes.length).fill(null);
  const roots: SessionEntry[] = [];
  const childrenOfNode: (SessionEntry[] | undefined)[] = new Array(nodes.length).fill(undefined);

  for (let n = 0; n < nodes.length; n++) {
    const { entry, id, at } = nodes[n] as { entry: SessionEntry; id: string; at: number };
    const raw: unknown = entry.parentId;
    let parentNode = -1;
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
        parentNode = p;
      }
    }
    // Any other parentId (a number, an object, none at all) was reported above: a root.
    parentOfNode[n] = effective;
    if (parentNode === -1) roots.push(entry);
    else {
      const list = childrenOfNode[parentNode];
      if (list) list.push(entry);
      else childrenOfNode[parentNode] = [entry];
    }
  }

  const sortedCache = new Map<string, readonly SessionEntry[]>();
  const nodeCount = nodes.length;
  const parentOf = (id: string): string | null => {
    const n = nodeIndex.get(id);
    return n === undefined ? null : (parentOfNode[n] ?? null);
  };
  const childrenOf = (id: string): SessionEntry[] | undefined => {
    const n = nodeIndex.get(id);
    return n === undefined ? undefined : childrenOfNode[n];
  };

  return {
    entries,
    byId,
    roots,
    labels,
    problems,
    parentOf,
    children: (id) => childrenOf(id) ?? EMPTY,
    childrenSorted(id) {
      const cached = sortedCache.get(id);
      if (cached) return cached;
      const list = childrenOf(id);
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
        cursor = parentOf(cursor);
      }
      return path.reverse();
    },
    tips: () => nodes.filter((_, n) => childrenOfNode[n] === undefined).map((node) => node.entry),
  };
}

/**
 * An "is `ancestor` strictly above `descendant` in the repaired tree" test in O(1) per question,
 * from one iterative walk (visit-order intervals), so checking every compaction's first kept
 * entry stays linear on a 100,000-deep session.
 */
export function ancestorTest(index: TreeIndex): (ancestor: string, descendant: string) => boolean {
  const enter = new Map<string, number>();
  const exit = new Map<string, number>();
  let clock = 0;
  const stack: { entry: SessionEntry; done: boolean }[] = [...index.roots]
    .reverse()
    .map((entry) => ({ entry, done: false }));
  while (stack.length > 0) {
    const item = stack.pop() as { entry: SessionEntry; done: boolean };
    const id = entryIdOf(item.entry);
    if (id === null) continue;
    if (item.done) {
      exit.set(id, clock++);
      continue;
    }
    enter.set(id, clock++);
    stack.push({ entry: item.entry, done: true });
    const children = index.children(id);
    for (let i = children.length - 1; i >= 0; i--)
      stack.push({ entry: children[i] as SessionEntry, done: false });
  }
  return (ancestor, descendant) => {
    const a = enter.get(ancestor);
    const d = enter.get(descendant);
    if (a === undefined || d === undefined || a === d) return false;
    return a < d && d < (exit.get(ancestor) as number);
  };
}
