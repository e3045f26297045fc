/**
 * session:tree as it was made before the tree-open change (every entry read with all row
 * columns and parsed whole, its snippet flattened from the joined text with a RegExp, the
 * structural index read apart and built by the old tree index, tree-index-reference.ts): the
 * reference the tests compare the route with, and the baseline of bench/tree-open.bench.ts. Its
 * snippets are the old wire's (200 characters, "…" when cut); referenceOnTheWire gives the
 * route's form.
 */
import { type SessionProblem, type SessionTreeDto, TREE_SNIPPET_CHARS, type TreeNodeDto } from "../../core/api/dto.ts";
import { entryKind, entryText } from "../../core/session/describe.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { cutForDisplay } from "../../core/text/display-cut.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import { entrySendsMessage } from "../../core/session/llm-view.ts";
import type { Database } from "../../main/store/open.ts";
import type { TreeIndex } from "../../core/session/tree.ts";
import { entryJsonByPk, forEachEntryRow, listEntryShapes } from "../../main/store/repos/entries.ts";
import { archivedEntryIds } from "../../main/library/edits.ts";
import { fileProblems } from "../../main/library/import-state.ts";
import {
  editHistory,
  effectiveViewLeaf,
  loadMalformedLines,
  requireSession,
} from "../../main/library/load.ts";
import { buildTreeIndexReference } from "./tree-index-reference.ts";

type Loose = Record<string, unknown>;

/** A node as the old route made it: a 200-character snippet ending in "…" when cut, `hasText` on every assistant. */
export type ReferenceNode = Omit<TreeNodeDto, "cut" | "hasText"> & { hasText?: boolean };
export type ReferenceTree = Omit<SessionTreeDto, "nodes"> & { nodes: ReferenceNode[] };

/**
 * A message entry's JSON longer than this is read with parseLean for its node: its long strings
 * (a tool output of megabytes) only as far as the node's one-line snippet needs.
 */
const LEAN_NODE_CHARS = 64 * 1024;

/** The canvas shows a summary's beginning on hover; the LLM view shows all of it. */
const TREE_SUMMARY_CHARS = 2000;

/** The text on one line (whitespace runs folded), cut to `width` with "…": the whole text folded. */
function flatten(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, Math.max(0, width - 1))}…` : flat;
}

/** The structural index as it was read: the shapes alone, label entries parsed, the rest stubs. */
function structuralIndex(db: Database, sid: number): TreeIndex {
  const shapes = listEntryShapes(db, sid);
  const labels = entryJsonByPk(
    db,
    shapes.filter((shape) => shape[4] === "label").map((shape) => shape[0]),
  );
  let next = 0;
  const entries = shapes.map(([, , id, parentId, type]): SessionEntry => {
    if (type === "label") return JSON.parse(labels[next++] as string) as SessionEntry;
    const stub: Record<string, unknown> = { type, parentId, timestamp: "" };
    if (id !== null) stub.id = id;
    return stub as SessionEntry;
  });
  return buildTreeIndexReference(entries);
}

function setSummary(node: ReferenceNode, summary: string): void {
  const cut = cutForDisplay(summary, TREE_SUMMARY_CHARS);
  node.summary = cut.shown;
  if (cut.hiddenChars > 0) node.summaryChars = summary.length;
}

function nodeOf(
  entry: SessionEntry,
  line: number,
  tokens: number,
  parentId: string | null,
  label: string | undefined,
): ReferenceNode {
  const node: ReferenceNode = {
    id: entry.id,
    parentId,
    line,
    type: entry.type,
    kind: entryKind(entry),
    text: flatten(entryText(entry), 200),
    tokens,
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
  };
  if (label) node.label = label;
  if (entry.type !== "compaction" && !entrySendsMessage(entry)) node.noMessage = true;
  const e = entry as SessionEntry & Loose;
  if (entry.type === "compaction") {
    if (typeof e.tokensBefore === "number") node.tokensBefore = e.tokensBefore;
    if (typeof e.firstKeptEntryId === "string") node.firstKeptEntryId = e.firstKeptEntryId;
    if (typeof e.summary === "string") setSummary(node, e.summary);
  }
  if (entry.type === "branch_summary") {
    if (typeof e.summary === "string") setSummary(node, e.summary);
    if (typeof e.fromId === "string") node.fromId = e.fromId;
  }
  const message = entry.type === "message" ? (e.message as Loose | undefined) : undefined;
  if (message?.role === "assistant") {
    if (typeof message.stopReason === "string") node.stopReason = message.stopReason;
    node.hasText =
      Array.isArray(message.content) && message.content.some((b) => (b as Loose)?.type === "text");
  }
  if (message?.role === "toolResult") {
    if (typeof message.toolName === "string") node.toolName = message.toolName;
    if (typeof message.prunedAt === "number") node.pruned = true;
  }
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

/** `leanFromChars`: the JSON length from which a message is read lean (tests lower it). */
export function loadSessionTreeReference(
  db: Database,
  sessionId: string,
  options: { leanFromChars?: number } = {},
): ReferenceTree {
  const leanFrom = options.leanFromChars ?? LEAN_NODE_CHARS;
  // Only what the canvas needs: not the session detail (its labels and malformed lines go unused here).
  const row = requireSession(db, sessionId);
  // Links, repairs and labels from the structural columns; each entry is parsed only while its
  // node is made, so a 100k-entry session is never held parsed all at once.
  const index = structuralIndex(db, row.sid);
  const archived = archivedEntryIds(db, sessionId, index);
  const nodes: ReferenceNode[] = [];
  const seen = new Set<string>();
  forEachEntryRow(db, row.sid, (stored, at) => {
    const id = stored.id;
    // Entries without an id cannot be nodes; a later duplicate id wins, as in every walk.
    if (id === null || index.byId.get(id) !== index.entries[at] || seen.has(id)) return;
    seen.add(id);
    const entry = entryForNode(stored.type, stored.json, leanFrom);
    const node = nodeOf(entry, stored.seq, stored.tokens, index.parentOf(id), index.labels.get(id));
    if (archived.has(id)) node.archived = true;
    nodes.push(node);
  });
  return {
    sessionId,
    nodes,
    viewLeafId: effectiveViewLeaf(row),
    fileLeafId: row.file_leaf_id,
    // Malformed lines too: the app lists every problem of the file.
    problems: fileProblems(
      loadMalformedLines(db, sessionId),
      JSON.parse(row.problems_json) as SessionProblem[],
    ),
    history: editHistory(db, row.sid),
  };
}

/**
 * The old route's tree as the route sends it now: each snippet is the first TREE_SNIPPET_CHARS
 * characters of the folded text, with `cut: true` instead of a "…" when the text goes on (the old
 * snippet holds them: 199 folded characters and "…" when cut, else the whole folded text, and it
 * is longer than TREE_SNIPPET_CHARS exactly when the folded text is); `hasText` only when false.
 */
export function referenceOnTheWire(tree: ReferenceTree): SessionTreeDto {
  return {
    ...tree,
    nodes: tree.nodes.map((node) => {
      const { text, hasText, ...rest } = node;
      const wire: TreeNodeDto = { ...rest, text: text.slice(0, TREE_SNIPPET_CHARS) };
      if (hasText === false) wire.hasText = false;
      if (text.length > TREE_SNIPPET_CHARS) wire.cut = true;
      return wire;
    }),
  };
}

/** loadSessionTreeReference in the route's wire form (referenceOnTheWire). */
export function loadSessionTreeReferenceWire(
  db: Database,
  sessionId: string,
  options: { leanFromChars?: number } = {},
): SessionTreeDto {
  return referenceOnTheWire(loadSessionTreeReference(db, sessionId, options));
}
