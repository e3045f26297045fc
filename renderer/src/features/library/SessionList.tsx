/**
 * The sessions in the library grouped by project (cwd): title or first message, the first
 * message, file size, last modified, compactions. Groups fold; the open session stays marked.
 * A filter (title, first message, folder) and a sort order narrow a big library down.
 * Each session can be deleted from the library (asked first; its file is never touched).
 */
import { useMemo, useState } from "react";
import type { SessionSummary } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { DeleteConfirm } from "./DeleteConfirm.tsx";
import {
  filterSessions,
  formatAge,
  formatSize,
  groupByProject,
  SESSION_SORTS,
  type SessionSort,
} from "./library-format.ts";

/** The name a session goes by in the list, the delete confirmation and the notice. */
export function displayTitle(session: SessionSummary): string {
  return showBidiControls(session.title ?? session.firstMessage);
}

function DeleteButton({ session }: { session: SessionSummary }) {
  const askDelete = useCanopy((state) => state.askDelete);
  const busy = useCanopy((state) => state.editBusy);
  const title = displayTitle(session);
  return (
    <button
      type="button"
      className="session-delete"
      aria-label={`Delete “${title}” from the library`}
      title="Delete from the library (the file stays)"
      disabled={busy}
      onClick={() => askDelete({ sessionId: session.id, title })}
    >
      ×
    </button>
  );
}

/** Tree problems and malformed lines: what the session's problems list shows. */
function problemsOf(session: SessionSummary): number {
  return session.problemCount + session.malformedCount;
}

function SessionButton({ session, selected }: { session: SessionSummary; selected: boolean }) {
  const selectSession = useCanopy((state) => state.selectSession);
  const title = displayTitle(session);
  const details = [
    session.sourcePath ?? "no source file",
    `created ${session.created}`,
    `modified ${session.modified}`,
    `${counted(session.entryCount, "entry", "entries")}, ${counted(session.messageCount, "message")}, ${counted(session.branchSummaryCount, "branch summary", "branch summaries")}`,
    problemsOf(session) > 0 ? counted(problemsOf(session), "problem") : "",
  ].filter(Boolean);
  return (
    <button
      type="button"
      className={selected ? "session selected" : "session"}
      data-session-id={session.id}
      aria-current={selected ? "true" : undefined}
      title={details.join("\n")}
      onClick={() => void selectSession(session.id)}
    >
      <span className="session-title">{title}</span>
      {session.title !== null && (
        <span className="session-first">{showBidiControls(session.firstMessage)}</span>
      )}
      <span className="session-meta">
        <span>{formatSize(session.fileSize)}</span>
        <span>{formatAge(session.modified)}</span>
        <span>
          {counted(session.compactionCount, "compaction")}
        </span>
        <span>{counted(session.entryCount, "entry", "entries")}</span>
        {session.isDemo && <span className="badge">demo</span>}
        {problemsOf(session) > 0 && <span className="badge warn">{counted(problemsOf(session), "problem")}</span>}
      </span>
    </button>
  );
}

export function SessionList() {
  const sessions = useCanopy((state) => state.sessions);
  const selected = useCanopy((state) => state.selectedSessionId);
  const loaded = useCanopy((state) => state.libraryLoaded);
  const confirming = useCanopy((state) => state.deleteConfirm?.sessionId ?? null);
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<SessionSort>("modified");
  const groups = useMemo(() => groupByProject(filterSessions(sessions, filter), sort), [sessions, filter, sort]);
  const shown = groups.reduce((sum, group) => sum + group.sessions.length, 0);

  if (!loaded) return <p className="empty">Loading library…</p>;
  if (sessions.length === 0) {
    return (
      <p className="empty">
        No sessions yet. Import a .jsonl file or a sessions folder above, or scan the agent folders.
      </p>
    );
  }
  const toggle = (cwd: string) => {
    const next = new Set(folded);
    if (next.has(cwd)) next.delete(cwd);
    else next.add(cwd);
    setFolded(next);
  };
  return (
    <nav className="session-groups" aria-label="Sessions by project">
      <div className="session-list-controls">
        <input
          type="search"
          className="session-filter"
          aria-label="Filter the list by title, first message or folder"
          placeholder="Filter: title, first message, folder"
          value={filter}
          spellCheck={false}
          onChange={(event) => setFilter(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape" && filter !== "") {
              event.stopPropagation();
              setFilter("");
            }
          }}
        />
        <select
          aria-label="Sort sessions by"
          value={sort}
          onChange={(event) => setSort(event.target.value as SessionSort)}
        >
          {SESSION_SORTS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {filter.trim() !== "" && (
        <p className="session-filter-count" role="status">
          {shown === 0
            ? `No session's title, first message or folder contains “${filter.trim()}”.`
            : `${shown} of ${counted(sessions.length, "session")}`}
        </p>
      )}
      {groups.map((group) => {
        const open = !folded.has(group.cwd);
        const listId = `project-${encodeURIComponent(group.cwd)}`;
        return (
          <section key={group.cwd} className="project-group" data-project={group.cwd}>
            <h2 className="project-heading">
              <button
                type="button"
                aria-expanded={open}
                aria-controls={listId}
                title={group.cwd}
                onClick={() => toggle(group.cwd)}
              >
                <span className="chevron" aria-hidden="true">
                  {open ? "▾" : "▸"}
                </span>
                <span className="project-name">{showBidiControls(group.name)}</span>
                <span className="count">{group.sessions.length}</span>
              </button>
            </h2>
            {open && (
              <ul id={listId} className="session-list" aria-label={`Sessions in ${group.cwd}`}>
                {group.sessions.map((session) => (
                  <li key={session.id} className="session-item">
                    <SessionButton session={session} selected={session.id === selected} />
                    <DeleteButton session={session} />
                    {confirming === session.id && <DeleteConfirm />}
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </nav>
  );
}
