/**
 * The renderer's single zustand store, composed from typed slices (DESIGN §5).
 */
import { create } from "zustand";
import { type ChatSlice, createChatSlice } from "./chat-slice.ts";
import { createEditsSlice, type EditsSlice } from "./edits-slice.ts";
import { createExportSlice, type ExportSlice } from "./export-slice.ts";
import { createJobsSlice, type JobsSlice } from "./jobs-slice.ts";
import { createLibrarySlice, type LibrarySlice } from "./library-slice.ts";
import { createLlmViewSlice, type LlmViewSlice } from "./llm-view-slice.ts";
import { createPruneSlice, type PruneSlice } from "./prune-slice.ts";
import { createSessionSlice, type SessionSlice } from "./session-slice.ts";
import { createTreeSlice, type TreeSlice } from "./tree-slice.ts";

export type CanopyState = LibrarySlice &
  LlmViewSlice &
  SessionSlice &
  JobsSlice &
  TreeSlice &
  ChatSlice &
  EditsSlice &
  ExportSlice &
  PruneSlice;

export const useCanopy = create<CanopyState>()((...args) => ({
  ...createLibrarySlice(...args),
  ...createLlmViewSlice(...args),
  ...createSessionSlice(...args),
  ...createJobsSlice(...args),
  ...createTreeSlice(...args),
  ...createChatSlice(...args),
  ...createEditsSlice(...args),
  ...createExportSlice(...args),
  ...createPruneSlice(...args),
}));
