/**
 * Data shapes that cross the API edge (IPC, HTTP/WebSocket, CLI): plain JSON, no classes.
 * Everything the renderer knows about sessions arrives in one of these.
 */
import type { AgentMessage, LlmMessage, SessionEntry, SessionHeader } from "../session/entries.ts";
import type { AddedResult, RequestChange, RequestTargetInfo } from "../session/request-messages.ts";
import type { PlanSettings } from "../compaction/plan-settings.ts";
import type { SummaryCutOff } from "../compaction/types.ts";
import type { MessageTextHole } from "../text/text-hole.ts";

/** Expected failures travel as data (DESIGN §3). */
export type ApiErrorCode =
  | "not_found"
  | "invalid_input"
  | "not_a_session"
  | "io_error"
  | "conflict"
  | "unsupported"
  | "cancelled"
  | "model_error"
  /** An export into the folder of a session file the agent is still writing (confirm to go on). */
  | "live_source"
  /** A compaction:run naming the plan its window showed, which the session and settings no longer give: nothing ran. */
  | "stale_plan"
  /** The answer (or a text it needs) is longer than one JavaScript string holds (~512 MB): ask for less. */
  | "too_large"
  | "internal";

export interface ApiError {
  code: ApiErrorCode;
  message: string;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export type Dialect = "pi" | "omp";

/** One row of the library list (SPEC §10.3 plus Canopy's own figures). */
export interface SessionSummary {
  id: string;
  title: string | null;
  firstMessage: string;
  cwd: string;
  created: string;
  /** Source file's modification time (ISO), or the import time when there is no file. */
  modified: string;
  sourcePath: string | null;
  dialect: Dialect;
  originalVersion: number;
  entryCount: number;
  messageCount: number;
  compactionCount: number;
  branchSummaryCount: number;
  malformedCount: number;
  problemCount: number;
  fileSize: number;
  viewLeafId: string | null;
  fileLeafId: string | null;
  isDemo: boolean;
  /**
   * What is wrong with the session's file as it is now (absent: nothing): "gone" (moved or
   * deleted), "not_a_session" (there, but no longer a session file), or "kept" (gone, and the user
   * chose to keep the library's copy as the only one: library:keep-copy). Only in `library:list`.
   */
  fileState?: "gone" | "not_a_session" | "kept";
  /** When the session was deleted from the library (only in `library:list` with `deleted`). */
  deletedAt?: string;
}

/** A problem found while reading or validating a session (D2, D3). */
export interface SessionProblem {
  kind:
    | "malformed_line"
    | "duplicate_id"
    | "cycle"
    | "orphan"
    /** A parentId that is neither a string nor null (a number, an object, or none at all). */
    | "invalid_parent"
    | "missing_id"
    | "unknown_type"
    /** A `message` entry whose role is none of the agent's (or that has none): never sent to the model. */
    | "unknown_role"
    | "not_a_session"
    | "file_rewritten"
    /** The session's file is no longer where it was imported from (moved away or deleted). */
    | "file_missing";
  message: string;
  line?: number;
  entryId?: string;
}

export interface ImportedFileReport {
  path: string;
  sessionId: string | null;
  status: "imported" | "updated" | "unchanged" | "skipped" | "failed";
  entriesAdded: number;
  malformedLines: number;
  problems: SessionProblem[];
  /** Why a file was skipped or failed (or that a deleted session was restored), in one line. */
  reason?: string;
}

export interface ImportReport {
  files: ImportedFileReport[];
  imported: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
  entriesAdded: number;
  bytesRead: number;
  durationMs: number;
  /** The import was cancelled: `files` are those it handled; files after them were not read. */
  cancelled: boolean;
  /** The file or folders imported (the app's reports; its file list is shown relative to them). */
  roots?: string[];
}

export interface StoredEntry {
  entry: SessionEntry;
  /** 1-based line in the source file (or after it, for entries Canopy added). */
  line: number;
  /** Heuristic token estimate of the message the entry produces (0 for metadata). */
  tokens: number;
  /** session:entries only: the entry is in an archived branch (hidden from the canvas by default). */
  archived?: true;
}

export interface MalformedLineDto {
  line: number;
  raw: string;
  error: string;
}

/** A whole session as the renderer and CLI see it. */
export interface SessionDetail {
  summary: SessionSummary;
  header: SessionHeader;
  entries: StoredEntry[];
  malformed: MalformedLineDto[];
  problems: SessionProblem[];
  labels: Record<string, string>;
  /** What undo and redo of Canopy's own edits would do next. */
  history: EditHistoryDto;
}

export interface ContextView {
  sessionId: string;
  /** The leaf the view was built for (null: empty context). */
  leafId: string | null;
  /** The thinking level in effect at the leaf (SPEC §3.2; "off" when none is set on the path)… */
  thinkingLevel: string;
  /** … and whether the path sets it: without, the agent uses its configured default level. */
  thinkingLevelOnPath: boolean;
  /** omp's role → "provider/modelId" map from the path (SPEC §3.2). */
  models: Record<string, string>;
  /**
   * The model in effect at the leaf, "provider/modelId" (the last model_change of the default
   * role or assistant reply, both dialects); null when the path names none: the agent uses its
   * configured default model.
   */
  model: string | null;
  /** What the agent holds in memory (SPEC §3.1; absent when asked without: `agentMessages: false`) … */
  agentMessages?: AgentMessage[];
  /**
   * … and exactly what the provider receives (SPEC §3.4, D4); with `messagesFrom`, only those
   * from that index on (mergeContextAnswer puts the whole list back together).
   */
  messages: LlmMessage[];
  /**
   * Asked with `since`: the first `messagesFrom` messages are those of the answer named by
   * `since`, and left out of `messages`; absent when none are (every message is sent).
   */
  messagesFrom?: number;
  /** Asked with `since`: this answer's name, for the next call's `since` (absent: none kept). */
  answerId?: string;
  /**
   * Asked with `holeLongTexts`: the texts of `messages` sent with their middle left out (very long
   * ones only; core/text/text-hole.ts). Token figures and `request` are of the whole texts.
   * `messageIndex` counts every message, those left out by `messagesFrom` too.
   */
  textHoles?: MessageTextHole[];
  /**
   * Image blob refs left in `messages` (oh-my-pi's `blob:sha256:…`, SPEC §1.7) → the bytes of
   * the blob in the session's agent folder, null when it has none; absent when there are none.
   */
  blobImages?: Record<string, number | null>;
  /** For each LLM message, the id of the entry it came from (same order as `messages`). */
  messageEntryIds: (string | null)[];
  /** For each LLM message, its heuristic token estimate. */
  messageTokens: number[];
  /**
   * For each LLM message, the role of the agent message it came from: "user", "assistant",
   * "toolResult", or one sent as a user message ("compactionSummary", "branchSummary",
   * "bashExecution", "pythonExecution", "custom", "hookMessage", "fileMention").
   */
  messageKinds: string[];
  estimatedTokens: number;
  /** Context tokens of the last assistant usage on the path, when known (SPEC §4.2). */
  measuredTokens: number | null;
  /**
   * True when that usage comes from a reply older than the compaction in effect: stale until the
   * next reply (SPEC §4.4). Absent otherwise.
   */
  measuredBeforeCompaction?: true;
  /** The compaction in effect on the path, if any. */
  compactionId: string | null;
  /** Its first kept entry, null when that is not on the path (nothing before it is kept). */
  firstKeptEntryId: string | null;
  /** What the request to the model does to `messages` (SPEC §3.6 steps 4–6); `messages` stay as built. */
  request: RequestView;
}

/**
 * The request-level step on an LLM view, for annotations: computed by core's planRequest for the
 * configured model (Canopy's OpenAI-compatible request), or without one for the session's own
 * model (the agent's request).
 */
export interface RequestView {
  /** null: no model configured and no reply on the path (only images.blockImages can apply). */
  target: RequestTargetInfo | null;
  blockImages: boolean;
  /** Parallel to `messages`: what the request changes on each (empty: sent as it is). */
  changes: RequestChange[][];
  /** Tool results only the request has (each before the view message at `before`). */
  added: AddedResult[];
  /** How many messages the request carries (before the provider's wire format). */
  messageCount: number;
}

export interface SearchHit {
  sessionId: string;
  entryId: string;
  sessionTitle: string | null;
  /** The session's first user message (what names an untitled session), if it has one. */
  sessionFirstMessage: string | null;
  role: string | null;
  snippet: string;
}

/** How far the full-text index is while it catches up with imported entries. */
export interface SearchIndexingDto {
  /** Entries of the library whose text is indexed. */
  indexed: number;
  /** Entries of the library. */
  total: number;
}

export interface SearchResultDto {
  hits: SearchHit[];
  /**
   * Non-null while entries still wait to be indexed (right after a large import): the hits
   * cover only what is indexed so far.
   */
  indexing: SearchIndexingDto | null;
}

export interface ExportResult {
  /** The JSONL text (when no output path was given) … */
  text?: string;
  /** … or where it was written. */
  path?: string;
  lines: number;
  /** Id of the invisible resume-marker entry appended for a chosen leaf (D14), if any. */
  resumeEntryId?: string;
  /** Entries re-imported from the source file first (the agent had written more since). */
  reimportedEntries?: number;
}

export interface LibraryFolders {
  folders: string[];
}

/** library:set-folders: the new folders and, from a window, the folders it showed. */
export interface SetFoldersInput extends LibraryFolders {
  /** Refused ("conflict") when the folders in effect are others by now: changed elsewhere since. */
  expected?: string[];
}

/** The agent session folders in effect; `defaults`: the pi and oh-my-pi ones (none set). */
export interface ConfiguredFolders extends LibraryFolders {
  defaults: boolean;
  /** Those of `folders` that do not exist (yet). */
  missing: string[];
}

// ── compaction, navigation, pruning (SPEC §5–§9) ────────────────────────────────

/** The plan of a compaction, shown before anything runs (no model call). */
export interface CompactionPlanDto {
  sessionId: string;
  leafId: string;
  firstKeptEntryId: string;
  isSplitTurn: boolean;
  turnStartEntryId: string | null;
  /** D10: measured when known, else estimated. */
  tokensBefore: number;
  tokensBeforeMeasured: number | null;
  tokensBeforeEstimated: number;
  /** After adaptation from measured usage (§5.1 step 5). */
  keepRecentTokens: number;
  /** What the plan was asked to keep: the keepRecentTokens given, else the setting then (before adaptation). */
  requestedKeepRecentTokens: number;
  summarizeEntryIds: string[];
  turnPrefixEntryIds: string[];
  keptEntryIds: string[];
  previousSummary: boolean;
  previousCompactionId: string | null;
  readFiles: string[];
  modifiedFiles: string[];
  /** Estimated tokens of the kept messages (what stays verbatim). */
  keptTokens: number;
  /** Upper bound of the new summary's size (the summary call's maxTokens). */
  maxSummaryTokens: number;
  /** Which summarizer would run, e.g. "Built-in offline summarizer", "<model> at <url>", "remote: <url> (…)". */
  summarizer: string;
  /** Things the user should know before running it (e.g. nothing new to summarize). */
  notes: string[];
  /** The settings it was made with: a window re-plans when one of these changes, not on any setting. */
  plannedWith: PlanSettings;
}

/** The plan a window showed, named by compaction:run: what it keeps from, at which leaf. */
export interface ShownPlan {
  leafId: string;
  firstKeptEntryId: string;
}

export interface CompactionRunResult {
  sessionId: string;
  /** Id of the appended compaction entry (D11). */
  entryId: string;
  summary: string;
  shortSummary: string | null;
  firstKeptEntryId: string;
  tokensBefore: number;
  fromExtension: boolean;
  /** The view leaf after the run: the new compaction entry (unless the user moved it meanwhile). */
  viewLeafId: string | null;
  /** Present when a summary call's reply stopped at its output limit (the summary keeps what came). */
  cutOff?: SummaryCutOff[];
}

export interface NavigationPreviewDto {
  sessionId: string;
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  /** Entries a branch summary would cover (the abandoned path to the common ancestor). */
  entriesToSummarize: string[];
  /**
   * Whether any of those entries gives a branch summary a message (SPEC §8.2, core's rule on the
   * stored entries): false when they are only tool results and bookkeeping, or none.
   */
  summaryHasMessages: boolean;
  /** Where the view leaf goes (a user/custom message target → its parent). */
  newLeafId: string | null;
  editorText: string | null;
}

export interface NavigationResultDto {
  cancelled: boolean;
  aborted: boolean;
  newLeafId: string | null;
  oldLeafId: string | null;
  editorText: string | null;
  summaryEntryId: string | null;
  fromExtension: boolean;
  /** Present when the branch summary's reply stopped at its output limit (the summary keeps what came). */
  cutOff?: SummaryCutOff[];
}

export interface PrunePlanDto {
  sessionId: string;
  leafId: string | null;
  /** How many tool outputs pruning would replace (the candidates). */
  candidateCount: number;
  /** The candidates by tool: how many of each, most first (ties: the tool met first on the path). */
  tools: { toolName: string; count: number }[];
  /**
   * Each candidate (path order), only when asked for (`listCandidates`, as `prune --dry-run` lists
   * them): on a long session they are tens of thousands (~2 MB), and the plan panel shows counts.
   */
  candidates?: { entryId: string; toolName: string; tokens: number }[];
  /** What pruning the candidates would save (0 only when there are none). */
  tokensSaved: number;
  willPrune: boolean;
  /** Tool outputs on the path pruned already (restore puts them back). */
  alreadyPruned: number;
  /** Why nothing would be pruned, when nothing would. */
  reason: string | null;
}

/**
 * What pruning:apply or pruning:restore did, in counts: the entries' ids (tens of thousands on a
 * long session, ~430 KB) were read by nobody; `prune --dry-run --json` lists the candidates.
 */
export interface PruneResultDto {
  sessionId: string;
  /** Tool outputs pruned (apply) or put back (restore). */
  prunedCount: number;
  /** Tokens the pruning saved (restore: 0). */
  tokensSaved: number;
}

export interface PromptTemplateDto {
  /** The template's name; for an "unused" file, its file name. */
  name: string;
  /** "unused": a file in the override folder named after no template (it overrides nothing). */
  source: "default" | "override" | "unused";
  path: string;
  warning: string | null;
}

export interface HooksDto {
  handlers: { extension: string; event: string }[];
  errors: { extension: string; event: string; message: string }[];
  folder: string;
}

export type ConnectionTestDto =
  | { ok: true; model: string; latencyMs: number; summarizer: string }
  | { ok: false; message: string; summarizer: string };

// ── the session tree for the canvas ─────────────────────────────────────────────

/**
 * Characters of an entry's text a tree node carries. Two 12px lines of a canvas node hold about
 * 70 characters of prose and 105 of narrow ones (il.,;: — measured in Chromium); the accessible
 * name reads 90. Anything longer (editing, the composer) comes from context:get.
 */
export const TREE_SNIPPET_CHARS = 120;

/** One entry as the tree canvas needs it: structure, kind, a snippet, and markers. */
export interface TreeNodeDto {
  id: string;
  /** The parent every walk uses (the tree is repaired: no cycles, orphans are roots). */
  parentId: string | null;
  line: number;
  type: string;
  /** Message role for `message` entries, else the entry type. */
  kind: string;
  /**
   * The beginning of the entry's text, whitespace folded: at most TREE_SNIPPET_CHARS characters
   * (what two lines of a canvas node can hold), without an ellipsis …
   */
  text: string;
  /** … and true when the text goes on past them (readers add the "…" where they show it). */
  cut?: boolean;
  tokens: number;
  timestamp: string;
  label?: string;
  /** Compactions: what the summary replaced and where the kept part starts. */
  tokensBefore?: number;
  firstKeptEntryId?: string;
  /** Compactions and branch summaries: the summary, cut to its first 2,000 characters for display … */
  summary?: string;
  /** … and its full length when it was cut (the LLM view and context:get have all of it). */
  summaryChars?: number;
  /** Assistant messages: how the reply ended … */
  stopReason?: string;
  /** … and `false` when it has no text block (SPEC §10.4); absent when it has one (and on other entries). */
  hasText?: false;
  toolName?: string;
  pruned?: boolean;
  /** In an archived subtree (hidden from the canvas by default). */
  archived?: boolean;
  /** Branch summaries: the agents' `fromId` (the entry the summary is attached to, or "root"). */
  fromId?: string;
  /**
   * Never sent to the model as a message of its own (metadata, unknown types, `!!` commands,
   * empty branch summaries): dimmed at every leaf. Compactions are left to the leaf's path.
   */
  noMessage?: boolean;
}

export interface SessionTreeDto {
  sessionId: string;
  nodes: TreeNodeDto[];
  viewLeafId: string | null;
  fileLeafId: string | null;
  /** Everything wrong in the session's file, malformed lines included, in file order. */
  problems: SessionProblem[];
  /** What undo and redo of Canopy's edits would do next. */
  history: EditHistoryDto;
  /**
   * The version of `nodes` (an opaque token, the same while the node list is the same): a
   * refresh asks session:tree-update `since` it and gets only what changed. Absent: unknown.
   */
  version?: string;
}

/**
 * session:tree-update's delta: the node list of version `since` with `removed` taken out,
 * `changed` put in place of the nodes with their ids (order kept) and `added` at the end, in
 * order, is the node list of `version`; the tree-wide facts are the current ones.
 */
export interface SessionTreeDeltaDto {
  kind: "delta";
  sessionId: string;
  since: string;
  version: string;
  removed: string[];
  changed: TreeNodeDto[];
  added: TreeNodeDto[];
  viewLeafId: string | null;
  fileLeafId: string | null;
  problems: SessionProblem[];
  history: EditHistoryDto;
}

/** session:tree-update's answer: the whole tree when no exact delta could be made, else the delta. */
export type SessionTreeUpdateDto = ({ kind: "full" } & SessionTreeDto) | SessionTreeDeltaDto;

// ── edits (issue 6) ─────────────────────────────────────────────────────────────

/** Canopy's undoable operations on a session (its undo/redo stack, migration 2). */
export type EditOperation =
  | "edit-message"
  | "fork"
  | "undo-summary"
  | "rename"
  | "label"
  | "archive"
  | "unarchive"
  | "delete"
  | "restore";

/** What undo and redo would revert / re-apply next (null: nothing). */
export interface EditHistoryDto {
  undo: EditOperation | null;
  redo: EditOperation | null;
}

/** What an edit, undo or redo did. */
export interface EditResultDto {
  sessionId: string;
  /**
   * The operation applied or reverted (e.g. "edit-message", "fork"); null: nothing to undo/redo,
   * or an edit that would change nothing (the same title or label again), so none was recorded.
   */
  operation: EditOperation | null;
  /** The session's view leaf afterwards. */
  viewLeafId: string | null;
  /** The entry the edit appended (edit-message, label). */
  entryId?: string;
  /** The new session (fork). */
  forkSessionId?: string;
  /**
   * One line to show next to the result when undo or redo did more than its name says (an edit
   * with a reply below it is hidden as an archived branch instead of removed, and shown again).
   */
  note?: string;
  /** The session's undo/redo state afterwards. */
  history: EditHistoryDto;
}
