/**
 * The application shell: library sidebar on the left, the session tree in the middle, and what
 * the model sees at the selected leaf on the right. Escape cancels running work.
 */
import { useEffect } from "react";
import { onEvent } from "./api.ts";
import { CompactionPanel } from "./features/compaction/CompactionPanel.tsx";
import { JobMessage } from "./features/compaction/JobMessage.tsx";
import { LibrarySidebar } from "./features/library/LibrarySidebar.tsx";
import { LlmView } from "./features/llm-view/LlmView.tsx";
import { SettingsPanel } from "./features/settings/SettingsPanel.tsx";
import { TreePanel } from "./features/tree/TreePanel.tsx";
import { useCanopy } from "./store/index.ts";
import { useRouteSync } from "./use-route-sync.ts";

export function App() {
  const loadLibrary = useCanopy((state) => state.loadLibrary);
  const jobText = useCanopy((state) => state.jobText);
  const cancelRunning = useCanopy((state) => state.cancelRunning);
  useRouteSync();

  useEffect(() => {
    void loadLibrary();
    const offProgress = onEvent("job:progressed", (payload) => {
      if (payload.text !== undefined) jobText(payload.text);
    });
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") void cancelRunning();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      offProgress();
      window.removeEventListener("keydown", onKey);
    };
  }, [loadLibrary, jobText, cancelRunning]);

  return (
    <div className="app">
      <aside className="sidebar">
        <h1>Canopy</h1>
        <LibrarySidebar />
        <SettingsPanel />
      </aside>
      <main className="center">
        <div className="actions">
          <CompactionPanel />
          <JobMessage />
        </div>
        <TreePanel />
      </main>
      <section className="right" aria-label="LLM view">
        <LlmView />
      </section>
    </div>
  );
}
