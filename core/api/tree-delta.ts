/**
 * The session tree's delta (session:tree-update): what changed in the node list between two
 * versions, made on the main side (diffTreeNodes) and applied by the page (applyTreeUpdate), so
 * refreshing an open session sends the few nodes an append changed instead of all of them.
 */
import type { SessionTreeDto, SessionTreeUpdateDto, TreeNodeDto } from "./dto.ts";

/** A node list's change: taken out, replaced in place (order kept), added at the end in order. */
export interface NodesDiff {
  removed: string[];
  changed: TreeNodeDto[];
  added: TreeNodeDto[];
}

/** The same node: the same fields with the same values (nodes are flat; absent ≠ undefined). */
export function sameNode(a: TreeNodeDto, b: TreeNodeDto): boolean {
  if (a === b) return true;
  // Without Object.keys: a refresh compares 100,000 nodes, twice; no arrays are made for it.
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!(key in right) || !Object.is(left[key], right[key])) return false;
    keys++;
  }
  for (const _key in right) keys--;
  return keys === 0;
}

/**
 * What turns `previous` into `next` (both with unique ids), or null when it cannot be said as a
 * NodesDiff: a node that stays moved relative to another, or a new node before one that stays.
 */
export function diffTreeNodes(
  previous: readonly TreeNodeDto[],
  next: readonly TreeNodeDto[],
): NodesDiff | null {
  const at = new Map<string, number>();
  previous.forEach((node, index) => {
    at.set(node.id, index);
  });
  const kept = new Uint8Array(previous.length);
  const changed: TreeNodeDto[] = [];
  const added: TreeNodeDto[] = [];
  let lastKept = -1;
  for (const node of next) {
    const index = at.get(node.id);
    if (index === undefined) {
      added.push(node);
      continue;
    }
    if (added.length > 0 || index < lastKept) return null;
    lastKept = index;
    kept[index] = 1;
    if (!sameNode(previous[index] as TreeNodeDto, node)) changed.push(node);
  }
  const removed: string[] = [];
  previous.forEach((node, index) => {
    if (kept[index] === 0) removed.push(node.id);
  });
  return { removed, changed, added };
}

/**
 * `previous` with `diff` applied; `previous` itself when the diff is empty (a leaf move: the
 * canvas keeps its layout). Throws when the diff does not fit `previous` (ids it does not hold).
 * `has`, when the caller has it, says whether `previous` holds an id: a diff that only adds
 * (an agent's append) is then applied without indexing every node of `previous`.
 */
export function applyNodesDiff(
  previous: readonly TreeNodeDto[],
  diff: NodesDiff,
  has?: (id: string) => boolean,
): readonly TreeNodeDto[] {
  if (diff.removed.length === 0 && diff.changed.length === 0 && diff.added.length === 0) return previous;
  if (has && diff.removed.length === 0 && diff.changed.length === 0) {
    if (diff.added.some((node) => has(node.id)))
      throw new Error("the tree update does not fit the tree shown");
    return previous.concat(diff.added);
  }
  const removed = new Set(diff.removed);
  const changed = new Map(diff.changed.map((node) => [node.id, node]));
  const nodes: TreeNodeDto[] = [];
  const ids = new Set<string>();
  for (const node of previous) {
    ids.add(node.id);
    if (removed.has(node.id)) continue;
    nodes.push(changed.get(node.id) ?? node);
  }
  const misfit =
    diff.removed.some((id) => !ids.has(id)) ||
    diff.changed.some((node) => !ids.has(node.id) || removed.has(node.id)) ||
    diff.added.some((node) => ids.has(node.id));
  if (misfit) throw new Error("the tree update does not fit the tree shown");
  nodes.push(...diff.added);
  return nodes;
}

/**
 * The tree after `update`: the update itself when it is whole, else `previous` (of the update's
 * `since` version) with the delta applied. Throws when the delta is not for `previous`.
 */
export function applyTreeUpdate(
  previous: SessionTreeDto | null,
  update: SessionTreeUpdateDto,
  has?: (id: string) => boolean,
): SessionTreeDto {
  if (update.kind === "full") {
    const { kind: _kind, ...tree } = update;
    return tree;
  }
  if (previous === null || previous.sessionId !== update.sessionId || previous.version !== update.since)
    throw new Error("the tree update is for another version of the tree");
  return {
    sessionId: update.sessionId,
    nodes: applyNodesDiff(previous.nodes, update, has) as TreeNodeDto[],
    viewLeafId: update.viewLeafId,
    fileLeafId: update.fileLeafId,
    problems: update.problems,
    history: update.history,
    version: update.version,
  };
}
