/**
 * Files dropped on the window: in the desktop app each File has a path on disk
 * (`window.canopy.pathForFile`) that library:import reads; in browser mode there is none.
 */
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
