/**
 * The app's panes, each in its own error boundary (PaneBoundary): a pane that fails to render
 * says so in its place and the others keep working. Each boundary clears itself when what its
 * pane shows changes (the open session, the selected entry, the LLM view's data).
 */
import type { ReactNode } from "react";
import { PaneBoundary } from "./features/common/PaneBoundary.tsx";
import { useCanopy } from "./store/index.ts";

/** The LLM view: Try again fetches the view again (its data may be what tripped it). */
export function LlmViewGuard({ children }: { children: ReactNode }) {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const entryId = useCanopy((state) => state.selectedEntryId);
  const context = useCanopy((state) => state.context);
  const loadContext = useCanopy((state) => state.loadContext);
  return (
    <PaneBoundary
      failure="The LLM view could not be drawn for this entry."
      resetKeys={[sessionId, entryId, context]}
      onRetry={() => sessionId && void loadContext(sessionId, entryId ?? undefined)}
    >
      {children}
    </PaneBoundary>
  );
}

/** The tree canvas and the session's bars around it. */
export function TreeGuard({ children }: { children: ReactNode }) {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const tree = useCanopy((state) => state.tree);
  return (
    <PaneBoundary failure="The session tree could not be drawn." resetKeys={[sessionId, tree]}>
      {children}
    </PaneBoundary>
  );
}

/** A pane that shows the same thing whatever is open (library, settings, composer, dialogs). */
export function PaneGuard({ failure, children }: { failure: string; children: ReactNode }) {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  return (
    <PaneBoundary failure={failure} resetKeys={[sessionId]}>
      {children}
    </PaneBoundary>
  );
}
