/**
 * Full-text search across every session (FTS, `library:search`). A hit opens its session with
 * the matching entry selected, so the tree shows it and the LLM view previews there.
 */
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { searchIndexingNote } from "../../../../core/api/contract.ts";
import { searchSyntaxNote } from "../../../../core/text/search-syntax.ts";
import type { SearchHit, SessionSummary } from "../../../../core/api/dto.ts";
import { useCanopy } from "../../store/index.ts";
import { showBidiControls } from "../common/bidi-controls.ts";
import { snippetPieces } from "./library-format.ts";
import { tooltipTitle } from "./SessionList.tsx";

const DEBOUNCE_MS = 250;

/**
 * One hit. Two sessions can share a title (a demo copy and the imported file, or a fork), so a hit
 * carries the session's demo badge and its source file in the tooltip, as the session list does.
 */
function HitButton({ hit, title, session }: { hit: SearchHit; title: string; session: SessionSummary | undefined }) {
  const openSearchHit = useCanopy((state) => state.openSearchHit);
  return (
    <button
      type="button"
      className="search-hit"
      // The hit cuts a long title: the tooltip starts with it whole, as a session row's does.
      title={[
        tooltipTitle(title),
        ...(session ? [session.sourcePath ?? "no source file"] : []),
        `session ${hit.sessionId}`,
      ].join("\n")}
      data-hit-session-id={hit.sessionId}
      data-hit-entry-id={hit.entryId}
      onClick={() => void openSearchHit(hit)}
    >
      <span className="hit-head">
        <span className="hit-title">{showBidiControls(title)}</span>
        {session?.isDemo && <span className="badge">demo</span>}
        {hit.role && <span className="hit-role">{hit.role === "toolResult" ? "tool result" : hit.role}</span>}
      </span>
      <span className="hit-snippet">
        {snippetPieces(hit.snippet).map((piece, index) =>
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one snippet never reorder
          piece.match ? <mark key={index}>{piece.text}</mark> : <span key={index}>{piece.text}</span>,
        )}
      </span>
    </button>
  );
}

/**
 * ArrowDown/ArrowUp move the focus from the search box to the hits and between them (up from the
 * first hit, back into the box), as they do between the session list's rows.
 */
function moveBetweenHits(event: KeyboardEvent<HTMLElement>): void {
  const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
  if (step === 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const stops = [...event.currentTarget.querySelectorAll<HTMLElement>("#library-search, button.search-hit")];
  const at = stops.indexOf(event.target as HTMLElement);
  const next = at < 0 ? undefined : stops[at + step];
  if (!next) return;
  event.preventDefault();
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}

export function LibrarySearch() {
  const hits = useCanopy((state) => state.searchHits);
  const indexing = useCanopy((state) => state.searchIndexing);
  const searching = useCanopy((state) => state.searching);
  const error = useCanopy((state) => state.searchError);
  const query = useCanopy((state) => state.searchQuery);
  const sessions = useCanopy((state) => state.sessions);
  const search = useCanopy((state) => state.search);
  const [text, setText] = useState(query);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const change = (value: string) => {
    setText(value);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void search(value), DEBOUNCE_MS);
  };
  const sessionOf = (hit: SearchHit) => sessions.find((session) => session.id === hit.sessionId);
  const titleOf = (hit: SearchHit) => hit.sessionTitle ?? sessionOf(hit)?.firstMessage ?? hit.sessionId;

  return (
    <search className="library-search" onKeyDown={moveBetweenHits}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (timer.current) clearTimeout(timer.current);
          void search(text);
        }}
      >
        <label htmlFor="library-search">Search all sessions</label>
        <div className="row">
          <input
            id="library-search"
            type="search"
            value={text}
            placeholder="words in any message"
            spellCheck={false}
            onChange={(event) => change(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape" && text !== "") {
                // Clearing the search is what Escape means here, not cancelling a running job.
                event.stopPropagation();
                change("");
              }
            }}
          />
        </div>
      </form>
      <div className="search-results" aria-live="polite">
        {searching && <p className="empty">Searching…</p>}
        {error && <p className="error">{error}</p>}
        {indexing && !searching && (
          <p className="search-indexing" role="status">
            {searchIndexingNote(indexing)}
          </p>
        )}
        {hits && hits.length === 0 && !searching && <p className="empty">No message matches “{query}”.</p>}
        {hits && !searching && searchSyntaxNote(query) && (
          <p className="empty" data-testid="search-syntax-note">
            {searchSyntaxNote(query)}
          </p>
        )}
        {hits && hits.length > 0 && (
          <>
            <p className="hit-count">
              {hits.length === 50 ? "First 50" : hits.length} match{hits.length === 1 ? "" : "es"}
            </p>
            <ul className="search-hits" aria-label="Search results">
              {hits.map((hit) => (
                <li key={`${hit.sessionId}:${hit.entryId}`}>
                  <HitButton hit={hit} title={titleOf(hit)} session={sessionOf(hit)} />
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </search>
  );
}
