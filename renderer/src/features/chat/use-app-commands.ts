/**
 * The desktop shell's menu actions and opened files (app:command): export (opens the export
 * dialog), compact, prune, go to the view leaf, open a session, show a message, follow a theme, list the
 * keyboard shortcuts.
 */
import { useEffect } from "react";
import type { AppCommand } from "../../../../core/api/dto-app.ts";
import { onEvent } from "../../api.ts";
import { SHOW_SHORTCUTS_EVENT } from "../help/shortcut-list.ts";
import { useCanopy } from "../../store/index.ts";
import { applyTheme } from "./theme.ts";

/** Centres the canvas on the view leaf with the tree toolbar's own "Go to leaf" button. */
function centreOnViewLeaf(): void {
  const buttons = document.querySelectorAll<HTMLButtonElement>(".tree-panel button");
  const button = Array.from(buttons).find((candidate) => candidate.textContent?.trim() === "Go to leaf");
  if (button && !button.disabled) button.click();
}

export async function runAppCommand(command: AppCommand): Promise<void> {
  const state = useCanopy.getState();
  switch (command.command) {
    case "export":
      state.openExport();
      return;
    case "compact":
      if (!state.selectedSessionId) state.notify({ level: "error", message: "Select a session to compact." });
      else await state.previewCompaction();
      return;
    case "prune":
      if (!state.selectedSessionId) state.notify({ level: "error", message: "Select a session to prune." });
      else await state.previewPrune();
      return;
    case "go-to-leaf":
      await state.selectEntry(null);
      requestAnimationFrame(centreOnViewLeaf);
      return;
    case "open-session":
      await state.loadLibrary();
      await useCanopy.getState().selectSession(command.sessionId);
      return;
    case "notify":
      state.notify({ level: command.level, message: command.message });
      return;
    case "theme":
      applyTheme(command.theme, document.documentElement);
      return;
    case "shortcuts":
      window.dispatchEvent(new Event(SHOW_SHORTCUTS_EVENT));
      return;
  }
}

export function useAppCommands(): void {
  useEffect(() => onEvent("app:command", (command) => void runAppCommand(command)), []);
}
