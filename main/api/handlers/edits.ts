/**
 * Handlers of the `edits:` channels (issue 6): Canopy's own, undoable edits of a session —
 * edit as a branch, fork, undo a summary, rename, label, archive — and undo/redo.
 */
import { undoOrRedo } from "../../library/edit-history.ts";
import {
  archiveSubtree,
  editMessage,
  forkSession,
  renameSession,
  setLabel,
  undoSummary,
} from "../../library/edits.ts";
import type { AreaHandlers } from "../types.ts";

export const editsHandlers: AreaHandlers<"edits"> = {
  "edits:edit-message": (input, ctx) => editMessage(ctx, input.sessionId, input.entryId, input.text),
  "edits:fork": (input, ctx) => forkSession(ctx, input.sessionId, input.entryId),
  "edits:undo-summary": (input, ctx) => undoSummary(ctx, input.sessionId, input.entryId),
  "edits:rename": (input, ctx) => renameSession(ctx, input.sessionId, input.title),
  "edits:label": (input, ctx) => setLabel(ctx, input.sessionId, input.targetId, input.label),
  "edits:archive": (input, ctx) =>
    archiveSubtree(ctx, input.sessionId, input.entryId, true, input.confirm === true),
  "edits:unarchive": (input, ctx) => archiveSubtree(ctx, input.sessionId, input.entryId, false, true),
  "edits:undo": (input, ctx) => undoOrRedo(ctx, input.sessionId, false),
  "edits:redo": (input, ctx) => undoOrRedo(ctx, input.sessionId, true),
};
