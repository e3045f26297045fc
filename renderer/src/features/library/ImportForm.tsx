/**
 * Import a session file or a whole folder by path, or scan the agent session folders (~/.pi and
 * ~/.omp, or the configured ones), and show what the import found.
 */
import { type FormEvent, useState } from "react";
import type { ImportReport } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { IMPORT_BUSY_TEXT, NO_IMPORT_PATH } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";
import { reportPath } from "./library-format.ts";
import { typedPath } from "./typed-path.ts";

/** Files with problems named at first; a button shows the others. */
const SHOWN_PROBLEMS = 5;

export function ImportForm() {
  const [path, setPath] = useState("");
  const importing = useCanopy((state) => state.importing);
  const progress = useCanopy((state) => state.importProgress);
  const lastImport = useCanopy((state) => state.lastImport);
  const error = useCanopy((state) => state.importError);
  const importPath = useCanopy((state) => state.importPath);
  const importAgentFolders = useCanopy((state) => state.importAgentFolders);
  const cancelImport = useCanopy((state) => state.cancelImport);
  // A click (or Enter) on Import or Scan agent folders while the import runs says why.
  const refuseDuringImport = useCanopy((state) => state.refuseDuringImport);

  /** Why the typed path was not imported (not a whole path), before main is asked. */
  const [typedError, setTypedError] = useState<string | null>(null);

  // The previous import's report would read as the outcome of the path refused.
  const report = typedError === null ? lastImport : null;

  /** The files the report names (not imported, or with problems); the report all of them are shown for. */
  const flagged = report ? report.files.filter((file) => file.reason || file.problems.length > 0) : [];
  const [allShownOf, setAllShownOf] = useState<ImportReport | null>(null);
  const allShown = report !== null && allShownOf === report;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!path.trim()) return;
    if (refuseDuringImport("Import did nothing")) return;
    const typed = typedPath(path);
    setTypedError("error" in typed ? typed.error : null);
    if ("path" in typed) void importPath(typed.path);
  };

  return (
    <form className="import-form" onSubmit={submit}>
      <label htmlFor="import-path">Import a .jsonl file or folder</label>
      <div className="row">
        <input
          id="import-path"
          value={path}
          placeholder="~/.pi/agent/sessions"
          spellCheck={false}
          onChange={(event) => {
            setPath(event.target.value);
            setTypedError(null);
          }}
        />
        {/* Busy: aria-disabled, not disabled, which would drop the focus of a keyboard user to the page. */}
        <button
          type="submit"
          disabled={path.trim() === ""}
          aria-disabled={importing}
          title={
            path.trim() === ""
              ? NO_IMPORT_PATH
              : importing
                ? IMPORT_BUSY_TEXT
                : undefined
          }
        >
          {importing ? "Importing…" : "Import"}
        </button>
      </div>
      <button
        type="button"
        className="scan-button"
        aria-disabled={importing}
        title={
          importing
            ? IMPORT_BUSY_TEXT
            : "Imports every session under the agent folders (~/.pi/agent/sessions and ~/.omp/agent/sessions unless configured otherwise); they are then watched for new lines"
        }
        onClick={() => {
          if (!refuseDuringImport("Scan agent folders did nothing")) void importAgentFolders();
        }}
      >
        Scan agent folders
      </button>
      {progress && (
        <div className="import-progress" role="status">
          <progress value={progress.done} max={progress.total ?? undefined} />
          <span className="import-progress-text" title={progress.text}>
            {progress.text}
          </span>
          <button
            type="button"
            className="link-button"
            title="Stop once the file being imported is stored; what was imported stays (Escape)"
            onClick={() => void cancelImport()}
          >
            Cancel
          </button>
        </div>
      )}
      <ErrorLine message={typedError ?? error} />
      {!importing && report?.cancelled && (
        <p className="import-report" role="status">
          Import cancelled. Importing the same path again adds the files it did not reach.
        </p>
      )}
      {!importing && report && !report.cancelled && report.files.length === 0 && (
        <p className="import-report" role="status">
          No session files (*.jsonl) there: nothing imported.
        </p>
      )}
      {!importing && report && report.files.length > 0 && (
        <p className="import-report" role="status">
          {report.imported} imported, {report.updated} updated, {report.unchanged} unchanged, {report.skipped}{" "}
          skipped, {report.failed} failed · {counted(report.entriesAdded, "entry", "entries")} added
          {(allShown ? flagged : flagged.slice(0, SHOWN_PROBLEMS)).map((file) => (
            <span key={file.path} className="import-problem">
              <span className="import-problem-path" title={file.path}>
                {reportPath(file.path, report.roots)}
              </span>
              <span className="import-problem-reason">
                {file.reason ??
                  `${counted(file.problems.length, "problem")} (listed under the session's title)`}
              </span>
            </span>
          ))}
          {flagged.length > SHOWN_PROBLEMS && (
            <button
              type="button"
              className="link-button import-problem-more"
              aria-expanded={allShown}
              onClick={() => setAllShownOf(allShown ? null : report)}
            >
              {allShown ? "Show fewer" : `Show the other ${counted(flagged.length - SHOWN_PROBLEMS, "file")}`}
            </button>
          )}
        </p>
      )}
    </form>
  );
}
