/**
 * The outcome of the last compaction or navigation, with Retry for a branch summary the model
 * failed or that was refused (the view leaf moved meanwhile) (the button goes once pressed: its focus goes to the entry moved to, in the tree).
 * (The composer a navigation to a user message fills lives in features/chat/Composer.tsx.)
 */
import type { MouseEvent } from "react";
import { useCanopy } from "../../store/index.ts";
import { selectLayout } from "../tree/selectors.ts";
import { focusTreeNode } from "../tree/use-canvas-viewport.ts";

export function JobMessage() {
  const message = useCanopy((state) => state.jobMessage);
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const retryNavigation = useCanopy((state) => state.retryNavigation);
  if (!message) return null;
  // A failed branch summary of the open session can be asked again, as it was asked.
  const retry = message.retry?.sessionId === sessionId;
  const line = (
    <p
      className={`job-message ${message.kind === "error" ? "error" : "ok"}`}
      role={message.kind === "error" ? "alert" : "status"}
      data-testid="job-message"
    >
      {message.text}
    </p>
  );
  if (!retry) return line;
  const onRetry = (event: MouseEvent<HTMLButtonElement>) => {
    const pressed = document.activeElement === event.currentTarget;
    const targetId = message.retry?.targetId ?? "";
    void retryNavigation();
    // As after the move dialog: the keys go on in the tree, from the entry the leaf moves to.
    if (!pressed) return;
    const layoutId = selectLayout(useCanopy.getState())?.nodeOfEntry(targetId) ?? "";
    focusTreeNode(document.querySelector<HTMLElement>("[data-testid=tree-canvas]"), layoutId);
  };
  return (
    <div className="row">
      {line}
      <button type="button" onClick={onRetry}>
        Retry the branch summary
      </button>
    </div>
  );
}
