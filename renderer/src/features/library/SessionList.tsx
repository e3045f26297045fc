/**
 * Sidebar list of the sessions in the library, with their project, size and compaction count.
 */
import { useCanopy } from "../../store/index.ts";

export function SessionList() {
  const sessions = useCanopy((state) => state.sessions);
  const selected = useCanopy((state) => state.selectedSessionId);
  const loading = useCanopy((state) => state.libraryLoading);
  const selectSession = useCanopy((state) => state.selectSession);

  if (loading && sessions.length === 0) return <p className="empty">Loading library…</p>;
  if (sessions.length === 0) {
    return <p className="empty">No sessions yet. Import a .jsonl file or a sessions folder above.</p>;
  }
  return (
    <ul className="session-list" aria-label="Sessions">
      {sessions.map((session) => (
        <li key={session.id}>
          <button
            type="button"
            className={session.id === selected ? "session selected" : "session"}
            data-session-id={session.id}
            aria-current={session.id === selected ? "true" : undefined}
            onClick={() => void selectSession(session.id)}
          >
            <span className="session-title">{session.title ?? session.firstMessage}</span>
            <span className="session-meta">
              {session.cwd} · {session.entryCount} entries · {session.compactionCount} compactions
              {session.isDemo ? " · demo" : ""}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
