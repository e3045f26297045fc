/**
 * The export dialog (File › Export…, Ctrl/Cmd+E, or "Export…" above the tree): resume at the view
 * leaf (D14), without archived branches, pruned tool outputs as they were (D9), a download (the
 * desktop app: its save dialog) or a path to save to. Enter exports, Escape closes, Tab stays
 * inside. When the path is in the folder of a file the agent is still writing, main warns and the
 * dialog offers "Export anyway".
 */
import type { FormEvent, KeyboardEvent } from "react";
import { transport } from "../../api.ts";
import {
  EXPORT_BUSY_TEXT,
  NO_ARCHIVED_BRANCH,
  NO_PRUNED_OUTPUT,
  NO_VIEW_LEAF_TO_RESUME,
} from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import "../common/modal.css";
import "./export.css";
import { ErrorLine } from "../common/ErrorLine.tsx";
import { keepTabInside } from "../common/focus-trap.ts";
import { useReturnFocus } from "../common/return-focus.ts";
import { treeLookup } from "../tree/tree-lookup.ts";

// The desktop app asks where to save with its own dialog; browser mode downloads.
const desktop = transport === "electron";

export function ExportDialog() {
  const open = useCanopy((state) => state.exportOpen);
  const options = useCanopy((state) => state.exportOptions);
  const busy = useCanopy((state) => state.exportBusy);
  const warning = useCanopy((state) => state.exportWarning);
  const error = useCanopy((state) => state.exportError);
  const refused = useCanopy((state) => state.exportRefused);
  const refuseExport = useCanopy((state) => state.refuseExport);
  const viewLeafId = useCanopy((state) =>
    state.tree?.sessionId === state.selectedSessionId ? (state.tree?.viewLeafId ?? null) : null,
  );
  const hasArchived = useCanopy((state) => (state.tree ? treeLookup(state.tree.nodes).hasArchived : false));
  const hasPruned = useCanopy((state) => (state.tree ? treeLookup(state.tree.nodes).hasPruned : false));
  const setOptions = useCanopy((state) => state.setExportOptions);
  const runExport = useCanopy((state) => state.runExport);
  const close = useCanopy((state) => state.closeExport);
  useReturnFocus(open);
  if (!open) return null;

  const submitName = options.outPath.trim() !== "" ? "Save" : desktop ? "Save as…" : "Download";
  /** Exports, or, while the export runs, says that `what` did nothing and why. */
  const exportOrSay = (what: string, confirmLiveFolder: boolean) => {
    if (busy) refuseExport(what);
    else void runExport(confirmLiveFolder);
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    exportOrSay(`${submitName} did nothing`, false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    keepTabInside(event);
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
      return;
    }
    // Enter exports from anywhere in the dialog (checkboxes too); buttons keep their own Enter.
    if (event.key === "Enter" && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      exportOrSay("Enter did nothing", false);
    }
  };

  return (
    <div className="modal-backdrop">
      {/* The dialog is a box around the form: role=dialog is not allowed on a <form> (ARIA in HTML). */}
      <div
        className="modal-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="export-dialog-title"
        onKeyDown={onKeyDown}
      >
        <form className="export-dialog" onSubmit={onSubmit}>
          <h2 id="export-dialog-title">Export session</h2>
          <label title={viewLeafId === null ? NO_VIEW_LEAF_TO_RESUME : undefined}>
            <input
              type="checkbox"
              checked={options.resumeAtLeaf}
              disabled={viewLeafId === null}
              title={viewLeafId === null ? NO_VIEW_LEAF_TO_RESUME : undefined}
              onChange={(event) => setOptions({ resumeAtLeaf: event.target.checked })}
            />
            Resume at the view leaf{viewLeafId ? ` (${viewLeafId})` : ""}
          </label>
          <label title={hasArchived ? undefined : NO_ARCHIVED_BRANCH}>
            <input
              type="checkbox"
              checked={options.withoutArchived}
              onChange={(event) => setOptions({ withoutArchived: event.target.checked })}
            />
            Without archived branches
          </label>
          <label title={hasPruned ? undefined : NO_PRUNED_OUTPUT}>
            <input
              type="checkbox"
              checked={options.originals}
              disabled={!hasPruned}
              onChange={(event) => setOptions({ originals: event.target.checked })}
            />
            Pruned tool outputs as they were
          </label>
          <label className="export-path">
            {desktop ? "Save to path (empty: choose in a dialog)" : "Save to path (empty: download)"}
            <input
              type="text"
              value={options.outPath}
              placeholder="/path/to/session.jsonl"
              onChange={(event) => setOptions({ outPath: event.target.value })}
            />
          </label>
          {warning && (
            <div className="export-warning" role="alert" data-testid="export-warning">
              <p>{warning}</p>
              <button
                type="button"
                aria-disabled={busy}
                title={busy ? EXPORT_BUSY_TEXT : undefined}
                onClick={() => exportOrSay("Export anyway did nothing", true)}
              >
                Export anyway
              </button>
            </div>
          )}
          <ErrorLine message={error} />
          <ErrorLine message={refused} />
          <div className="row">
            {/* While busy the buttons are aria-disabled, not disabled (runExport ignores them then): a
              disabled button drops the focus to the page, and Escape, Enter and Tab would no longer
              reach the dialog when the export is refused. */}
            {/* biome-ignore lint/a11y/noAutofocus: the dialog takes the focus so Enter and Escape answer it */}
            <button type="submit" autoFocus aria-disabled={busy} title={busy ? EXPORT_BUSY_TEXT : undefined}>
              {busy ? "Exporting…" : submitName}
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
