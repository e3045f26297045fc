/**
 * The application shell: library sidebar on the left, the session tree in the middle with the
 * composer below it, and what the model sees at the selected leaf on the right. Escape cancels
 * running work (the chat turn, compaction or branch summary of the open session, whichever
 * window started it, or an import). Files dropped on the window are imported (desktop app); the
 * desktop menu's commands arrive as app:command. "?" lists the keyboard shortcuts. Each pane
 * sits in an error boundary (guarded-panes.tsx): one that fails to render says so in its place.
 */
import { useEffect } from "react";
import { onEvent, onEventsConnected } from "./api.ts";
import { Composer } from "./features/chat/Composer.tsx";
import { Notice } from "./features/chat/Notice.tsx";
import { useAppCommands } from "./features/chat/use-app-commands.ts";
import { useChatEvents } from "./features/chat/use-chat-events.ts";
import { useFileDrop } from "./features/chat/use-file-drop.ts";
import { CompactionPanel } from "./features/compaction/CompactionPanel.tsx";
import { JobMessage } from "./features/compaction/JobMessage.tsx";
import { WriteWaitLine } from "./features/compaction/WriteWaitLine.tsx";
import { LibrarySidebar } from "./features/library/LibrarySidebar.tsx";
import { LlmView } from "./features/llm-view/LlmView.tsx";
import { SettingsPanel } from "./features/settings/SettingsPanel.tsx";
import { EditActions } from "./features/edits/EditActions.tsx";
import { ExportDialog } from "./features/export/ExportDialog.tsx";
import { ShortcutsHelp } from "./features/help/ShortcutsHelp.tsx";
import { TreePanel } from "./features/tree/TreePanel.tsx";
import { LlmViewGuard, PaneGuard, TreeGuard } from "./guarded-panes.tsx";
import { useCanopy } from "./store/index.ts";
import { useRouteSync } from "./use-route-sync.ts";

export function App() {
  const loadLibrary = useCanopy((state) => state.loadLibrary);
  const jobProgressed = useCanopy((state) => state.jobProgressed);
  const jobStarted = useCanopy((state) => state.jobStarted);
  const jobEnded = useCanopy((state) => state.jobEnded);
  const jobHooks = useCanopy((state) => state.jobHooks);
  const loadRunningJobs = useCanopy((state) => state.loadRunningJobs);
  const importProgressed = useCanopy((state) => state.importProgressed);
  const cancelImport = useCanopy((state) => state.cancelImport);
  const cancelRunning = useCanopy((state) => state.cancelRunning);
  const dropping = useFileDrop();
  useRouteSync();
  useChatEvents();
  useAppCommands();

  useEffect(() => {
    void loadLibrary();
    const offProgress = onEvent("job:progressed", (payload) => {
      jobProgressed(payload);
      importProgressed(payload);
    });
    // Chat turns, compactions and branch summaries of every window: the ones running as the
    // events start flowing (a reload, a reconnect), then their starts and ends.
    const offStarted = onEvent("job:started", jobStarted);
    const offEnded = onEvent("job:ended", jobEnded);
    const offHooks = onEvent("job:hooks", jobHooks);
    const offConnected = onEventsConnected(() => void loadRunningJobs());
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      void cancelRunning();
      void cancelImport();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      offProgress();
      offStarted();
      offEnded();
      offHooks();
      offConnected();
      window.removeEventListener("keydown", onKey);
    };
  }, [
    loadLibrary,
    jobProgressed,
    jobStarted,
    jobEnded,
    jobHooks,
    loadRunningJobs,
    importProgressed,
    cancelRunning,
    cancelImport,
  ]);

  return (
    <div className={dropping ? "app dropping" : "app"}>
      <aside className="sidebar">
        <div className="sidebar-head">
          <h1>Canopy</h1>
          <ShortcutsHelp />
        </div>
        <PaneGuard failure="The session library could not be drawn.">
          <LibrarySidebar />
        </PaneGuard>
        <PaneGuard failure="The settings could not be drawn.">
          <SettingsPanel />
        </PaneGuard>
      </aside>
      <main className="center">
        {/* No taller than the column (styles.css): a line above the tree leaves the canvas in the window. */}
        <div className="center-main">
          <PaneGuard failure="The messages above the tree could not be drawn.">
            <div className="actions">
              <Notice />
              <CompactionPanel />
              <JobMessage />
              <WriteWaitLine />
            </div>
          </PaneGuard>
          <TreeGuard>
            <EditActions />
            <TreePanel />
          </TreeGuard>
        </div>
        <PaneGuard failure="The message box could not be drawn.">
          <Composer />
        </PaneGuard>
      </main>
      <section className="right" aria-label="LLM view">
        <LlmViewGuard>
          <LlmView />
        </LlmViewGuard>
      </section>
      <PaneGuard failure="The export dialog could not be drawn.">
        <ExportDialog />
      </PaneGuard>
      {dropping && (
        <div className="drop-hint" aria-hidden="true">
          Drop session files or folders to import them
        </div>
      )}
    </div>
  );
}
