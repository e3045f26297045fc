/**
 * Import a session file or a whole folder by path, and show what the import found.
 */
import { type FormEvent, useState } from "react";
import { useCanopy } from "../../store/index.ts";

export function ImportForm() {
  const [path, setPath] = useState("");
  const importing = useCanopy((state) => state.importing);
  const report = useCanopy((state) => state.lastImport);
  const importPath = useCanopy((state) => state.importPath);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (path.trim()) void importPath(path.trim());
  };

  return (
    <form className="import-form" onSubmit={submit}>
      <label htmlFor="import-path">Import a .jsonl file or folder</label>
      <div className="row">
        <input
          id="import-path"
          value={path}
          placeholder="~/.pi/agent/sessions"
          onChange={(event) => setPath(event.target.value)}
        />
        <button type="submit" disabled={importing || path.trim() === ""}>
          {importing ? "Importing…" : "Import"}
        </button>
      </div>
      {report && (
        <p className="import-report" role="status">
          {report.imported} imported, {report.updated} updated, {report.unchanged} unchanged, {report.skipped}{" "}
          skipped, {report.failed} failed · {report.entriesAdded} entries added
          {report.files
            .filter((file) => file.reason)
            .slice(0, 5)
            .map((file) => (
              <span key={file.path} className="import-problem">
                {file.path}: {file.reason}
              </span>
            ))}
        </p>
      )}
    </form>
  );
}
