/**
 * Files dropped on the window: in the desktop app each File has a path on disk
 * (`window.canopy.pathForFile`) that library:import reads; in browser mode there is none. And
 * the notice saying what the dropped items came to.
 */
import type { ImportReport } from "../../../../core/api/dto.ts";

export type DropPlan =
  | { kind: "import"; paths: string[]; skipped: number }
  | { kind: "unsupported"; message: string }
  | { kind: "nothing" };

export const BROWSER_DROP_MESSAGE =
  "Dropping files works in the desktop app. In browser mode, type the file's or folder's path in the import field instead.";

/** Decides what a drop does; `pathForFile` is the bridge's (undefined in browser mode). */
export function planDrop(files: readonly File[], pathForFile: ((file: File) => string) | undefined): DropPlan {
  if (files.length === 0) return { kind: "nothing" };
  if (!pathForFile) return { kind: "unsupported", message: BROWSER_DROP_MESSAGE };
  const paths = files.map((file) => pathForFile(file)).filter((path) => path !== "");
  if (paths.length === 0)
    return { kind: "unsupported", message: "The dropped items are not files on disk; drop .jsonl session files or folders." };
  return { kind: "import", paths, skipped: files.length - paths.length };
}

/** Whether a drag carries files (not text or a node dragged on the canvas). */
export function dragHasFiles(types: ArrayLike<string> | undefined): boolean {
  if (!types) return false;
  return Array.from(types).includes("Files");
}

/** What importing the dropped items came to: their reports merged, and the items that could not be imported at all. */
export interface DropOutcome {
  report: ImportReport;
  /** "name: why" of each dropped path the import refused (not found, unreadable). */
  errors: string[];
  /** Dropped items without a path on disk (skipped before importing). */
  notOnDisk: number;
}

/** Files named with why they were not imported, at most this many (the import form lists them too). */
const NAMED_PROBLEMS = 3;

/** The last segment of a path, as the notice names a file. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

/**
 * The notice after a drop: "Imported N dropped items." when every file was imported (or already
 * was); otherwise the counts and the files that were not imported (no session, unreadable,
 * missing), each with why — an error, as nothing or not everything was imported.
 */
export function dropNotice(
  outcome: DropOutcome,
  dropped: number,
): { level: "info" | "error"; message: string } {
  const { report, errors, notOnDisk } = outcome;
  const notOnDiskNote = notOnDisk ? ` (${notOnDisk} not on disk, skipped)` : "";
  if (report.cancelled)
    return {
      level: "info",
      message: "Import cancelled. Dropping the same items again adds the files it did not reach.",
    };
  const refused = report.files.filter((file) => file.status === "skipped" || file.status === "failed");
  if (errors.length === 0 && refused.length === 0)
    return {
      level: "info",
      message: `Imported ${dropped} dropped item${dropped === 1 ? "" : "s"}${notOnDiskNote}.`,
    };
  const counts = (
    [
      [report.imported, "imported"],
      [report.updated, "updated"],
      [report.unchanged, "unchanged"],
      [report.skipped, "skipped"],
      [report.failed + errors.length, "failed"],
    ] as const
  )
    .filter(([count]) => count > 0)
    .map(([count, word]) => `${count} ${word}`);
  const problems = [
    ...errors,
    ...refused.map((file) => `${fileName(file.path)}: ${file.reason ?? file.status}`),
  ];
  const named = problems.slice(0, NAMED_PROBLEMS).join("; ");
  const more = problems.length > NAMED_PROBLEMS ? ` (and ${problems.length - NAMED_PROBLEMS} more)` : "";
  return { level: "error", message: `Dropped items: ${counts.join(", ")}${notOnDiskNote}. ${named}${more}.` };
}
