/**
 * Versions of session trees' node lists, kept in memory for the sessions whose tree was made
 * last, so session:tree-update can answer only what changed since the version a page has. Every
 * answer is diffed against a freshly made tree (loadSessionTree): a delta is exact by
 * construction, and anything not kept (another process, evicted, never seen) gets the whole tree.
 */
import { randomUUID } from "node:crypto";
import type { SessionTreeDto, SessionTreeUpdateDto, TreeNodeDto } from "../../core/api/dto.ts";
import { diffTreeNodes, sameNode } from "../../core/api/tree-delta.ts";
import type { Database } from "../store/open.ts";
import { loadSessionTree } from "./tree-nodes.ts";

/** Sessions whose versions are kept, and versions kept per session (windows on older ones). */
export const KEPT_SESSIONS = 2;
export const KEPT_VERSIONS = 4;

interface Kept {
  version: string;
  nodes: readonly TreeNodeDto[];
}

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
 */
export function versionedSessionTree(db: Database, sessionId: string): SessionTreeDto & { version: string } {
  const tree = loadSessionTree(db, sessionId);
  const sessions = keptOf(db);
  const versions = sessions.get(sessionId) ?? [];
  const newest = versions.at(-1);
  let same = false;
  if (newest) {
    const byId = new Map(newest.nodes.map((node) => [node.id, node]));
    same = tree.nodes.length === newest.nodes.length;
    tree.nodes.forEach((node, index) => {
      const old = byId.get(node.id);
      if (old !== undefined && sameNode(old, node)) tree.nodes[index] = old;
      if (tree.nodes[index] !== newest.nodes[index]) same = false;
    });
  }
  let version: string;
  if (newest && same) {
    version = newest.version;
  } else {
    version = `${processTag}.${++made}`;
    versions.push({ version, nodes: tree.nodes });
    while (versions.length > KEPT_VERSIONS) versions.shift();
  }
  // Most recently asked last; the oldest session beyond the limit is dropped.
  sessions.delete(sessionId);
  sessions.set(sessionId, versions);
  while (sessions.size > KEPT_SESSIONS) sessions.delete(sessions.keys().next().value as string);
  return { ...tree, version };
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
  const diff =
    base === undefined
      ? null
      : base.nodes === tree.nodes
        ? { removed: [], changed: [], added: [] }
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
