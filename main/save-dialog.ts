/**
 * The desktop app's save dialog for an export (AppContext.saveDialog): attached to the focused
 * window when there is one, the suggested file name filled in, `.jsonl` offered. The chosen path,
 * or null when the user cancels.
 */
import type { BrowserWindow, SaveDialogOptions, SaveDialogReturnValue } from "electron";

export interface SaveDialogHost {
  showSaveDialog(window: BrowserWindow, options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
  showSaveDialog(options: SaveDialogOptions): Promise<SaveDialogReturnValue>;
}

export function createSaveDialog(
  dialog: SaveDialogHost,
  focused: () => BrowserWindow | undefined,
): (suggestedName: string) => Promise<string | null> {
  return async (suggestedName) => {
    const options: SaveDialogOptions = {
      title: "Export session",
      defaultPath: suggestedName,
      filters: [{ name: "Agent sessions", extensions: ["jsonl"] }],
      properties: ["showOverwriteConfirmation", "createDirectory"],
    };
    const window = focused();
    const result = window
      ? await dialog.showSaveDialog(window, options)
      : await dialog.showSaveDialog(options);
    return result.canceled || !result.filePath ? null : result.filePath;
  };
}
