/**
 * Versions of session trees' node lists, kept in memory for the sessions whose tree was made
 * last, so session:tree-update can answer only what changed since the version a page has. A tree
 * is either made whole (loadSessionTree) or, after rows were only appended, the newest version's
 * extended by them (tree-grow.ts, which declines whenever the whole walk could differ); the delta
 * is the appended nodes or a diff of the two node lists. Anything not kept (another process,
 * evicted, never seen) gets the whole tree.
 */
import { randomUUID } from "node:crypto";
import type { SessionTreeDto, SessionTreeUpdateDto, TreeNodeDto } from "../../core/api/dto.ts";
import { diffTreeNodes, sameNode } from "../../core/api/tree-delta.ts";
import type { Database } from "../store/open.ts";
import { readSnapshot } from "../store/transactions.ts";
import { growSessionTree } from "./tree-grow.ts";
import { buildSessionTree, type TreeGrowth } from "./tree-nodes.ts";

/** Sessions whose versions are kept, and versions kept per session (windows on older ones). */
export const KEPT_SESSIONS = 2;
export const KEPT_VERSIONS = 4;

interface Kept {
  version: string;
  nodes: readonly TreeNodeDto[];
  /** The version whose nodes (the same objects) begin this one's: it only appended to that one. */
  appendsTo?: string;
  /** The newest version only: what extending it by appended rows needs (tree-grow.ts). */
  growth?: TreeGrowth | null;
}

/** How the trees were made, for tests: extended by appended rows, or by the whole walk. */
export const treeBuilds = { grown: 0, whole: 0 };

/** Versions made by this process only: a page that outlives a server never names a stranger's. */
const processTag = randomUUID().slice(0, 8);
let made = 0;
const byDatabase = new WeakMap<Database, Map<string, Kept[]>>();

function keptOf(db: Database): Map<string, Kept[]> {
  let sessions = byDatabase.get(db);
  if (!sessions) {
    sessions = new Map();
    byDatabase.set(db, sessions);
  }
  return sessions;
}

/**
 * The session's tree now, with its version: the newest kept version when the nodes are the same,
 * else a new one (kept, sharing the unchanged node objects of the newest: versions cost little).
 * After rows were only appended, the newest version's tree is extended by them (tree-grow.ts);
 * anything else makes the whole tree. Both read one snapshot of the library (a transaction).
 */
export function versionedSessionTree(db: Database, sessionId: string): SessionTreeDto & { version: string } {
  return readSnapshot(db, () => versionedTree(db, sessionId));
}

function versionedTree(db: Database, sessionId: string): SessionTreeDto & { version: string } {
  const sessions = keptOf(db);
  const versions = sessions.get(sessionId) ?? [];
  const newest = versions.at(-1);
  const growth = newest?.growth;
  const grown = newest && growth ? growSessionTree(db, sessionId, growth, newest.nodes) : null;
  let tree: SessionTreeDto;
  let version: string;
  if (newest && grown) {
    treeBuilds.grown++;
    tree = grown;
    if (grown.nodes === newest.nodes) version = newest.version;
    else {
      version = `${processTag}.${++made}`;
      newest.growth = null;
      versions.push({ version, nodes: grown.nodes, appendsTo: newest.version, growth });
    }
  } else {
    treeBuilds.whole++;
    const built = buildSessionTree(db, sessionId);
    tree = built.tree;
    let same = false;
    if (newest) {
      newest.growth = null;
      const byId = new Map(newest.nodes.map((node) => [node.id, node]));
      same = tree.nodes.length === newest.nodes.length;
      tree.nodes.forEach((node, index) => {
        const old = byId.get(node.id);
        if (old !== undefined && sameNode(old, node)) tree.nodes[index] = old;
        if (tree.nodes[index] !== newest.nodes[index]) same = false;
      });
    }
    if (newest && same) {
      version = newest.version;
      newest.growth = built.growth;
    } else {
      version = `${processTag}.${++made}`;
      versions.push({ version, nodes: tree.nodes, growth: built.growth });
    }
  }
  while (versions.length > KEPT_VERSIONS) versions.shift();
  // Most recently asked last; the oldest session beyond the limit is dropped.
  sessions.delete(sessionId);
  sessions.set(sessionId, versions);
  while (sessions.size > KEPT_SESSIONS) sessions.delete(sessions.keys().next().value as string);
  return { ...tree, version };
}

/** The nodes appended to `base` to make `kept`'s newest, when every version between only appended. */
function appendedSince(versions: readonly Kept[], base: Kept): readonly TreeNodeDto[] | null {
  let at = versions.length - 1;
  let cursor = versions[at];
  const newest = cursor;
  while (cursor && cursor !== base) {
    const from = cursor.appendsTo;
    if (from === undefined) return null;
    while (at >= 0 && versions[at]?.version !== from) at--;
    cursor = versions[at];
  }
  if (cursor !== base || newest === undefined) return null;
  return newest.nodes.slice(base.nodes.length);
}

/**
 * The tree as a delta from version `since`, or whole when that version is not kept or the
 * delta would not be smaller than the tree (most nodes changed) or cannot say it (reordered).
 */
export function sessionTreeUpdate(db: Database, sessionId: string, since: string): SessionTreeUpdateDto {
  // Looked up first: making the tree may push `since` out of the kept versions.
  const base = keptOf(db)
    .get(sessionId)
    ?.find((kept) => kept.version === since);
  const tree = versionedSessionTree(db, sessionId);
  const versions = keptOf(db).get(sessionId) ?? [];
  const appended = base === undefined || versions.at(-1)?.nodes !== tree.nodes ? null : appendedSince(versions, base);
  const diff =
    base === undefined
      ? null
      : base.nodes === tree.nodes
        ? { removed: [], changed: [], added: [] }
        : appended !== null
          ? { removed: [], changed: [], added: [...appended] }
          : diffTreeNodes(base.nodes, tree.nodes);
  if (
    diff === null ||
    (diff.removed.length + diff.changed.length + diff.added.length) * 2 > tree.nodes.length
  )
    return { kind: "full", ...tree };
  return {
    kind: "delta",
    sessionId,
    since,
    version: tree.version,
    ...diff,
    viewLeafId: tree.viewLeafId,
    fileLeafId: tree.fileLeafId,
    problems: tree.problems,
    history: tree.history,
  };
}
