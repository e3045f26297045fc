/**
 * A session's tree extended by the entries appended since it was made (the agent's live append,
 * Canopy's new branch), at a cost that follows the appended rows: whenever the whole walk could
 * give anything but the kept nodes followed by the new ones (a row removed or rewritten, a label,
 * a duplicate id, an orphan's parent arriving, a change of the archive), it answers null.
 */
import type { SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import type { Database } from "../store/open.ts";
import { entryRowsUpTo, forEachEntryNodeSourceAfter, rewrittenEntries } from "../store/repos/entries.ts";
import { requireSession } from "./load.ts";
import { appendedNode, archivedRootsKey, type TreeGrowth, treeFrame } from "./tree-nodes.ts";

/**
 * The tree now made from `nodes` (the tree `growth` describes) and the rows appended after it,
 * or null when only the whole walk can say it. On success `growth` describes the tree returned;
 * after null it is spent (call it again only with a growth from a whole walk).
 * `nodes` is returned itself when nothing was appended.
 */
export function growSessionTree(
  db: Database,
  sessionId: string,
  growth: TreeGrowth,
  nodes: readonly TreeNodeDto[],
): SessionTreeDto | null {
  const row = requireSession(db, sessionId);
  if (row.sid !== growth.sid) return null;
  // The rows the tree was made from are all still there, none put in among them.
  const before = entryRowsUpTo(db, row.sid, growth.maxSeq);
  if (before.count !== growth.rows || before.maxPk !== growth.maxPk) return null;
  if (archivedRootsKey(db, row.sid) !== growth.archivedRoots) return null;
  // No entry's JSON or tokens rewritten since (pruning, restoring, an id migration).
  const newlyRewritten: [number, { tokens: number; json: string }][] = [];
  let oldRewritten = 0;
  for (const r of rewrittenEntries(db, row.sid)) {
    if (r.pk > growth.maxPk) {
      newlyRewritten.push([r.pk, { tokens: r.tokens, json: r.json }]);
      continue;
    }
    const kept = growth.rewritten.get(r.pk);
    if (kept === undefined || kept.tokens !== r.tokens || kept.json !== r.json) return null;
    oldRewritten++;
  }
  if (oldRewritten !== growth.rewritten.size) return null;

  const roots = growth.archivedRoots === "[]" ? null : new Set(JSON.parse(growth.archivedRoots) as string[]);
  const known = (id: string) => growth.ids.has(id) || growth.appendedIds.has(id) || addedById.has(id);
  const added: TreeNodeDto[] = [];
  const addedById = new Map<string, TreeNodeDto>();
  const wanted: string[] = [];
  let rows = 0;
  let maxSeq = growth.maxSeq;
  let maxPk = growth.maxPk;
  let whole = false;
  forEachEntryNodeSourceAfter(db, row.sid, growth.maxSeq, (stored) => {
    if (whole) return;
    // A row older than the tree after its end (not one this walk can place): the whole walk.
    if (stored.pk <= growth.maxPk) whole = true;
    rows++;
    maxSeq = stored.seq;
    if (stored.pk > maxPk) maxPk = stored.pk;
    // A label changes another node; an entry without an id is no node.
    if (stored.type === "label") whole = true;
    const id = stored.id;
    if (whole || id === null) return;
    // A duplicate id moves a node; an id an orphan waits for gives it a parent (in this batch too).
    if (known(id) || growth.wanted.has(id) || wanted.includes(id)) {
      whole = true;
      return;
    }
    const raw = stored.parentId;
    let parentId: string | null = null;
    // No entry before it names it as its parent (that would be an orphan): no cycle can close here.
    if (raw !== null && raw !== id) {
      if (known(raw)) parentId = raw;
      else wanted.push(raw);
    }
    const archived =
      (parentId !== null && (growth.archived.has(parentId) || addedById.get(parentId)?.archived === true)) ||
      (roots?.has(id) ?? false);
    const node = appendedNode(stored, parentId, growth.labels.get(id), archived);
    added.push(node);
    addedById.set(id, node);
  });
  if (whole) return null;

  growth.rows += rows;
  growth.maxSeq = maxSeq;
  growth.maxPk = maxPk;
  for (const node of added) {
    growth.appendedIds.add(node.id);
    if (node.archived) growth.archived.add(node.id);
  }
  for (const id of wanted) growth.wanted.add(id);
  for (const [pk, r] of newlyRewritten) growth.rewritten.set(pk, r);
  return {
    sessionId,
    nodes: (added.length === 0 ? nodes : nodes.concat(added)) as TreeNodeDto[],
    ...treeFrame(db, sessionId, row),
  };
}
