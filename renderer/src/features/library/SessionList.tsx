/**
 * The sessions in the library grouped by project (cwd): title or first message, the first
 * message, file size, last modified, compactions. Groups fold; the open session stays marked.
 * A filter (title, first message, folder) and a sort order narrow a big library down.
 * Each session can be deleted from the library (asked first; its file is never touched).
 * Only the rows near the visible part of the sidebar are rendered (common/use-visible-chunks.ts), so a
 * library of thousands of sessions opens and scrolls as fast as a small one; each row still says
 * its place in its group (aria-posinset/setsize), and the arrow keys move between rows.
 */
import { type KeyboardEvent, memo, useMemo, useState } from "react";
import type { SessionSummary } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { EDIT_BUSY_TEXT } from "../edits/edit-unavailable.ts";
import { DeleteConfirm } from "./DeleteConfirm.tsx";
import { loadFoldedProjects, saveFoldedProjects } from "./folded-projects.ts";
import {
  filterSessions,
  formatAge,
  formatSize,
  groupByProject,
  SESSION_SORTS,
  type SessionSort,
} from "./library-format.ts";
import { useVisibleChunks, type VisibleChunkOptions } from "../common/use-visible-chunks.ts";

/**
 * What the filter looks in: the box's name and tooltip. Its placeholder ("Filter list") is
 * short enough to show whole in the narrow window's 230 px sidebar.
 */
const FILTER_HINT = "Filter the list by title, first message, folder, file name or session id";

/** Rows per chunk: a chunk is rendered or left out as a whole. */
const CHUNK_ROWS = 10;
/** A row is about 68 px (title, meta line, gap); chunks within 900 px of the view are rendered,
 * and before the observer answers those in the first 1,600 px. An open delete confirmation keeps
 * its chunk. */
const CHUNKS: VisibleChunkOptions = {
  rowPx: 68,
  marginPx: 900,
  firstScreenPx: 1600,
  keep: (chunk) => chunk.querySelector(".delete-confirm") !== null,
};
/** Height of a project heading and the gap below it, for placing chunks before they are measured. */
const HEADING_PX = 30;

/**
 * ArrowUp/ArrowDown move the focus between the rows and headings of the list. Rows not rendered
 * yet (keys faster than the list renders what comes near) are rendered first: the focus goes to
 * the next row, not past them to the next rendered one, however far.
 */
function moveFocus(event: KeyboardEvent<HTMLElement>, renderNow: (placeholder: Element) => void): void {
  const keys: Record<string, number> = { ArrowDown: 1, ArrowUp: -1 };
  const step = keys[event.key];
  if (step === undefined || !(event.target instanceof HTMLElement)) return;
  const stopsIn = (root: Element) => [
    ...root.querySelectorAll<HTMLElement>(".project-heading button, button.session, [data-placeholder]"),
  ];
  const stops = stopsIn(event.currentTarget);
  const at = stops.indexOf(event.target);
  if (at < 0) return;
  let next = stops[at + step];
  if (next?.dataset.placeholder !== undefined) {
    // The same element holds the chunk's rows once rendered.
    renderNow(next);
    const rows = stopsIn(next);
    next = step > 0 ? rows[0] : rows.at(-1);
  }
  if (!next) return;
  event.preventDefault();
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}

/** The name a session goes by in the list, the delete confirmation and the notice. */
export function displayTitle(session: SessionSummary): string {
  return showBidiControls(session.title ?? session.firstMessage);
}

/** Longest title (or first message) the delete confirmation and its notices name a session by. */
const NAMED_TITLE_CHARS = 120;

/** `title` whole when at most `max` characters, else its first `max` and "…". */
function cutTitle(title: string, max: number): string {
  return title.length > max ? `${title.slice(0, max)}…` : title;
}

/**
 * The name a session goes by in a sentence (the delete confirmation, its notices): a long first
 * message (a pasted prompt) is cut, as a whole one made the confirmation taller than the window.
 */
export function namedTitle(session: SessionSummary): string {
  return cutTitle(displayTitle(session), NAMED_TITLE_CHARS);
}

function DeleteButton({ session }: { session: SessionSummary }) {
  const askDelete = useCanopy((state) => state.askDelete);
  const busy = useCanopy((state) => state.editBusy);
  const title = namedTitle(session);
  return (
    <button
      type="button"
      className="session-delete"
      aria-label={`Delete “${title}” from the library`}
      title={busy ? EDIT_BUSY_TEXT : "Delete from the library (the file stays)"}
      disabled={busy}
      onClick={() => askDelete({ sessionId: session.id, title })}
    >
      ×
    </button>
  );
}

/** Why the session's file needs the user's attention, in the row's tooltip (none: nothing does). */
const FILE_STATE_TEXT: Record<NonNullable<SessionSummary["fileState"]>, string> = {
  gone: "its file is gone (moved or deleted)",
  not_a_session: "its file is no longer a session file",
  kept: "only copy: its file is gone and the library copy was kept",
};

/**
 * Tree problems, malformed lines and a file gone or no longer a session file: what the session's
 * problems list shows once opened (a kept copy is not a problem any more).
 */
function problemsOf(session: SessionSummary): number {
  const fileProblem = session.fileState === "gone" || session.fileState === "not_a_session" ? 1 : 0;
  return session.problemCount + session.malformedCount + fileProblem;
}

/** Longest title (or first message) a row's tooltip gives. */
const TOOLTIP_TITLE_CHARS = 300;

/** A title as a tooltip's first line: whole, up to a point (the row or hit cuts it). */
export function tooltipTitle(title: string): string {
  return cutTitle(title, TOOLTIP_TITLE_CHARS);
}

function SessionButton({ session, selected }: { session: SessionSummary; selected: boolean }) {
  const selectSession = useCanopy((state) => state.selectSession);
  const title = displayTitle(session);
  const details = [
    // The row cuts a long title (or first message): the tooltip says it whole, up to a point.
    tooltipTitle(title),
    session.sourcePath ?? "no source file",
    `created ${session.created}`,
    `modified ${session.modified}`,
    `${counted(session.entryCount, "entry", "entries")}, ${counted(session.messageCount, "message")}, ${counted(session.branchSummaryCount, "branch summary", "branch summaries")}`,
    problemsOf(session) > 0 ? counted(problemsOf(session), "problem") : "",
    session.fileState ? FILE_STATE_TEXT[session.fileState] : "",
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
        {problemsOf(session) > 0 && (
          <span
            className="badge warn"
            title={
              session.fileState && session.fileState !== "kept"
                ? FILE_STATE_TEXT[session.fileState]
                : undefined
            }
          >
            {counted(problemsOf(session), "problem")}
          </span>
        )}
        {session.fileState === "kept" && (
          <span className="badge" title={FILE_STATE_TEXT.kept}>
            only copy
          </span>
        )}
      </span>
    </button>
  );
}

/** Memoized: a chunk coming into view re-renders the list, not the rows already there. */
const SessionRow = memo(function SessionRow({ session, selected, confirming, position, size }: {
  session: SessionSummary;
  selected: boolean;
  confirming: boolean;
  position: number;
  size: number;
}) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: an item of the chunked list (see SessionList)
    <div role="listitem" className="session-item" aria-posinset={position} aria-setsize={size}>
      <SessionButton session={session} selected={selected} />
      <DeleteButton session={session} />
      {confirming && <DeleteConfirm />}
    </div>
  );
});

export function SessionList() {
  const sessions = useCanopy((state) => state.sessions);
  const selected = useCanopy((state) => state.selectedSessionId);
  const loaded = useCanopy((state) => state.libraryLoaded);
  const confirming = useCanopy((state) => state.deleteConfirm?.sessionId ?? null);
  const [folded, setFolded] = useState<ReadonlySet<string>>(loadFoldedProjects);
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<SessionSort>("modified");
  const groups = useMemo(() => groupByProject(filterSessions(sessions, filter), sort), [sessions, filter, sort]);
  const shown = groups.reduce((sum, group) => sum + group.sessions.length, 0);
  const chunks = useVisibleChunks(CHUNKS);

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
    saveFoldedProjects(next);
  };
  // Where each chunk would start if nothing were measured yet: decides the first screen's rows.
  let top = 0;
  return (
    <nav
      className="session-groups"
      aria-label="Sessions by project"
      ref={chunks.rootRef}
      onKeyDown={(event) => moveFocus(event, chunks.renderNow)}
    >
      <div className="session-list-controls">
        <input
          type="search"
          className="session-filter"
          aria-label={FILTER_HINT}
          placeholder="Filter list"
          title={FILTER_HINT}
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
            ? `No session matches “${filter.trim()}” (title, first message, folder, file name or id).`
            : `${shown} of ${counted(sessions.length, "session")}`}
        </p>
      )}
      {groups.map((group) => {
        const open = !folded.has(group.cwd);
        const listId = `project-${encodeURIComponent(group.cwd)}`;
        top += HEADING_PX;
        const size = group.sessions.length;
        const parts: SessionSummary[][] = [];
        if (open) for (let at = 0; at < size; at += CHUNK_ROWS) parts.push(group.sessions.slice(at, at + CHUNK_ROWS));
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
                <span className="count">{size}</span>
              </button>
            </h2>
            {open && (
              // A <ul> may hold only <li>: the chunks (rendered rows or a placeholder) sit between
              // the list and its items, which generic <div>s may.
              // biome-ignore lint/a11y/useSemanticElements: see above
              <div role="list" id={listId} className="session-list" aria-label={`Sessions in ${group.cwd}`}>
                {parts.map((rows, index) => {
                  const key = `${group.cwd}\u0000${index}`;
                  const first = index * CHUNK_ROWS;
                  const holdsOpen = rows.some((s) => s.id === confirming);
                  const render = holdsOpen || chunks.shown(key, top);
                  const height = chunks.height(key, rows.length);
                  top += height;
                  if (!render) {
                    return (
                      <div
                        key={key}
                        ref={chunks.refFor(key)}
                        className="session-chunk-placeholder"
                        data-placeholder=""
                        data-rows={rows.length}
                        aria-hidden="true"
                        style={{ height }}
                      />
                    );
                  }
                  return (
                    <div key={key} ref={chunks.refFor(key)} className="session-chunk" data-rows={rows.length}>
                      {rows.map((session, at) => (
                        <SessionRow
                          key={session.id}
                          session={session}
                          selected={session.id === selected}
                          confirming={confirming === session.id}
                          position={first + at + 1}
                          size={size}
                        />
                      ))}
                    </div>
                  );
                })}
              </div>
            )}
          </section>
        );
      })}
    </nav>
  );
}
