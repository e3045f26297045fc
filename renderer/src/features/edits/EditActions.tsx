/**
 * Issue 6: safe edits of the entry selected on the canvas (else the view leaf) — edit a user or
 * custom message as a new branch, fork to a new session, undo a compaction or branch summary,
 * archive/restore its branch, set/clear its label — and Undo/Redo of Canopy's own edits
 * (Ctrl+Z / Ctrl+Shift+Z, not while typing; a press while an edit runs waits its turn; disabled
 * with nothing to undo/redo, titled with what they would do). A label saved while an edit runs
 * waits its turn too, and says so; while a compaction or branch summary runs, the outcome line
 * says why it is not set. Nothing is ever rewritten in place.
 * A button's edit (or Ctrl+Z on a button) gives the keyboard focus back once done (edit-focus.ts).
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { EditResultDto, TreeNodeDto } from "../../../../core/api/dto.ts";
import { call } from "../../api.ts";
import {
  MESSAGE_BEING_EDITED,
  MESSAGE_EMPTY,
  NO_LABEL_TYPED,
  NOTHING_TO_REDO,
  NOTHING_TO_UNDO,
  SAME_LABEL,
} from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { selectRunning } from "../../store/jobs-slice.ts";
import { ArchiveConfirm } from "./ArchiveConfirm.tsx";
import { useEditUnavailable } from "./edit-unavailable.ts";
import { isUndoRedoKey, useEditFocus } from "./edit-focus.ts";
import "./edits.css";
import { operationName } from "./operation-names.ts";
import { isTyping } from "./typing.ts";
import { entryFullText } from "../tree/entry-text.ts";
import { treeLookup, treeNode } from "../tree/tree-lookup.ts";

/** The message types "Edit as new branch" applies to. */
function isEditable(node: TreeNodeDto): boolean {
  return (node.type === "message" && node.kind === "user") || node.type === "custom_message";
}

/** The top of the archived branch an archived entry is in (what "Restore" unarchives). */
function archivedRoot(nodes: readonly TreeNodeDto[], node: TreeNodeDto): string {
  const byId = treeLookup(nodes).byId;
  let root = node;
  for (
    let parent = byId.get(root.parentId ?? "");
    parent?.archived;
    parent = byId.get(parent.parentId ?? "")
  ) {
    root = parent;
  }
  return root.id;
}

export function EditActions() {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const nodes = useCanopy((state) => state.tree?.nodes);
  const entryId = useCanopy((state) => state.selectedEntryId ?? state.tree?.viewLeafId ?? null);
  const context = useCanopy((state) => state.context);
  const busy = useCanopy((state) => state.editBusy);
  // A compaction or branch summary runs on the session (maybe another window's): the buttons are
  // unavailable, aria-disabled rather than disabled, which would drop a keyboard user's focus on
  // the page; a press does nothing meanwhile.
  const jobRunning = useCanopy((state) => selectRunning(state) !== null);
  // Why the buttons are unavailable (a job, another edit): their tooltip and accessible description.
  const unavailable = useEditUnavailable() ?? undefined;
  const history = useCanopy((state) =>
    state.tree?.sessionId === state.selectedSessionId ? state.tree?.history : undefined,
  );
  const lastDeleted = useCanopy((state) => state.lastDeleted);
  // Right after a fork, in the new session with no edit of its own, Ctrl+Z undoes the fork.
  const forkUndoable = useCanopy(
    (state) => state.lastFork !== null && state.lastFork.forkSessionId === state.selectedSessionId,
  );
  const [editing, setEditing] = useState<{ entryId: string; text: string } | null>(null);
  const [label, setLabel] = useState("");
  // The label saved last, until its edit is over (`waits`: saved while another edit ran).
  const [savingLabel, setSavingLabel] = useState<{ key: string; waits: boolean } | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const refocusEditButton = useRef(false);
  const toolbar = useRef<HTMLDivElement>(null);
  const track = useEditFocus(toolbar);

  const node = treeNode(nodes, entryId);
  const nodeLabel = node?.label ?? "";

  // Another entry selected: the box shows its label, not what was typed for the previous one.
  const nodeId = node?.id;
  // biome-ignore lint/correctness/useExhaustiveDependencies: nodeId is what resets the box
  useEffect(() => setLabel(nodeLabel), [nodeId, nodeLabel]);
  useEffect(() => {
    if (editing && editing.entryId !== entryId) setEditing(null);
  }, [editing, entryId]);
  useEffect(() => {
    // The button is disabled while the box is open, so it takes the focus back once re-enabled.
    if (editing !== null || !refocusEditButton.current) return;
    refocusEditButton.current = false;
    editButton.current?.focus();
  }, [editing]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isUndoRedoKey(event)) return;
      if (isTyping(event.target)) return;
      event.preventDefault();
      const state = useCanopy.getState();
      // Each press counts: one made while an edit runs waits its turn (edits-slice pressUndoRedo).
      // A held key's repeats are not presses: they undo only while nothing runs.
      if (event.repeat && state.editBusy) return;
      // With the focus on Undo (or any edit button), the key disables it too while it runs.
      void track(() => state.pressUndoRedo(event.shiftKey ? "redo" : "undo"));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [track]);

  if (!sessionId || !nodes) return null;
  const actions = useCanopy.getState();
  // Ctrl+Z after a delete restores that session first (edits-slice undoEdit).
  const undoTitle = lastDeleted
    ? `Undo delete of “${lastDeleted.title}”`
    : history?.undo
      ? `Undo ${operationName(history.undo)}`
      : forkUndoable && history
        ? `Undo ${operationName("fork")} (back to the original session)`
        : null;
  const redoTitle = history?.redo ? `Redo ${operationName(history.redo)}` : null;

  /** A button's action, or while a job runs the outcome line saying why it did nothing (once). */
  const unlessJob = (name: string, act: () => void) => () => {
    if (jobRunning) actions.refuseDuringJob(`${name} did nothing`);
    else act();
  };
  /**
   * A button of one edit of the entry, named `name`: off while an edit runs; while a job runs,
   * unavailable (the reason its title) and a press says it did nothing (`refusedBy: "edit"`: the
   * edit itself refuses, with its own line). The archive button is the one the archive question
   * (ArchiveConfirm) gives the focus back to.
   */
  const entryButton = (
    focusKey: string,
    name: string,
    edit: () => Promise<EditResultDto | null>,
    options: { refusedBy?: "edit" } = {},
  ) => {
    const press = () => void track(edit);
    return (
      <button
        type="button"
        data-archive-button={focusKey === "archive" || undefined}
        data-focus-key={focusKey}
        disabled={busy}
        aria-disabled={jobRunning}
        title={unavailable}
        onClick={options.refusedBy === "edit" ? press : unlessJob(name, press)}
      >
        {name}
      </button>
    );
  };
  const closeEditor = () => {
    refocusEditButton.current = true;
    setEditing(null);
  };
  // The tree has only the text's beginning: the box opens with the whole message or not at all.
  const openEditor = async (target: TreeNodeDto) => {
    let text: string | null = null;
    try {
      text = await entryFullText(target, context, (leafId) =>
        call("context:get", { sessionId, leafId, agentMessages: false }),
      );
    } catch (error) {
      actions.notify({ level: "error", message: `Cannot read the message to edit: ${(error as Error).message}` });
      return;
    }
    if (text === null) {
      actions.notify({ level: "error", message: "Cannot edit this entry: it is not a message the model sees." });
      return;
    }
    if (useCanopy.getState().selectedSessionId === sessionId) setEditing({ entryId: target.id, text });
  };
  const onSave = (event: FormEvent) => {
    event.preventDefault();
    if (!editing || editing.text.trim() === "") return;
    if (jobRunning) {
      actions.refuseDuringJob("Save as new branch did nothing");
      return;
    }
    const { entryId: target, text } = editing;
    // The box goes with its focused Save button (closed already as the new entry got selected):
    // Save shares Edit's focus key, so Edit takes the focus back once the edit has landed.
    void track(async () => {
      const result = await actions.editMessage(target, text);
      if (result) setEditing(null);
      return result;
    });
  };
  const onLabel = (event: FormEvent) => {
    event.preventDefault();
    // While a compaction or branch summary runs it is refused, and the outcome line says why (the
    // text typed stays in the field).
    if (!node) return;
    const trimmed = label.trim();
    // Enter again on the label being saved: it is under way already.
    const key = `${node.id}\n${trimmed}`;
    if (savingLabel?.key === key) return;
    setSavingLabel({ key, waits: useCanopy.getState().editBusy });
    void track(() =>
      actions.setLabel(node.id, trimmed === "" ? null : trimmed).finally(() => {
        setSavingLabel((saving) => (saving?.key === key ? null : saving));
      }),
    );
  };

  return (
    <div
      ref={toolbar}
      className="edit-actions"
      role="toolbar"
      aria-label="Edit session"
      data-testid="edit-actions"
    >
      <div className="edit-row">
        <span className="edit-target" data-testid="edit-target">
          {node ? `${node.id.slice(0, 8)} · ${node.kind}` : "No entry"}
        </span>
        {node && isEditable(node) && (
          <button
            ref={editButton}
            type="button"
            data-focus-key="edit-message"
            disabled={busy || editing !== null}
            aria-disabled={jobRunning}
            title={unavailable ?? (editing !== null ? MESSAGE_BEING_EDITED : undefined)}
            onClick={unlessJob("Edit as new branch", () => void openEditor(node))}
          >
            Edit as new branch
          </button>
        )}
        {node && entryButton("fork", "Fork to new session", () => actions.forkAt(node.id))}
        {(node?.type === "compaction" || node?.type === "branch_summary") &&
          entryButton(
            "undo-summary",
            node.type === "compaction" ? "Undo compaction" : "Undo branch summary",
            () => actions.undoSummary(node.id),
          )}
        {node &&
          (node.archived
            ? entryButton("archive", "Restore branch", () => actions.restoreBranch(archivedRoot(nodes, node)))
            : entryButton("archive", "Archive branch", () => actions.archiveBranch(node.id)))}
        {node && (
          <form className="edit-label" onSubmit={onLabel}>
            <input
              aria-label="Label"
              placeholder="Label"
              value={label}
              onChange={(event) => setLabel(event.target.value)}
            />
            {/* Not disabled while an edit runs: Enter (or a click) then saves once it is done. */}
            <button
              type="submit"
              data-focus-key="set-label"
              disabled={label.trim() === nodeLabel}
              aria-disabled={jobRunning}
              title={
                jobRunning
                  ? unavailable
                  : label.trim() === nodeLabel
                    ? nodeLabel === ""
                      ? NO_LABEL_TYPED
                      : SAME_LABEL
                    : undefined
              }
            >
              Set label
            </button>
            {savingLabel?.waits && (
              <span className="edit-waits" role="status" data-testid="label-waits">
                Set once the edit running now is done…
              </span>
            )}
            {nodeLabel !== "" &&
              // While a job runs, refused with the reason on the outcome line (edits-slice setLabel).
              entryButton("clear-label", "Clear label", () => actions.setLabel(node.id, null), {
                refusedBy: "edit",
              })}
          </form>
        )}
        <span className="edit-history">
          <button
            type="button"
            data-focus-key="undo"
            disabled={busy || undoTitle === null}
            aria-disabled={jobRunning}
            onClick={unlessJob("Undo", () => void track(() => actions.undoEdit()))}
            title={unavailable ?? (undoTitle === null ? NOTHING_TO_UNDO : `${undoTitle} (Ctrl+Z)`)}
          >
            Undo
          </button>
          <button
            type="button"
            data-focus-key="redo"
            disabled={busy || redoTitle === null}
            aria-disabled={jobRunning}
            onClick={unlessJob("Redo", () => void track(() => actions.redoEdit()))}
            title={unavailable ?? (redoTitle === null ? NOTHING_TO_REDO : `${redoTitle} (Ctrl+Shift+Z)`)}
          >
            Redo
          </button>
        </span>
      </div>
      {editing && (
        <form className="edit-message" onSubmit={onSave}>
          <textarea
            aria-label="Edited message"
            // biome-ignore lint/a11y/noAutofocus: the box opens to be typed in; Escape closes it
            autoFocus
            // The caret at the end of the text (where a change is usually typed), its end in view.
            onFocus={(event) => {
              const area = event.currentTarget;
              if (area.selectionStart !== 0 || area.selectionEnd !== 0) return;
              area.setSelectionRange(area.value.length, area.value.length);
              area.scrollTop = area.scrollHeight;
            }}
            rows={4}
            value={editing.text}
            onChange={(event) => setEditing({ ...editing, text: event.target.value })}
            onKeyDown={(event) => {
              if (event.key !== "Escape") return;
              // Closing the box is what Escape means here, not cancelling a running job.
              event.stopPropagation();
              closeEditor();
            }}
          />
          <div className="edit-row">
            <button
              type="submit"
              data-focus-key="edit-message"
              disabled={busy || editing.text.trim() === ""}
              aria-disabled={jobRunning}
              title={unavailable ?? (editing.text.trim() === "" ? MESSAGE_EMPTY : undefined)}
            >
              Save as new branch
            </button>
            <button type="button" onClick={closeEditor}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ArchiveConfirm track={track} />
    </div>
  );
}
