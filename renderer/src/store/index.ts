/**
 * The renderer's single zustand store, composed from typed slices (DESIGN §5).
 */
import { create } from "zustand";
import { createLibrarySlice, type LibrarySlice } from "./library-slice.ts";
import { createLlmViewSlice, type LlmViewSlice } from "./llm-view-slice.ts";

export type CanopyState = LibrarySlice & LlmViewSlice;

export const useCanopy = create<CanopyState>()((...args) => ({
  ...createLibrarySlice(...args),
  ...createLlmViewSlice(...args),
}));
