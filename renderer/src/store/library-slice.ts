/**
 * Library slice: the list of sessions, importing, full-text search, and which session is selected.
 */
import type { StateCreator } from "zustand";
import type { ImportReport, SearchHit, SessionSummary } from "../../../core/api/dto.ts";
import { call } from "../api.ts";
import type { CanopyState } from "./index.ts";

export interface LibrarySlice {
  sessions: SessionSummary[];
  libraryLoading: boolean;
  libraryError: string | null;
  selectedSessionId: string | null;
  lastImport: ImportReport | null;
  importing: boolean;
  searchHits: SearchHit[] | null;
  loadLibrary(): Promise<void>;
  selectSession(sessionId: string | null): Promise<void>;
  importPath(path: string): Promise<void>;
  search(query: string): Promise<void>;
}

export const createLibrarySlice: StateCreator<CanopyState, [], [], LibrarySlice> = (set, get) => ({
  sessions: [],
  libraryLoading: false,
  libraryError: null,
  selectedSessionId: null,
  lastImport: null,
  importing: false,
  searchHits: null,
  async loadLibrary() {
    set({ libraryLoading: true, libraryError: null });
    try {
      const sessions = await call("library:list", {});
      set({ sessions, libraryLoading: false });
      // A deep link (#/session/…) picks the session itself; otherwise open the newest one.
      const linked = window.location.hash.startsWith("#/session/");
      if (!get().selectedSessionId && !linked && sessions[0]) await get().selectSession(sessions[0].id);
    } catch (error) {
      set({ libraryLoading: false, libraryError: (error as Error).message });
    }
  },
  async selectSession(sessionId) {
    set({
      selectedSessionId: sessionId,
      plan: null,
      planError: null,
      jobMessage: null,
      detail: null,
      tree: null,
      selectedEntryId: null,
    });
    if (!sessionId) return;
    await Promise.all([
      get().loadContext(sessionId, undefined),
      get().loadSessionDetail(sessionId),
      get().loadTree(sessionId),
    ]);
  },
  async importPath(path) {
    set({ importing: true, libraryError: null });
    try {
      const report = await call("library:import", { path });
      set({ lastImport: report, importing: false });
      await get().loadLibrary();
      const first = report.files.find((file) => file.sessionId);
      if (first?.sessionId) await get().selectSession(first.sessionId);
    } catch (error) {
      set({ importing: false, libraryError: (error as Error).message });
    }
  },
  async search(query) {
    if (query.trim() === "") {
      set({ searchHits: null });
      return;
    }
    try {
      set({ searchHits: await call("library:search", { query, limit: 50 }) });
    } catch (error) {
      set({ libraryError: (error as Error).message });
    }
  },
});
