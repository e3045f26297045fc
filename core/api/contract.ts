/**
 * THE contract between Canopy's main side and every client (renderer over IPC or HTTP/WS, CLI,
 * tests). Each request is `area:action` → input → output; each event `area:past-tense` → payload.
 * Handlers in main/api implement exactly this map; transports loop over CHANNELS.
 */
import type { Settings } from "../settings/schema.ts";
import type {
  CompactionPlanDto,
  CompactionRunResult,
  ConfiguredFolders,
  ConnectionTestDto,
  ContextView,
  EditResultDto,
  ExportResult,
  HooksDto,
  ImportReport,
  NavigationPreviewDto,
  NavigationResultDto,
  PromptTemplateDto,
  PrunePlanDto,
  PruneResultDto,
  SearchIndexingDto,
  SearchResultDto,
  SessionDetail,
  SessionSummary,
  SessionTreeDto,
  SessionTreeUpdateDto,
  SetFoldersInput,
  ShownPlan,
  StoredEntry,
} from "./dto.ts";
import type { AppCommand, ChatTurnResultDto, SecretsStatusDto } from "./dto-app.ts";
import type { JobEndedDto, JobHooksDto, ListedJobDto, RunningJobDto } from "./dto-jobs.ts";
import type { UsageTotals } from "../session/usage-totals.ts";
import type { SummaryCutOff } from "../compaction/types.ts";

export interface Requests {
  /** All sessions in the library, newest first (deleted: only the deleted ones, which restore brings back). */
  "library:list": { input: { deleted?: boolean }; output: SessionSummary[] };
  /**
   * Import one .jsonl file or a whole folder tree (re-import adds only new lines). A deleted
   * session stays deleted when its folder is imported; importing its very file restores it. */
  "library:import": { input: { path: string }; output: ImportReport };
  /** Import the configured agent session folders (default ~/.pi/agent/sessions, ~/.omp/agent/sessions). */
  "library:import-default-folders": { input: Record<string, never>; output: ImportReport };
  /**
   * Stops the running import once the file it is at is stored (what it stored stays), and the
   * imports waiting for it; their reports say `cancelled`. False when no import runs.
   */
  "library:cancel-import": { input: Record<string, never>; output: { cancelled: boolean } };
  /**
   * The session's file is gone (deleted or moved): keep the library's copy as the only one. Its
   * problems stop saying the file is gone and the list marks it "only copy" instead; nothing is
   * removed. Refused ("conflict") while the file is there.
   */
  "library:keep-copy": { input: { sessionId: string }; output: SessionSummary };
  /** The agent session folders Canopy scans. */
  "library:get-folders": { input: Record<string, never>; output: ConfiguredFolders };
  /** Replace the agent session folders Canopy scans and watches (none: back to the defaults); refused if not the `expected` ones now. */
  "library:set-folders": { input: SetFoldersInput; output: ConfiguredFolders };
  /**
   * Full-text search over message text of every session. Matches in the snippet are wrapped in
   * `highlight` (default "[" and "]"; the renderer passes private-use characters). Right after a
   * large import the app answers from what is indexed so far and says how far indexing is
   * (`indexing`); the CLI indexes first (job:progressed, SEARCH_INDEX_JOB_ID).
   */
  "library:search": {
    input: { query: string; limit?: number; highlight?: [string, string] };
    output: SearchResultDto;
  };
  /**
   * Deletes a session from the library (its file is never touched): gone from the list and
   * search, left alone by folder scans and the watcher; undo (edits:undo) or restore brings it
   * back with everything. An undoable operation like every edit. */
  "library:delete": { input: { sessionId: string }; output: EditResultDto };
  /** Brings a deleted session back (recorded as an operation: undo deletes it again). */
  "library:restore": { input: { sessionId: string }; output: EditResultDto };
  /** One session: header, entries, problems, labels, undo/redo state. */
  "session:get": { input: { sessionId: string }; output: SessionDetail };
  /**
   * Some entries of a session by id (the last entry with each id, as the tree has it), in the
   * order asked; ids the session does not have are left out, and one in an archived branch is
   * marked `archived`. What `canopy chat` prints after a turn: a few entries, without
   * session:get's whole session. */
  "session:entries": { input: { sessionId: string; entryIds: string[] }; output: StoredEntry[] };
  /** The session as tree nodes for the canvas (repaired parents, snippets, markers). */
  "session:tree": { input: { sessionId: string }; output: SessionTreeDto };
  /**
   * The session's usage statistics as the agents keep them (SPEC §2.1): tokens and cost summed over
   * every assistant message of the file, all branches (and task results' sub-agent usage). */
  "session:usage": { input: { sessionId: string }; output: UsageTotals };
  /**
   * A refresh of the tree the page has (`since`: its version): only the nodes removed, changed
   * and added since, with the tree-wide facts; the whole tree when that cannot be exact (a
   * version the main side no longer keeps, nodes reordered, most nodes changed). */
  "session:tree-update": { input: { sessionId: string; since: string }; output: SessionTreeUpdateDto };
  /** Move Canopy's view leaf (D14); never writes to the agent's file. */
  "session:set-view-leaf": { input: { sessionId: string; leafId: string | null }; output: SessionSummary };
  /**
   * Lossless JSONL export (withoutArchived: a pruned copy without archived subtrees); a rename
   * is written as the dialect expects. With leafId, a resume marker makes the agent resume there (D14).
   * A source file that changed since its import is re-imported first. outPath is refused when it
   * is any session's source file, and ("live_source") when it is in the folder of a source file
   * the agent is still writing, unless confirmLiveFolder. */
  "session:export": {
    input: {
      sessionId: string;
      /** null: resume before the first entry (an empty context); the marker is then a root. */
      leafId?: string | null;
      outPath?: string;
      withoutArchived?: boolean;
      /** Pruned tool outputs as they were before pruning (D9); default: the notice the agent expects. */
      originals?: boolean;
      confirmLiveFolder?: boolean;
    };
    output: ExportResult;
  };
  /**
   * Desktop app: asks with the system's save dialog where to export the session (its file name
   * suggested); null when the user cancels. The page then exports with that `outPath`, so the text
   * is written by main as it is read and never crosses to the page. Elsewhere: "unsupported". */
  "session:choose-export-path": { input: { sessionId: string }; output: { path: string | null } };
  /**
   * What the model sees at a leaf (default: the view leaf). `blobImages`: images oh-my-pi keeps in
   * its blob store (`blob:sha256:…`) as their base64, as the agent loads them (SPEC §1.7);
   * without it they stay refs (the page shows placeholders). `agentMessages: false` leaves the
   * agent's messages out of the answer (the page shows only the provider messages: a session
   * with a 20 MB text would otherwise send it twice). `holeLongTexts` sends very long texts
   * with their middle left out (`textHoles` says where and how much). `since` (the page, moving
   * through the tree): the answer gets an `answerId`, and given the `answerId` of an answer the
   * caller holds, the messages the two share at the start are left out (`messagesFrom`).
   */
  "context:get": {
    input: {
      sessionId: string;
      leafId?: string | null;
      blobImages?: boolean;
      agentMessages?: boolean;
      holeLongTexts?: boolean;
      since?: string | null;
    };
    output: ContextView;
  };

  /** The plan of a compaction at a leaf (default: the view leaf); no model call. */
  "compaction:preview": {
    input: { sessionId: string; leafId?: string; keepRecentTokens?: number };
    output: CompactionPlanDto;
  };
  /**
   * Runs a manual compaction (progress as job:progressed events); the view leaf moves to it. With
   * `shown` (the plan on screen), refused ("stale_plan", nothing run) when it would plan otherwise.
   */
  "compaction:run": {
    input: { sessionId: string; leafId?: string; customInstructions?: string; keepRecentTokens?: number; shown?: ShownPlan };
    output: CompactionRunResult;
  };
  /** Cancels the session's running compaction; nothing is appended. */
  "compaction:abort": { input: { sessionId: string }; output: { aborted: boolean } };
  /** What navigating to an entry would do: the abandoned entries and the new view leaf. */
  "navigation:preview": { input: { sessionId: string; targetId: string }; output: NavigationPreviewDto };
  /** Moves the view leaf, optionally summarizing the abandoned branch at the destination. */
  "navigation:navigate": {
    input: {
      sessionId: string;
      targetId: string;
      summarize?: boolean;
      customInstructions?: string;
      replacePrompt?: boolean;
    };
    output: NavigationResultDto;
  };
  /** Cancels the session's running branch summary; the session stays unchanged. */
  "navigation:abort": { input: { sessionId: string }; output: { aborted: boolean } };
  /**
   * The chat turns, manual compactions and branch summaries running now, whichever window started
   * them, with the text each streamed so far (a window that opens or reloads meanwhile shows them;
   * job:started / job:ended, chat:progressed and job:progressed tell the rest). */
  "job:list": { input: Record<string, never>; output: ListedJobDto[] };
  /**
   * Which tool outputs pruning would replace by a notice on the active path: how many of which
   * tools; each one too with `listCandidates`.
   */
  "pruning:preview": {
    input: { sessionId: string; leafId?: string; listCandidates?: boolean };
    output: PrunePlanDto;
  };
  /** Prunes them (the originals stay in the library). */
  "pruning:apply": { input: { sessionId: string; leafId?: string }; output: PruneResultDto };
  /** Puts every pruned tool output of the session back. */
  "pruning:restore": { input: { sessionId: string }; output: PruneResultDto };
  /** Edit a user/custom message as a new sibling branch; the view leaf moves to it. */
  "edits:edit-message": { input: { sessionId: string; entryId: string; text: string }; output: EditResultDto };
  /** A new library session holding the path root→entry (SPEC §2.6), parentSession = this one. */
  "edits:fork": { input: { sessionId: string; entryId: string }; output: EditResultDto };
  /** Moves the view leaf before a compaction or branch summary (the summary stays a branch). */
  "edits:undo-summary": { input: { sessionId: string; entryId: string }; output: EditResultDto };
  /** Renames the session in the library (written on export: pi session_info, omp header title). */
  "edits:rename": { input: { sessionId: string; title: string | null }; output: EditResultDto };
  /** Sets (null: clears) a label without moving the view leaf (D15). */
  "edits:label": { input: { sessionId: string; targetId: string; label: string | null }; output: EditResultDto };
  /** Archives the subtree below an entry; one holding the view leaf needs confirm: true. */
  "edits:archive": { input: { sessionId: string; entryId: string; confirm?: boolean }; output: EditResultDto };
  "edits:unarchive": { input: { sessionId: string; entryId: string }; output: EditResultDto };
  /** Reverts the session's last Canopy edit exactly (operation null: nothing to undo); on a deleted session, restores it. */
  "edits:undo": { input: { sessionId: string }; output: EditResultDto };
  /** Re-applies the last undone edit. */
  "edits:redo": { input: { sessionId: string }; output: EditResultDto };
  /** All settings with their current values. */
  "settings:get": { input: Record<string, never>; output: Settings };
  /**
   * Sets one dotted key (e.g. compaction.reserveTokens); validated. With `expected` (the value
   * the window showed), refused as a conflict when the key holds something else by now (another
   * window or the CLI changed it), so a stale form never overwrites that change.
   */
  "settings:set": { input: { key: string; value: unknown; expected?: unknown }; output: Settings };
  /** The prompt templates and which file is in effect for each. */
  "settings:prompts": { input: Record<string, never>; output: PromptTemplateDto[] };
  /** Registered hook handlers and hook errors. */
  "settings:hooks": { input: Record<string, never>; output: HooksDto };
  /**
   * Checks the configured model endpoint (or reports the offline summarizer) and the remote
   * summary endpoint when set. `testId`: an id the caller makes up (letters, digits, - and _),
   * which settings:cancel-test-connection names; without one the test cannot be cancelled.
   * Fails with code "cancelled" when cancelled (its HTTP requests are aborted), "conflict" when
   * a test with the same id is still running.
   */
  "settings:test-connection": { input: { testId?: string }; output: ConnectionTestDto };
  /**
   * Stops the running connection test started with this `testId` at once, and only that one
   * (another window's test goes on). False when no test with that id runs; the id is then
   * remembered for 10 s, so a test it overtook on the way (started with that id) ends as cancelled.
   */
  "settings:cancel-test-connection": { input: { testId: string }; output: { cancelled: boolean } };
  /**
   * Continues the session from its view leaf with the configured model (D17, no tools run):
   * the reply streams as chat:progressed; the user message and the reply are appended together
   * when the reply ends, then the automatic check runs (pruning, threshold compaction with
   * auto-continue, overflow recovery with one retry). Every window hears the turn start and end
   * (job:started / job:ended) and can cancel it.
   */
  "chat:send": { input: { sessionId: string; text: string }; output: ChatTurnResultDto };
  /**
   * "Continue from here": the reply to the user message at the view leaf (e.g. one just edited
   * as a new branch), without a new user message; otherwise exactly as chat:send. */
  "chat:continue": { input: { sessionId: string }; output: ChatTurnResultDto };
  /** Cancels the session's running chat turn (and its automatic compaction); see chat:send. */
  "chat:abort": { input: { sessionId: string }; output: { aborted: boolean } };
  /** Which API keys are set and where from (never a value); default names: the configured models'. */
  "secrets:status": { input: { names?: string[] }; output: SecretsStatusDto };
  /** Stores (value null: removes) an API key, encrypted; refused in browser mode and the CLI. */
  "secrets:set": { input: { name: string; value: string | null }; output: SecretsStatusDto };
}

export interface Events {
  /** An automatic compaction started (SPEC §9.7 auto_compaction_start). */
  "compaction:auto-started": { sessionId: string; reason: "threshold" | "overflow" };
  /** It ended: with a result, aborted, or with the failure message (§9.4 step 10). */
  "compaction:auto-ended": {
    sessionId: string;
    reason: "threshold" | "overflow";
    entryId: string | null;
    aborted: boolean;
    willRetry: boolean;
    errorMessage?: string;
    /** Its summary calls that stopped at the output limit (saved as they came). */
    cutOff?: SummaryCutOff[];
  };
  /** A summary call is retried after a transient failure (§9.7 auto_retry_start/end). */
  "compaction:retry-started": { sessionId: string; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string };
  "compaction:retry-ended": { sessionId: string; success: boolean; attempt: number; finalError?: string };
  /** The set of sessions or their summaries changed. */
  "library:changed": { sessionIds: string[] };
  /**
   * How many of this process's edits and job saves have waited more than a second for another
   * process's write lock (a CLI import or prune, a second app), and still wait; 0: none any more.
   */
  "library:write-waiting": { waiting: number };
  /** A session's entries or view leaf changed. */
  "session:changed": { sessionId: string; viewLeafId: string | null };
  /** The settings changed: through this process's settings:set, or by another program (the CLI, a second Canopy). */
  "settings:changed": { settings: Settings };
  /** The agent session folders changed: through this process's library:set-folders, or by another program. */
  "library:folders-changed": ConfiguredFolders;
  /** The reply of a running chat turn (the job `jobId`), streamed so far. */
  "chat:progressed": { jobId: string; sessionId: string; text: string };
  /** A chat request failed with a transient error and is sent again after `delayMs` (§9.7 auto_retry_start/end). */
  "chat:retry-started": { sessionId: string; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string };
  "chat:retry-ended": { sessionId: string; success: boolean; attempt: number; finalError?: string };
  /** A menu action or a file opened from the OS, sent by the desktop shell to the window. */
  "app:command": AppCommand;
  /** A chat turn, a manual compaction or a branch summary started, whichever window (or client) asked for it. */
  "job:started": RunningJobDto;
  /** It ended: done (with the entry it appended; a chat turn with its result), cancelled (nothing changed) or failed. */
  "job:ended": JobEndedDto;
  /**
   * A compaction's or branch summary's hooks at work (only when hooks are registered for it);
   * `hooks` null: they gave no summary, and the summarizer is asked now.
   */
  "job:hooks": { jobId: string; sessionId: string; hooks: JobHooksDto | null };
  /** Progress of a long job (imports, summaries); `text` is the summary streamed so far. */
  "job:progressed": {
    jobId: string;
    sessionId?: string;
    label: string;
    done: number;
    total: number | null;
    text?: string;
    /** The job is over (an import's last event, however it ended: done, cancelled or failed). */
    ended?: boolean;
  };
}

/**
 * Browser mode: a `session:export` request whose Accept header names this type is answered with
 * the JSONL file itself (the download), its ExportResult without `text` URI-encoded as JSON in
 * the EXPORT_RESULT_HEADER; errors come as the contract's JSON answer, as for any request.
 */
export const EXPORT_FILE_TYPE = "application/jsonl";
export const EXPORT_RESULT_HEADER = "x-canopy-export";

/** An import's progress events have a job id starting with this (then the path imported). */
export const IMPORT_JOB_PREFIX = "import:";

/** The job id of the progress events of a search that indexes imported entries first (the CLI). */
export const SEARCH_INDEX_JOB_ID = "search-index";

/** "Indexing for search: 42% (96,000 of 230,114 entries)" for that job's events; null for others. */
export function searchIndexProgressText(job: Events["job:progressed"]): string | null {
  if (job.jobId !== SEARCH_INDEX_JOB_ID || job.ended === true || job.total === null || job.total === 0) return null;
  const percent = Math.floor((job.done / job.total) * 100);
  return `${job.label}: ${percent}% (${job.done.toLocaleString("en-US")} of ${job.total.toLocaleString("en-US")} entries)`;
}

/**
 * What a search says while the index catches up: "Still indexing for search (42% done): these
 * results cover only the messages indexed so far." Floored, so it never says 100% before the end.
 */
export function searchIndexingNote(indexing: SearchIndexingDto): string {
  const percent = indexing.total > 0 ? Math.floor((indexing.indexed / indexing.total) * 100) : 0;
  return `Still indexing for search (${percent}% done): these results cover only the messages indexed so far.`;
}

/** The longest `library:search` query (characters); the search box says so instead of asking. */
export const MAX_SEARCH_QUERY_CHARS = 1000;

/**
 * "Imported x.jsonl (3/7)" for an import's progress event ("Importing ~/.pi/agent/sessions…" as
 * it starts, before its files are counted); null for other jobs and an import's end.
 */
export function importProgressText(job: Events["job:progressed"]): string | null {
  if (!job.jobId.startsWith(IMPORT_JOB_PREFIX) || job.ended === true) return null;
  return job.total === null ? `${job.label}…` : `${job.label} (${job.done}/${job.total})`;
}

export type Channel = keyof Requests;
export type EventName = keyof Events;
export type RequestInput<C extends Channel> = Requests[C]["input"];
export type RequestOutput<C extends Channel> = Requests[C]["output"];

/** Every request channel, for transports that bind them one by one. */
export const CHANNELS = [
  "library:list",
  "library:import",
  "library:import-default-folders",
  "library:cancel-import",
  "library:get-folders",
  "library:set-folders",
  "library:search",
  "library:delete",
  "library:restore",
  "library:keep-copy",
  "session:get",
  "session:entries",
  "session:tree",
  "session:tree-update",
  "session:usage",
  "session:set-view-leaf",
  "session:export",
  "session:choose-export-path",
  "context:get",
  "compaction:preview",
  "compaction:run",
  "compaction:abort",
  "navigation:preview",
  "navigation:navigate",
  "navigation:abort",
  "job:list",
  "pruning:preview",
  "pruning:apply",
  "pruning:restore",
  "edits:edit-message",
  "edits:fork",
  "edits:undo-summary",
  "edits:rename",
  "edits:label",
  "edits:archive",
  "edits:unarchive",
  "edits:undo",
  "edits:redo",
  "settings:get",
  "settings:set",
  "settings:prompts",
  "settings:hooks",
  "settings:test-connection",
  "settings:cancel-test-connection",
  "chat:send",
  "chat:continue",
  "chat:abort",
  "secrets:status",
  "secrets:set",
] as const satisfies readonly Channel[];

export const EVENT_NAMES = [
  "library:changed",
  "session:changed",
  "settings:changed",
  "library:folders-changed",
  "library:write-waiting",
  "job:progressed",
  "job:started",
  "job:ended",
  "job:hooks",
  "compaction:auto-started",
  "compaction:auto-ended",
  "compaction:retry-started",
  "compaction:retry-ended",
  "chat:progressed",
  "chat:retry-started",
  "chat:retry-ended",
  "app:command",
] as const satisfies readonly EventName[];

type MissingEvent = Exclude<EventName, (typeof EVENT_NAMES)[number]>;
const _allEventsListed: MissingEvent extends never ? true : never = true;
void _allEventsListed;

/** Compile-time check that CHANNELS lists every channel exactly. */
type Missing = Exclude<Channel, (typeof CHANNELS)[number]>;
const _allChannelsListed: Missing extends never ? true : never = true;
void _allChannelsListed;
