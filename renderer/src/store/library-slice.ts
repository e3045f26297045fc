/**
 * Library slice: the list of sessions, importing (a path or the agent folders), full-text search
 * with hits that open a session at an entry, which session is selected, and the live refresh of
 * the list and of the open session when main announces changes.
 */
import type { StateCreator } from "zustand";
import {
  type Events,
  IMPORT_JOB_PREFIX,
  importProgressText,
  MAX_SEARCH_QUERY_CHARS,
} from "../../../core/api/contract.ts";
import type { ImportReport, SearchHit, SearchIndexingDto, SessionSummary } from "../../../core/api/dto.ts";
import { mergeImportReports } from "../../../core/api/import-report.ts";
import { call } from "../api.ts";
import { dropNotice, fileName } from "../features/chat/file-drop.ts";
import { MATCH_END, MATCH_START } from "../features/library/library-format.ts";
import { IMPORT_BUSY_TEXT } from "./disabled-reasons.ts";
import type { CanopyState } from "./index.ts";
import { loadLastSession } from "./last-session.ts";
import { refusedLine, sayRefused } from "./refused-line.ts";
import { keepTree } from "./tree-slice.ts";

export interface LibrarySlice {
  sessions: SessionSummary[];
  /** True once the first listing answered (tells "no sessions" from "not loaded yet"). */
  libraryLoaded: boolean;
  libraryLoading: boolean;
  libraryError: string | null;
  selectedSessionId: string | null;
  lastImport: ImportReport | null;
  importing: boolean;
  /** How far the running import is ("Importing x.jsonl (3/7)", "Importing sessions…" as it starts); null when none runs. */
  importProgress: { text: string; done: number; total: number | null } | null;
  importError: string | null;
  searchQuery: string;
  searchHits: SearchHit[] | null;
  /** Non-null while the index still catches up with an import: the hits cover only part (see searchIndexingNote). */
  searchIndexing: SearchIndexingDto | null;
  searching: boolean;
  /** What to say instead of hits, as a whole sentence (a refused query, or a search that failed). */
  searchError: string | null;
  loadLibrary(): Promise<void>;
  selectSession(sessionId: string | null): Promise<void>;
  importPath(path: string): Promise<void>;
  /** Files and folders dropped on the window (desktop app), one after the other; a notice says how it went. */
  importDropped(paths: readonly string[], notOnDisk: number): Promise<void>;
  /** Imports the configured agent session folders (~/.pi and ~/.omp by default). */
  importAgentFolders(): Promise<void>;
  /**
   * While the form's import runs: says on the outcome line that `what` (Import, Scan agent
   * folders) did nothing and why, and is true; the line goes when the import ends. False otherwise.
   */
  refuseDuringImport(what: string): boolean;
  /** A progress event of an import (any import: the form's, the menu's, a file opened from the OS). */
  importProgressed(job: Events["job:progressed"]): void;
  /** Stops the running import after the file it is at (what it stored stays). */
  cancelImport(): Promise<void>;
  search(query: string): Promise<void>;
  /** Opens the hit's session with its entry selected (the route follows). */
  openSearchHit(hit: SearchHit): Promise<void>;
  /** Reloads the open session's tree and LLM view, keeping the selection (coalesced). */
  refreshOpenSession(sessionId: string): void;
}

/** Resolves once the browser has painted what was rendered so far. */
function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== "function") return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** While the index catches up, the shown search is asked again this often, so its hits fill in. */
export const SEARCH_REFRESH_MS = 2000;

export const createLibrarySlice: StateCreator<CanopyState, [], [], LibrarySlice> = (set, get) => {
  let searchRequest = 0;
  let searchRefresh: ReturnType<typeof setTimeout> | null = null;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  let refreshing = false;
  let refreshAgain = false;

  const doRefresh = async (sessionId: string) => {
    if (get().selectedSessionId !== sessionId) return;
    refreshing = true;
    try {
      await Promise.all([
        get().loadTree(sessionId),
        get().loadContext(sessionId, get().selectedEntryId ?? undefined),
      ]);
    } finally {
      refreshing = false;
      if (refreshAgain) {
        refreshAgain = false;
        void doRefresh(sessionId);
      }
    }
  };

  /**
   * Asks for `query`'s hits. `again`: the search shown asked again because the library changed
   * (an import, a delete, an undo, another window): its hits are replaced without a "Searching…" flash.
   */
  const runSearch = async (query: string, again: boolean): Promise<void> => {
    const request = ++searchRequest;
    if (searchRefresh !== null) clearTimeout(searchRefresh);
    searchRefresh = null;
    // The same search asked again while the index catches up, or after the library changed: no
    // "Searching…" flash.
    const refresh =
      query === get().searchQuery && (again || get().searchIndexing !== null) && !get().searching;
    set({ searchQuery: query });
    if (query.trim() === "") {
      set({ searchHits: null, searchIndexing: null, searching: false, searchError: null });
      return;
    }
    if (query.length > MAX_SEARCH_QUERY_CHARS) {
      // Said in words here; the API would refuse it with its input rule.
      const limit = MAX_SEARCH_QUERY_CHARS.toLocaleString("en-US");
      const searchError = `A search is at most ${limit} characters long (this one has ${query.length.toLocaleString("en-US")}): shorten it.`;
      set({ searchHits: null, searchIndexing: null, searching: false, searchError });
      return;
    }
    if (!refresh) set({ searching: true, searchError: null });
    try {
      const { hits, indexing } = await call("library:search", {
        query,
        limit: 50,
        highlight: [MATCH_START, MATCH_END],
      });
      if (request !== searchRequest) return;
      set({ searchHits: hits, searchIndexing: indexing, searching: false });
      if (indexing !== null) {
        searchRefresh = setTimeout(() => {
          searchRefresh = null;
          if (request === searchRequest) void runSearch(query, false);
        }, SEARCH_REFRESH_MS);
      }
    } catch (error) {
      if (request === searchRequest)
        set({
          searchHits: null,
          searchIndexing: null,
          searching: false,
          searchError: `Search failed: ${(error as Error).message}`,
        });
    }
  };

  const afterImport = async (report: ImportReport) => {
    set({ lastImport: report, importing: false, importProgress: null });
    await get().loadLibrary();
    // One file imported is asked for: it opens. After a folder, the open session stays (the
    // report's first file is no more wanted than any other).
    const only = report.files.length === 1 ? report.files[0] : undefined;
    if (only?.sessionId && only.sessionId !== get().selectedSessionId) await get().selectSession(only.sessionId);
  };

  /** The form's imports: shown as running, then the report, or the error in one line. */
  const runImport = async (request: () => Promise<ImportReport>) => {
    set({ importing: true, importProgress: null, importError: null });
    try {
      await afterImport(await request());
    } catch (error) {
      // The previous import's report would read as this one's outcome: only the error stays.
      set({ importing: false, importProgress: null, importError: (error as Error).message, lastImport: null });
    } finally {
      // "Import did nothing: an import is running…" is no longer true.
      if (get().jobMessage?.text.endsWith(refusedLine("", IMPORT_BUSY_TEXT).text)) set({ jobMessage: null });
    }
  };

  return {
    sessions: [],
    libraryLoaded: false,
    libraryLoading: false,
    libraryError: null,
    selectedSessionId: null,
    lastImport: null,
    importing: false,
    importProgress: null,
    importError: null,
    searchQuery: "",
    searchHits: null,
    searchIndexing: null,
    searching: false,
    searchError: null,
    async loadLibrary() {
      set({ libraryLoading: true });
      // The delete Ctrl+Z would undo when this list was asked for (one made meanwhile is newer).
      const deleted = get().lastDeleted;
      try {
        const sessions = await call("library:list", {});
        set({ sessions, libraryLoading: false, libraryLoaded: true, libraryError: null });
        // The list changed (an import, a delete or its undo, another window): the hits shown
        // follow it, a deleted session's leaving and an imported one's coming in.
        const { searchQuery, searchHits } = get();
        if (searchHits !== null) void runSearch(searchQuery, true);
        if (deleted && get().lastDeleted === deleted && sessions.some((s) => s.id === deleted.sessionId)) {
          // It is back already (restored in another window, or its file imported again): Ctrl+Z
          // must not undo whatever the session's history now ends with, nor the notice offer it.
          const notice = get().notice;
          const back = { level: "info" as const, message: `“${deleted.title}” is back in the library.` };
          set({ lastDeleted: null, ...(notice?.undoDeleteOf === deleted.sessionId ? { notice: back } : {}) });
        }
        // A deep link (#/session/…) picks the session itself; otherwise open the one last open
        // (a deleted one is not listed), else the newest one.
        const linked = window.location.hash.startsWith("#/session/");
        if (!get().selectedSessionId && !linked && sessions[0]) {
          const last = loadLastSession();
          const first = sessions.find((session) => session.id === last) ?? sessions[0];
          // The list is painted first: the session's tree and LLM view take seconds to arrive
          // and render for a big one, and the list should not wait for them.
          await afterPaint();
          if (!get().selectedSessionId && !window.location.hash.startsWith("#/session/"))
            await get().selectSession(first.id);
        }
      } catch (error) {
        set({ libraryLoading: false, libraryError: (error as Error).message });
      }
    },
    async selectSession(sessionId) {
      get().switchDraft(sessionId);
      const notice = get().notice;
      const another = sessionId !== get().selectedSessionId;
      set({
        // The previous session's LLM view would read as this one's until its own arrives (seconds
        // for a big session): the panel says it is loading instead.
        ...(another ? { context: null, contextError: null, contextLoading: sessionId !== null } : {}),
        // A notice about another session (an export) would read as if it were about this one.
        ...(notice?.sessionId !== undefined && notice.sessionId !== sessionId ? { notice: null } : {}),
        selectedSessionId: sessionId,
        plan: null,
        planError: null,
        planNote: null,
        planBlocked: null,
        planRetry: null,
        prunePlan: null,
        pruneError: null,
        jobMessage: null,
        // The last reply's outcome line is about the session left (one that ends later names it).
        ...(another ? { chatMessage: null } : {}),
        // Kept: opening that session again asks only what changed since (tree-slice.ts).
        keptTrees: keepTree(get().keptTrees, get().tree),
        tree: null,
        selectedEntryId: null,
        diff: null,
        diffError: null,
        diffLoading: false,
      });
      if (!sessionId) return;
      await Promise.all([
        get().loadContext(sessionId, undefined),
        get().loadTree(sessionId),
      ]);
    },
    importPath: (path) => runImport(() => call("library:import", { path })),
    async importDropped(paths, notOnDisk) {
      const reports: ImportReport[] = [];
      const errors: string[] = [];
      for (const path of paths) {
        await get().importPath(path);
        const { lastImport, importError } = get();
        if (importError !== null) errors.push(`${fileName(path)}: ${importError}`);
        else if (lastImport) reports.push(lastImport);
      }
      const report = { ...mergeImportReports(reports), roots: reports.flatMap((r) => r.roots ?? []) };
      // The import form shows what every dropped item came to, not only the last one's.
      if (paths.length > 1)
        set({
          lastImport: reports.length > 0 ? report : null,
          importError: errors.length > 0 ? errors.join("; ") : null,
        });
      get().notify(dropNotice({ report, errors, notOnDisk }, paths.length));
    },
    importAgentFolders: () => runImport(() => call("library:import-default-folders", {})),
    refuseDuringImport(what) {
      if (!get().importing) return false;
      sayRefused(get, (partial) => set(partial), what, IMPORT_BUSY_TEXT);
      return true;
    },
    async cancelImport() {
      // The form's own import, or one it shows the progress of (the menu, files opened from the OS).
      if (!get().importing && get().importProgress === null) return;
      try {
        await call("library:cancel-import", {});
      } catch (error) {
        set({ importError: `Could not cancel the import: ${(error as Error).message}` });
      }
    },
    importProgressed(job) {
      if (!job.jobId.startsWith(IMPORT_JOB_PREFIX)) return;
      // Imports the form did not start (the menu, files opened from the OS) show here too.
      const text = importProgressText(job);
      // The form's own import ended but its report is still on its way (the library is updated
      // and the report sent, seconds after a big scan): the line says so instead of going blank.
      if (text === null && get().importing) {
        set({ importProgress: { text: "Finishing the import…", done: job.done, total: job.total } });
        return;
      }
      set({ importProgress: text === null ? null : { text, done: job.done, total: job.total } });
    },
    search: (query) => runSearch(query, false),
    async openSearchHit(hit) {
      if (get().selectedSessionId !== hit.sessionId) await get().selectSession(hit.sessionId);
      if (hit.entryId) {
        get().revealEntry(hit.entryId);
        await get().selectEntry(hit.entryId);
      }
    },
    refreshOpenSession(sessionId) {
      if (get().selectedSessionId !== sessionId) return;
      // Events come in pairs (library:changed + session:changed) and in bursts while an agent
      // writes: one reload per burst, and never two at once.
      if (refreshTimer !== null) clearTimeout(refreshTimer);
      refreshTimer = setTimeout(() => {
        refreshTimer = null;
        if (refreshing) refreshAgain = true;
        else void doRefresh(sessionId);
      }, 60);
    },
  };
};
