/**
 * Tree slice: the selected session's tree nodes, the entry selected on the canvas (a would-be
 * leaf whose LLM view is previewed without moving the view leaf), and the canvas filter.
 */
import type { StateCreator } from "zustand";
import type { SessionTreeDto } from "../../../core/api/dto.ts";
import { call } from "../api.ts";
import type { CanopyState } from "./index.ts";

/** SPEC §10.4 filters. */
export type TreeFilter = "default" | "no-tools" | "user-only" | "labeled-only" | "all";

export interface TreeSlice {
  tree: SessionTreeDto | null;
  treeError: string | null;
  /** The entry selected on the canvas; null = the view leaf is shown. */
  selectedEntryId: string | null;
  filter: TreeFilter;
  loadTree(sessionId: string): Promise<void>;
  /** Selects an entry and previews the LLM view at it (null: back to the view leaf). */
  selectEntry(entryId: string | null): Promise<void>;
  setFilter(filter: TreeFilter): void;
}

export const createTreeSlice: StateCreator<CanopyState, [], [], TreeSlice> = (set, get) => ({
  tree: null,
  treeError: null,
  selectedEntryId: null,
  filter: "default",
  async loadTree(sessionId) {
    try {
      const tree = await call("session:tree", { sessionId });
      if (get().selectedSessionId === sessionId) set({ tree, treeError: null });
    } catch (error) {
      set({ tree: null, treeError: (error as Error).message });
    }
  },
  async selectEntry(entryId) {
    const sessionId = get().selectedSessionId;
    set({ selectedEntryId: entryId });
    if (sessionId) await get().loadContext(sessionId, entryId ?? undefined);
  },
  setFilter(filter) {
    set({ filter });
  },
});
