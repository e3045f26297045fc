/**
 * The session tree for the canvas: every entry reduced to what a node shows (kind, snippet,
 * tokens, label, compaction markers, whether it is ever sent as a message), with the repaired
 * parent links of the structural tree index. What a node takes from its entry's JSON is kept
 * in memory by entry (tree-node-cache.ts): a reload reads and parses only entries it has not seen.
 */
import { type SessionTreeDto, TREE_SNIPPET_CHARS, type TreeNodeDto } from "../../core/api/dto.ts";
import { entryKind, entrySnippetCut } from "../../core/session/describe.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { cutForDisplay } from "../../core/text/display-cut.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import { entrySendsMessage } from "../../core/session/llm-view.ts";
import type { Database } from "../store/open.ts";
import { archivedRoots } from "../store/repos/edits.ts";
import {
  type EntryNodeSource,
  forEachTreeRowSource,
  listEntryTreeRows,
  rewrittenEntries,
} from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { archivedEntryIds } from "./edits.ts";
import { editHistory, effectiveViewLeaf, requireSession } from "./load.ts";
import { sessionFileProblems } from "./session-file-problems.ts";
import { structuralIndex } from "./structure-index.ts";
import { sessionFacts } from "./tree-node-cache.ts";

type Loose = Record<string, unknown>;

/**
 * A message entry's JSON longer than this is read with parseLean for its node: its long strings
 * (a tool output of megabytes) only as far as the node's one-line snippet needs.
 */
export const LEAN_NODE_CHARS = 64 * 1024;

/** The canvas shows a summary's beginning on hover; the LLM view shows all of it. */
export const TREE_SUMMARY_CHARS = 2000;

/** Node fields that only some entries have (compaction markers, summaries, roles' details). */
type NodeMarkers = Pick<
  TreeNodeDto,
  | "noMessage"
  | "tokensBefore"
  | "firstKeptEntryId"
  | "summary"
  | "summaryChars"
  | "fromId"
  | "stopReason"
  | "hasText"
  | "toolName"
  | "pruned"
>;

/** What a node takes from its entry's JSON: all but its line, tokens, parent, label and archiving. */
interface NodeFacts {
  id: string;
  type: string;
  kind: string;
  text: string;
  /** The text goes on past TREE_SNIPPET_CHARS. */
  cut: boolean;
  timestamp: string;
  /** null: none of the markers. */
  markers: NodeMarkers | null;
}

function setSummary(markers: NodeMarkers, summary: string): void {
  const cut = cutForDisplay(summary, TREE_SUMMARY_CHARS);
  markers.summary = cut.shown;
  if (cut.hiddenChars > 0) markers.summaryChars = summary.length;
}

function factsOf(entry: SessionEntry): NodeFacts {
  const markers: NodeMarkers = {};
  if (entry.type !== "compaction" && !entrySendsMessage(entry)) markers.noMessage = true;
  const e = entry as SessionEntry & Loose;
  if (entry.type === "compaction") {
    if (typeof e.tokensBefore === "number") markers.tokensBefore = e.tokensBefore;
    if (typeof e.firstKeptEntryId === "string") markers.firstKeptEntryId = e.firstKeptEntryId;
    if (typeof e.summary === "string") setSummary(markers, e.summary);
  }
  if (entry.type === "branch_summary") {
    if (typeof e.summary === "string") setSummary(markers, e.summary);
    if (typeof e.fromId === "string") markers.fromId = e.fromId;
  }
  const message = entry.type === "message" ? (e.message as Loose | undefined) : undefined;
  if (message?.role === "assistant") {
    if (typeof message.stopReason === "string") markers.stopReason = message.stopReason;
    const hasText =
      Array.isArray(message.content) && message.content.some((b) => (b as Loose)?.type === "text");
    if (!hasText) markers.hasText = false;
  }
  if (message?.role === "toolResult") {
    if (typeof message.toolName === "string") markers.toolName = message.toolName;
    if (typeof message.prunedAt === "number") markers.pruned = true;
  }
  const snippet = entrySnippetCut(entry, TREE_SNIPPET_CHARS);
  return {
    id: entry.id,
    type: entry.type,
    kind: entryKind(entry),
    text: snippet.text,
    cut: snippet.cut,
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
    markers: Object.keys(markers).length > 0 ? markers : null,
  };
}

/** A fresh node (callers may change it) from its entry's facts and its place in the session. */
function nodeOf(
  facts: NodeFacts,
  line: number,
  tokens: number,
  parentId: string | null,
  label: string | undefined,
): TreeNodeDto {
  const node: TreeNodeDto = {
    id: facts.id,
    parentId,
    line,
    type: facts.type,
    kind: facts.kind,
    text: facts.text,
    tokens,
    timestamp: facts.timestamp,
  };
  if (facts.cut) node.cut = true;
  if (label) node.label = label;
  if (facts.markers) Object.assign(node, facts.markers);
  return node;
}

/**
 * The entry a node is made from. A large message's long strings come cut (parseLean): its node
 * reads only their beginning (the snippet) and short fields (role, tool name, stop reason).
 * Compactions and branch summaries are parsed whole: their node carries the summary's length.
 */
function entryForNode(type: string, json: string, leanFrom: number): SessionEntry {
  const lean = type === "message" && json.length > leanFrom;
  return (lean ? parseLean(json) : JSON.parse(json)) as SessionEntry;
}

/**
 * What extending a session's tree by its appended entries needs to know of the tree as made
 * (tree-grow.ts): the rows it was made from, its nodes by id, the labels, the parent ids its
 * orphans wait for, the archived roots, and the rewritten entries' JSON and tokens.
 */
export interface TreeGrowth {
  sid: number;
  /** Entry rows of the session read (nodes or not), the last one's seq and the highest pk. */
  rows: number;
  maxSeq: number;
  maxPk: number;
  /** The ids of the nodes: the structural index's, then those appended. */
  ids: ReadonlyMap<string, unknown>;
  appendedIds: Set<string>;
  /** The ids of the archived nodes (grows with the nodes appended under them). */
  archived: Set<string>;
  labels: ReadonlyMap<string, string>;
  /** Parent ids named by nodes made roots because no entry has them (an orphan's missing parent). */
  wanted: Set<string>;
  /** The archived roots (archived_entries), sorted and joined. */
  archivedRoots: string;
  /** pk → token estimate and JSON of every rewritten entry (entry_json). */
  rewritten: Map<number, { tokens: number; json: string }>;
}

/** The session's archived roots as TreeGrowth keeps them. */
export function archivedRootsKey(db: Database, sid: number): string {
  return JSON.stringify([...archivedRoots(db, sid)].sort());
}

/** The parts of the tree answer that come from the session row, its problems and undo stack. */
export function treeFrame(
  db: Database,
  sessionId: string,
  row: SessionRow,
): Omit<SessionTreeDto, "sessionId" | "nodes"> {
  return {
    viewLeafId: effectiveViewLeaf(row),
    fileLeafId: row.file_leaf_id,
    // Malformed lines too: the app lists every problem of the file.
    problems: sessionFileProblems(db, sessionId, row),
    history: editHistory(db, row.sid),
  };
}

/** The node made of an appended entry (tree-grow.ts): as the whole walk makes it. */
export function appendedNode(
  stored: EntryNodeSource,
  parentId: string | null,
  label: string | undefined,
  archived: boolean,
): TreeNodeDto {
  const facts = factsOf(entryForNode(stored.type, stored.json(), LEAN_NODE_CHARS));
  const node = nodeOf(facts, stored.seq, stored.tokens, parentId, label);
  if (archived) node.archived = true;
  return node;
}

/**
 * `leanFromChars`: the JSON length from which a message is read lean (tests lower it; such a
 * read neither takes nor keeps facts in the cache of tree-node-cache.ts).
 */
export function loadSessionTree(
  db: Database,
  sessionId: string,
  options: { leanFromChars?: number } = {},
): SessionTreeDto {
  return buildSessionTree(db, sessionId, options).tree;
}

/** loadSessionTree, with what tree-grow.ts needs to extend it (none for a lean test read). */
export function buildSessionTree(
  db: Database,
  sessionId: string,
  options: { leanFromChars?: number } = {},
): { tree: SessionTreeDto; growth: TreeGrowth | null } {
  const leanFrom = options.leanFromChars ?? LEAN_NODE_CHARS;
  // Only what the canvas needs: not the session detail (its labels and malformed lines go unused here).
  const row = requireSession(db, sessionId);
  // Links, repairs and labels from the structural columns of the rows the nodes are made of (one
  // read); each entry is parsed only while its node is made, so a 100k-entry session is never
  // held parsed all at once.
  const treeRows = listEntryTreeRows(db, row.sid);
  const index = structuralIndex(db, row.sid, treeRows);
  const archived = archivedEntryIds(db, sessionId, index);
  const cache = options.leanFromChars === undefined ? sessionFacts<NodeFacts>(db, row.sid) : null;
  const nodes: TreeNodeDto[] = [];
  let rows = 0;
  let maxSeq = Number.MIN_SAFE_INTEGER;
  let maxPk = 0;
  forEachTreeRowSource(db, treeRows, (stored, at) => {
    rows++;
    maxSeq = stored.seq;
    if (stored.pk > maxPk) maxPk = stored.pk;
    const id = stored.id;
    // Entries without an id cannot be nodes; a later duplicate id wins, as in every walk (the
    // index's entries are the rows in order, and byId holds the winning one of each id).
    if (id === null || index.byId.get(id) !== index.entries[at]) return;
    // A rewritten entry's JSON can change again: its facts are made anew each time.
    let facts = stored.rewritten ? undefined : cache?.get(stored.pk);
    if (facts === undefined) {
      facts = factsOf(entryForNode(stored.type, stored.json(), leanFrom));
      if (!stored.rewritten) cache?.keep(stored.pk, facts);
    }
    const node = nodeOf(facts, stored.seq, stored.tokens, index.parentOf(id), index.labels.get(id));
    if (archived.has(id)) node.archived = true;
    nodes.push(node);
  });
  cache?.done();
  const tree: SessionTreeDto = { sessionId, nodes, ...treeFrame(db, sessionId, row) };
  if (cache === null) return { tree, growth: null };
  // The index reports every node made a root for want of its parent (a stored parent_id is a string).
  const wanted = new Set<string>();
  for (const problem of index.problems) {
    if (problem.kind !== "orphan" || problem.entryId === undefined) continue;
    const raw = index.byId.get(problem.entryId)?.parentId as unknown;
    if (typeof raw === "string") wanted.add(raw);
  }
  const rewritten = new Map<number, { tokens: number; json: string }>();
  for (const r of rewrittenEntries(db, row.sid)) rewritten.set(r.pk, { tokens: r.tokens, json: r.json });
  const growth: TreeGrowth = {
    sid: row.sid,
    rows,
    maxSeq,
    maxPk,
    ids: index.byId,
    appendedIds: new Set(),
    archived,
    labels: index.labels,
    wanted,
    archivedRoots: archivedRootsKey(db, row.sid),
    rewritten,
  };
  return { tree, growth };
}
