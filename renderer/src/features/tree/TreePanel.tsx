/**
 * The center pane: the session tree canvas, or why there is none.
 */
import { ReactFlowProvider } from "@xyflow/react";
import { useCanopy } from "../../store/index.ts";
import { TreeCanvas } from "./TreeCanvas.tsx";
import { TreeLoading } from "./TreeLoading.tsx";

export function TreePanel() {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const loaded = useCanopy((state) => state.tree !== null);
  const error = useCanopy((state) => state.treeError);
  return (
    <section className="tree-panel" aria-label="Session tree">
      {error ? (
        <p className="error" role="alert">
          The session tree could not be loaded: {error}
        </p>
      ) : !sessionId ? (
        <p className="empty">Select a session to see its tree.</p>
      ) : !loaded ? (
        <TreeLoading />
      ) : (
        <ReactFlowProvider>
          <TreeCanvas />
        </ReactFlowProvider>
      )}
    </section>
  );
}
