/**
 * How the toolbar and messages name Canopy's undoable operations ("Undo archive", "Redid
 * rename"); one place, so the Undo/Redo titles and the outcome messages agree.
 */
import type { EditOperation } from "../../../../core/api/dto.ts";

const NAMES: Record<EditOperation, string> = {
  "edit-message": "edit as new branch",
  fork: "fork",
  "undo-summary": "moving the leaf before the summary",
  rename: "rename",
  label: "label",
  archive: "archive",
  unarchive: "branch restore",
  delete: "delete",
  restore: "restore",
};

export function operationName(operation: EditOperation): string {
  return NAMES[operation];
}
