/**
 * The LLM view (SPEC D4): exactly the messages the model receives at the selected entry (or the
 * view leaf), in order — role, source entry, token estimate and body — under the context bar, with
 * a diff mode, and what the request to the model adds or leaves out marked in place (SPEC §3.6);
 * a note many messages share is said once above them (RequestNoteGroups).
 * The root carries `data-testid="llm-view"` and `data-message-count`; each message `data-role`
 * and `data-entry-id`; a tool result only the request has `data-request="added"` (no role).
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ContextView } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import { groupRequestNotes } from "../../../../core/session/request-note-groups.ts";
import { useCanopy } from "../../store/index.ts";
import { ContextBar } from "./ContextBar.tsx";
import { LlmDiff } from "./LlmDiff.tsx";
import { LlmToolbar, useViewLeafId } from "./LlmToolbar.tsx";
import { MessageList } from "./MessageList.tsx";
import { PathSettings } from "./PathSettings.tsx";
import { RequestLegend } from "./RequestLegend.tsx";
import { RequestNoteGroups } from "./RequestNoteGroups.tsx";
import "./llm-view.css";

function LeafLine({ context }: { context: ContextView }) {
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const selectEntry = useCanopy((state) => state.selectEntry);
  const viewLeafId = useViewLeafId();
  const previewing = selectedEntryId !== null && selectedEntryId !== viewLeafId;
  return (
    <p className="leaf-line">
      {previewing ? (
        <>
          Previewing at entry <code>{context.leafId ?? "(none)"}</code> as if it were the leaf.{" "}
          <button type="button" className="link-button" onClick={() => void selectEntry(null)}>
            Back to the view leaf
          </button>
        </>
      ) : (
        <>
          At the view leaf <code>{context.leafId ?? "(none)"}</code>
        </>
      )}
      {context.compactionId && (
        <>
          {" "}
          · compaction <code>{context.compactionId}</code> in effect, first kept{" "}
          <code>{context.firstKeptEntryId ?? "(not on path)"}</code>
        </>
      )}
    </p>
  );
}

export function LlmView() {
  const context = useCanopy((state) => state.context);
  const loading = useCanopy((state) => state.contextLoading);
  const error = useCanopy((state) => state.contextError);
  const selected = useCanopy((state) => state.selectedSessionId);
  const libraryEmpty = useCanopy((state) => state.libraryLoaded && state.sessions.length === 0);
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const loadContext = useCanopy((state) => state.loadContext);
  const diffMode = useCanopy((state) => state.diff !== null || state.diffLoading || state.diffError !== null);
  const section = useRef<HTMLElement>(null);
  // Where an opened "Show which" list is pinned: the top of the pane, over the messages.
  const [whichSlot, setWhichSlot] = useState<HTMLDivElement | null>(null);
  // Notes many messages share are said once above the list (each message keeps a short mark).
  const request = context?.request;
  const groups = useMemo(() => (request ? groupRequestNotes(request.changes) : []), [request]);
  const grouped = useMemo(() => new Set(groups.map((group) => group.key)), [groups]);
  // The diff is opened from the toolbar and its Close button goes with it: the focus returns to
  // the control it was opened from, not to the page's body (where a keyboard user starts over).
  const diffOpener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (diffMode) {
      diffOpener.current = active instanceof HTMLElement && section.current?.contains(active) ? active : null;
      return;
    }
    const opener = diffOpener.current;
    diffOpener.current = null;
    const lost = active === null || active === document.body;
    if (lost && opener?.isConnected && !(opener as HTMLButtonElement).disabled) opener.focus();
  }, [diffMode]);
  const shownSessionId = context?.sessionId ?? null;
  // Another session's view starts at its top (header and context bar), not at the scroll offset
  // the previous session's list was left at. A layout effect, so that the list's own scroll to a
  // selected entry (a passive effect) still comes after it.
  useLayoutEffect(() => {
    if (shownSessionId !== null) section.current?.closest(".right")?.scrollTo({ top: 0 });
  }, [shownSessionId]);

  if (!selected) {
    return (
      <p className="empty panel-state">
        {libraryEmpty
          ? "No sessions in the library yet. Import a session file or your agent folders on the left to see what the model receives."
          : "Select a session to see what the model receives."}
      </p>
    );
  }
  if (error) {
    return (
      <div className="panel-state">
        <p className="error" role="alert">
          Could not build the LLM view: {error}
        </p>
        <button type="button" onClick={() => void loadContext(selected, selectedEntryId ?? undefined)}>
          Retry
        </button>
      </div>
    );
  }
  if (!context)
    return (
      <p className="empty panel-state">
        {loading ? "Loading what the model receives…" : "No context loaded."}
      </p>
    );

  return (
    <section
      ref={section}
      className={`llm-view${loading ? " is-loading" : ""}`}
      data-testid="llm-view"
      data-session-id={context.sessionId}
      data-message-count={context.messages.length}
      data-leaf-id={context.leafId ?? ""}
      data-mode={diffMode ? "diff" : "messages"}
      aria-label="What the model receives"
      aria-busy={loading}
    >
      <header className="llm-view-header">
        <h2>
          What the model receives <span className="count">{counted(context.messages.length, "message")}</span>
        </h2>
        <LeafLine context={context} />
        <PathSettings context={context} />
        <ContextBar context={context} />
        <RequestLegend request={context.request} />
        <RequestNoteGroups groups={groups} entryIds={context.messageEntryIds} slot={whichSlot} />
        <LlmToolbar context={context} />
      </header>
      <div className="request-which-slot" ref={setWhichSlot} />
      {diffMode ? <LlmDiff /> : <MessageList context={context} grouped={grouped} />}
    </section>
  );
}
