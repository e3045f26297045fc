/**
 * Why a control is off (disabled for want of something to act on) or held (aria-disabled while
 * work runs): its tooltip and accessible description, and for a held one the line a click puts up
 * (refused-line.ts). Each reason is a full sentence and ends with a full stop, idle or busy alike.
 */
import type { JobKind } from "../../../core/api/dto-jobs.ts";

/** Why nothing else starts on a session while a job of `kind` runs there (a refusal, a disabled button's reason). */
export function sessionBusyText(kind: JobKind): string {
  const what =
    kind === "chat"
      ? "A reply is being written"
      : kind === "compaction"
        ? "A compaction is running"
        : "A branch summary is running";
  return `${what} on this session; wait for it or cancel it first (Escape).`;
}

/** The session's edit buttons while another edit is being saved on it. */
export const EDIT_BUSY_TEXT = "Another edit is being saved on this session; available again once it is done.";

/** Import and Scan agent folders while an import runs. */
export const IMPORT_BUSY_TEXT = "An import is running: wait for it, or Cancel it (Escape).";
/** Import with no path typed. */
export const NO_IMPORT_PATH = "Type the path of a .jsonl file or folder first.";

/** The export dialog's Save (Download, Save as…) and Export anyway while it exports. */
export const EXPORT_BUSY_TEXT = "The session is being exported; available again once it is done.";
/** Export's "Resume at the view leaf" on a session without entries. */
export const NO_VIEW_LEAF_TO_RESUME = "The session has no entries: there is no view leaf to resume at.";
/** Export's "Without archived branches" and the tree's "Show archived" on a session with none. */
export const NO_ARCHIVED_BRANCH = "This session has no archived branch.";
/** Export's "Pruned tool outputs as they were" on a session with none pruned. */
export const NO_PRUNED_OUTPUT = "No tool output of this session is pruned.";

/** The tree toolbar's Go to leaf on a session without entries. */
export const NO_VIEW_LEAF_TO_GO = "The session has no entries: there is no view leaf to go to.";

/** The move dialog's Summarize buttons when the branch left has no entries of its own. */
export const NOTHING_TO_SUMMARIZE = "Nothing to summarize: the branch you leave has no entries of its own.";
/** The move dialog's "Summarize with these instructions" with none typed. */
export const NO_INSTRUCTIONS = "Type what the summary should focus on first.";

/** The edit bar's Undo and Redo with nothing to undo or redo. */
export const NOTHING_TO_UNDO = "Nothing to undo.";
export const NOTHING_TO_REDO = "Nothing to redo.";
/** Set label with nothing typed, or with the entry's own label. */
export const NO_LABEL_TYPED = "Type a label first.";
export const SAME_LABEL = "This is the entry's label already.";
/** Edit as new branch while the message's edit is open, and its Save with the text emptied. */
export const MESSAGE_BEING_EDITED = "The message is being edited below.";
export const MESSAGE_EMPTY = "The message is empty.";

/** The composer's Send with nothing typed, and while a reply is being written. */
export const NO_MESSAGE_TYPED = "Type a message first (Ctrl/Cmd+Enter sends).";
export const REPLY_STREAMING = "A reply is being written; Cancel (Escape) stops it.";

/** The LLM view's diff buttons: with the view leaf itself selected, on a path without compaction. */
export const NO_OTHER_ENTRY = "Select an entry other than the view leaf first.";
export const NO_COMPACTION_ON_PATH = "No compaction on this path.";
/** Expand all and Collapse all while a diff replaces the messages. */
export const DIFF_OPEN_TEXT = "A diff is shown instead of the messages: Close diff first.";

/** Settings' Test connection while its test runs. */
export const CONNECTION_TEST_RUNNING =
  "A connection test is running: wait for its answer, or Cancel it (Escape).";
/** Settings' "Use the defaults" once the default agent folders are in use. */
export const DEFAULT_FOLDERS_IN_USE = "The default folders are in use already.";

/** The missing-file notice's "Keep the library copy" while its request runs. */
export const KEEPING_LIBRARY_COPY =
  "Keeping the library copy as the only one; available again once it is done.";

/** The pruning plan's Close while the plan's own request runs. */
export const PRUNE_BUSY_TEXT = {
  preview: "The pruning plan is being made; Close is available again once it is shown.",
  apply: "Pruning is being applied; Close is available again once it is done.",
  restore: "The pruned outputs are being restored; Close is available again once it is done.",
} as const;
