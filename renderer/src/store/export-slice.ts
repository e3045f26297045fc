/**
 * Export slice: the export dialog of the open session — resume at the view leaf (D14), leave
 * archived branches out, pruned outputs as they were (D9), a download or a path to save to — and
 * the main side's live-folder warning ("live_source"), which the user may overrule with "Export
 * anyway".
 */
import type { StateCreator } from "zustand";
import type { ExportResult } from "../../../core/api/dto.ts";
import { counted } from "../../../core/session/describe.ts";
import { ApiCallError, call, exportForDownload, transport } from "../api.ts";
import type { CanopyState } from "./index.ts";
import { EXPORT_BUSY_TEXT } from "./disabled-reasons.ts";
import { refusedLine } from "./refused-line.ts";

export interface ExportOptions {
  /** Append the resume marker at the view leaf, so the agent resumes there (default on). */
  resumeAtLeaf: boolean;
  withoutArchived: boolean;
  /** Tool outputs Canopy pruned written as they were (D9), not as the model now gets them. */
  originals: boolean;
  /** Where to write the file; empty: a browser download (the desktop app asks with its save dialog). */
  outPath: string;
}

export interface ExportSlice {
  exportOpen: boolean;
  exportOptions: ExportOptions;
  exportBusy: boolean;
  /** Why the main side asks before writing (the folder of a file its agent is still writing). */
  exportWarning: string | null;
  exportError: string | null;
  /** Why a click on a button held by the running export did nothing (one line, gone when it ends). */
  exportRefused: string | null;
  /** Says in the dialog that `what` did nothing while the export runs. */
  refuseExport(what: string): void;
  openExport(): void;
  closeExport(): void;
  setExportOptions(patch: Partial<ExportOptions>): void;
  /** Exports with the dialog's options; `confirmLiveFolder` answers the warning. */
  runExport(confirmLiveFolder?: boolean): Promise<void>;
}

function download(name: string, file: Blob): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The notice of a finished export. The resume marker is named by the entry it hangs from (the
 * view leaf, as the dialog names it), never by its own new id, which the user has never seen.
 */
function outcome(result: ExportResult, name: string, leafId: string | null | undefined): string {
  const at = leafId === null ? "before the first entry" : `at the view leaf (${leafId})`;
  const marker = result.resumeEntryId && leafId !== undefined ? ` with a resume marker ${at}` : "";
  const reimported = result.reimportedEntries
    ? ` ${counted(result.reimportedEntries, "new entry", "new entries")} ${result.reimportedEntries === 1 ? "was" : "were"} re-imported from the session file first.`
    : "";
  return `Exported ${counted(result.lines, "line")}${marker} as ${result.path ?? name}.${reimported}`;
}

export const createExportSlice: StateCreator<CanopyState, [], [], ExportSlice> = (set, get) => ({
  exportOpen: false,
  exportOptions: { resumeAtLeaf: true, withoutArchived: false, originals: false, outPath: "" },
  exportBusy: false,
  exportWarning: null,
  exportError: null,
  exportRefused: null,
  refuseExport(what) {
    const text = refusedLine(what, EXPORT_BUSY_TEXT).text;
    if (get().exportRefused !== text) set({ exportRefused: text });
  },
  openExport() {
    if (!get().selectedSessionId) {
      set({ notice: { level: "error", message: "Select a session to export." } });
      return;
    }
    set({ exportOpen: true, exportWarning: null, exportError: null, exportRefused: null });
  },
  closeExport() {
    set({ exportOpen: false, exportWarning: null, exportError: null, exportRefused: null });
  },
  setExportOptions(patch) {
    // A changed choice is a new question: an earlier warning no longer applies.
    set({ exportOptions: { ...get().exportOptions, ...patch }, exportWarning: null, exportError: null });
  },
  async runExport(confirmLiveFolder = false) {
    const sessionId = get().selectedSessionId;
    if (!sessionId || get().exportBusy) return;
    const { resumeAtLeaf, withoutArchived, originals, outPath } = get().exportOptions;
    const leafId = resumeAtLeaf && get().tree?.sessionId === sessionId ? get().tree?.viewLeafId : undefined;
    let path = outPath.trim();
    set({ exportBusy: true, exportError: null });
    try {
      if (path === "" && transport === "electron") {
        // The desktop app saves where its save dialog says, written by main as the rows are read:
        // the text never crosses to the page (a download would carry all of it over IPC).
        const chosen = (await call("session:choose-export-path", { sessionId })).path;
        if (chosen === null) return; // cancelled: the export dialog stays as it was
        path = chosen;
        // Shown in the dialog, and "Export anyway" (a live-folder warning) saves to the same place.
        set({ exportOptions: { ...get().exportOptions, outPath: chosen } });
      }
      const input = {
        sessionId,
        // A view leaf of null (moved before the first entry) resumes there too: an empty context.
        ...(leafId !== undefined ? { leafId } : {}),
        ...(withoutArchived ? { withoutArchived: true } : {}),
        ...(originals ? { originals: true } : {}),
        ...(path === "" ? {} : { outPath: path }),
        ...(confirmLiveFolder ? { confirmLiveFolder: true } : {}),
      };
      const name = `${sessionId}.jsonl`;
      let result: ExportResult;
      if (path === "") {
        // A browser download: the file streams in as itself, not as JSON (see api.ts).
        const exported = await exportForDownload(input);
        result = exported.result;
        download(name, exported.file);
      } else result = await call("session:export", input);
      set({
        exportOpen: false,
        exportWarning: null,
        notice: { level: "info", message: outcome(result, name, leafId), sessionId },
      });
    } catch (error) {
      if (error instanceof ApiCallError && error.code === "live_source")
        set({ exportWarning: error.message });
      else set({ exportError: (error as Error).message });
    } finally {
      set({ exportBusy: false, exportRefused: null });
    }
  },
});
