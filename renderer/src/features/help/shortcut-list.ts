/**
 * Every keyboard shortcut of the window, grouped by where it acts: the one list the shortcuts
 * dialog (?) shows. Keep it in step with the handlers (App, tree, composer, edits, sidebar) and
 * with the README's "Keyboard" paragraph.
 */

/** The window event that opens the shortcuts list (Help › Keyboard Shortcuts in the desktop app). */
export const SHOW_SHORTCUTS_EVENT = "canopy:show-shortcuts";

export interface Shortcut {
  keys: string[];
  what: string;
}

export interface ShortcutGroup {
  title: string;
  shortcuts: Shortcut[];
}

export const SHORTCUT_GROUPS: readonly ShortcutGroup[] = [
  {
    title: "Anywhere",
    shortcuts: [
      { keys: ["?"], what: "This list of shortcuts" },
      { keys: ["/", "Ctrl/Cmd+K"], what: "Search all sessions" },
      { keys: ["Escape"], what: "Cancel the running reply, compaction, branch summary or import" },
      {
        keys: ["Ctrl/Cmd+Z"],
        what: "Undo Canopy's last edit of the open session (not while typing; a press during an edit waits its turn)",
      },
      { keys: ["Ctrl/Cmd+Shift+Z"], what: "Redo (a press during an edit waits its turn)" },
      { keys: ["F2"], what: "Rename the open session" },
    ],
  },
  {
    title: "Session tree",
    shortcuts: [
      { keys: ["↑", "↓"], what: "Select the parent / the first child" },
      { keys: ["←", "→"], what: "Select the previous / next sibling" },
      { keys: ["Home", "End"], what: "Select the root above / the tip of the branch below" },
      {
        keys: ["Enter"],
        what: "Move the view leaf to the selected entry (also a double-click); on a collapsed run, expand it",
      },
      {
        keys: ["Shift+Enter"],
        what: "Move the view leaf there asking first, as a drop of the leaf marker does: with or without a branch summary",
      },
      { keys: ["Space"], what: "Select the focused entry; on a collapsed run, expand it" },
      { keys: ["Escape"], what: "Clear the selection; while the leaf marker is dragged, cancel the drag" },
    ],
  },
  {
    title: "Session list and search",
    shortcuts: [
      { keys: ["↑", "↓"], what: "Move between sessions and project folders" },
      { keys: ["↓"], what: "From the search box to its results (↑ ↓ between them, Enter opens one)" },
      { keys: ["Escape"], what: "Clear the search or the list filter" },
    ],
  },
  {
    title: "Composer and dialogs",
    shortcuts: [
      { keys: ["Ctrl/Cmd+Enter"], what: "Send the message" },
      { keys: ["Enter"], what: "Confirm a dialog (export, rename, label)" },
      { keys: ["Escape"], what: "Close a dialog, a plan or an editor" },
    ],
  },
  {
    title: "Desktop app menu",
    shortcuts: [
      { keys: ["Ctrl/Cmd+O"], what: "Import session files" },
      { keys: ["Ctrl/Cmd+Shift+O"], what: "Import a folder" },
      { keys: ["Ctrl/Cmd+E"], what: "Export the open session" },
      { keys: ["Ctrl/Cmd+Shift+K"], what: "Compact the open session" },
      { keys: ["Ctrl/Cmd+Shift+P"], what: "Prune old tool output of the open session (plan first)" },
      { keys: ["Ctrl/Cmd+L"], what: "Go to the view leaf" },
    ],
  },
];
