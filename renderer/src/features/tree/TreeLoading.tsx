/**
 * What the tree panel says while a session's tree loads: the stage (fetching, then laying out),
 * how many entries the session has, and the seconds so far, so a big session never looks stuck.
 */
import { useCanopy } from "../../store/index.ts";
import { useNow } from "../common/use-now.ts";

export function TreeLoading() {
  const load = useCanopy((state) =>
    state.treeLoad?.sessionId === state.selectedSessionId ? state.treeLoad : null,
  );
  const entries = useCanopy(
    (state) => state.sessions.find((session) => session.id === state.selectedSessionId)?.entryCount ?? null,
  );
  const now = useNow();
  const count = entries === null ? "" : ` of ${entries.toLocaleString("en-US")} entries`;
  const seconds = load ? Math.max(0, Math.floor((now - load.startedAt) / 1000)) : 0;
  const text =
    load?.stage === "laying-out"
      ? `Laying out the session tree${count}…`
      : `Loading the session tree${count}…`;
  return (
    <p
      className="empty tree-loading"
      data-testid="tree-loading"
      data-stage={load?.stage ?? "fetching"}
      aria-live="polite"
    >
      {text}
      {seconds > 0 ? ` ${seconds} s` : ""}
    </p>
  );
}
