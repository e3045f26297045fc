/**
 * Edits slice (issue 6): Canopy's safe edits of the open session — edit a message as a new
 * branch, fork to a new session, undo a compaction or branch summary, archive/restore a branch,
 * labels, rename — deleting a session from the library (asked first, undone by Ctrl+Z or the
 * notice), and the undo/redo of Canopy's own edits. Outcomes go to the jobs slice's message.
 */
import type { StateCreator } from "zustand";
import type { EditResultDto } from "../../../core/api/dto.ts";
import { ApiCallError, call } from "../api.ts";
import { operationName } from "../features/edits/operation-names.ts";
import type { CanopyState } from "./index.ts";
import type { JobMessage } from "./job-messages.ts";
import { selectRunning } from "./jobs-slice.ts";
import { aboutSession, sessionTitle } from "./session-outcome.ts";
import { type UndoDirection, undoPresses } from "./undo-presses.ts";

/** A session as the delete confirmation and the notice name it. */
export interface NamedSession {
  sessionId: string;
  title: string;
}

export interface EditsSlice {
  /** Show archived branches on the canvas (hidden by default). */
  showArchived: boolean;
  /** An archive that needs the user's confirmation (the branch holds the view leaf). */
  archiveConfirm: { entryId: string; message: string } | null;
  editBusy: boolean;
  setShowArchived(show: boolean): void;
  editMessage(entryId: string, text: string): Promise<EditResultDto | null>;
  forkAt(entryId: string): Promise<EditResultDto | null>;
  undoSummary(entryId: string): Promise<EditResultDto | null>;
  /** Archives the branch below an entry; asks first (archiveConfirm) when it holds the view leaf. */
  archiveBranch(entryId: string, confirm?: boolean): Promise<EditResultDto | null>;
  cancelArchive(): void;
  restoreBranch(entryId: string): Promise<EditResultDto | null>;
  setLabel(targetId: string, label: string | null): Promise<EditResultDto | null>;
  /** Renames the open session (null or blank: back to the file's own title). */
  renameSession(title: string | null): Promise<EditResultDto | null>;
  /** A delete waiting for the user's confirmation (the sidebar asks, naming the session). */
  deleteConfirm: NamedSession | null;
  /** The session deleted last: Ctrl+Z (or the notice's Undo) restores it, until another edit. */
  lastDeleted: NamedSession | null;
  /**
   * The fork made last, which opened the new session: there, with no edit of its own yet,
   * Ctrl+Z undoes the fork (recorded on the source session) and goes back to the source.
   */
  lastFork: { sourceSessionId: string; forkSessionId: string } | null;
  askDelete(session: NamedSession): void;
  cancelDelete(): void;
  /** Deletes a session from the library (its file is untouched). */
  deleteSession(session: NamedSession): Promise<EditResultDto | null>;
  /**
   * The open session left the library elsewhere (another window deleted it, or undid the fork
   * that made it): this window leaves it too, and offers Undo as after its own delete.
   */
  leaveDeletedElsewhere(session: NamedSession): Promise<void>;
  /** Brings the last deleted session back and opens it. */
  undoDelete(): Promise<EditResultDto | null>;
  /** Undoes the last delete if there is one, else the open session's last edit. */
  undoEdit(): Promise<EditResultDto | null>;
  redoEdit(): Promise<EditResultDto | null>;
  /**
   * Ctrl+Z / Ctrl+Shift+Z pressed: undoes (redoes) now, or, while an edit runs, after it and the
   * presses before it (undo-presses.ts); settles once it has run or been dropped.
   */
  pressUndoRedo(direction: UndoDirection): Promise<EditResultDto | null>;
}

export const createEditsSlice: StateCreator<CanopyState, [], [], EditsSlice> = (set, get) => {
  /** Reloads tree and LLM view; `select` picks the entry shown (null: the view leaf). */
  const refresh = async (sessionId: string, select: string | null) => {
    // Another session was opened while the edit ran: its selection and LLM view (whose request
    // this one's would outdate, leaving it loading) are not this edit's to change.
    if (get().selectedSessionId !== sessionId) return;
    set({ selectedEntryId: select });
    await Promise.all([
      get().loadTree(sessionId),
      get().loadContext(sessionId, select ?? undefined),
    ]);
  };

  const nameOf = (sessionId: string): NamedSession => ({ sessionId, title: sessionTitle(get(), sessionId) });

  /**
   * An edit's outcome line, about session `about` (null: about whatever is open, the text names
   * it). The user may have opened another session while the edit ran: the line then names the
   * session edited, or it would read as if it were about the one on screen.
   */
  const outcome = (about: string | null, message: JobMessage) => {
    set({ jobMessage: about === null ? message : aboutSession(get(), about, message) });
  };

  /**
   * Runs one edit on the open session; failures become the job message. `after` says what the
   * edit did, and which session that is about when it opened another one (a fork, a delete).
   */
  const run = async (
    what: string,
    edit: (sessionId: string) => Promise<EditResultDto>,
    after: (
      result: EditResultDto,
      sessionId: string,
    ) => Promise<string | { text: string; about: string | null }>,
  ): Promise<EditResultDto | null> => {
    const sessionId = get().selectedSessionId;
    if (!sessionId || get().editBusy || selectRunning(get())) return null;
    set({ editBusy: true, jobMessage: null });
    let ok = false;
    try {
      const result = await edit(sessionId);
      // Another edit happened: Ctrl+Z is about this session again, not the deleted one or a fork.
      if (get().lastDeleted || get().lastFork) set({ lastDeleted: null, lastFork: null });
      const said = await after(result, sessionId);
      const { text, about } = typeof said === "string" ? { text: said, about: sessionId } : said;
      outcome(about, { kind: "ok", text });
      ok = true;
      return result;
    } catch (error) {
      outcome(sessionId, { kind: "error", text: `${what} failed: ${(error as Error).message}` });
      return null;
    } finally {
      endEdit(ok);
    }
  };

  /** Leaves a deleted session: off its route, so the library opens the newest one instead. */
  const leaveDeleted = async (sessionId: string) => {
    if (get().selectedSessionId === sessionId) {
      window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}`);
      await get().selectSession(null);
    }
    await get().loadLibrary();
  };

  /** The fork Ctrl+Z undoes from the fork itself: the open session, with no edit of its own. */
  const forkToUndo = () => {
    const fork = get().lastFork;
    const tree = get().tree;
    const open = get().selectedSessionId;
    if (!fork || open !== fork.forkSessionId || tree?.sessionId !== open) return null;
    return tree.history.undo === null ? fork : null;
  };

  /** Undoes the fork from the new session: the source's last operation, if it still is that fork. */
  const undoFork = async (): Promise<EditResultDto | null> => {
    const fork = forkToUndo();
    if (!fork || get().editBusy || selectRunning(get())) return null;
    set({ editBusy: true, jobMessage: null });
    let ok = false;
    try {
      const source = await call("session:tree", { sessionId: fork.sourceSessionId });
      if (source.history.undo !== "fork") {
        const text = "The fork is no longer the original session's last edit; undo it there.";
        set({ lastFork: null, jobMessage: { kind: "error", text } });
        return null;
      }
      const result = await call("edits:undo", { sessionId: fork.sourceSessionId });
      set({ lastFork: null });
      await get().selectSession(fork.sourceSessionId);
      void get().loadLibrary();
      set({ jobMessage: { kind: "ok", text: "Undid fork: the new session left the library; Redo brings it back." } });
      ok = true;
      return result;
    } catch (error) {
      set({ jobMessage: { kind: "error", text: `Undo failed: ${(error as Error).message}` } });
      return null;
    } finally {
      endEdit(ok);
    }
  };

  /** What a Ctrl+Z (Ctrl+Shift+Z) pressed now would act on: a deleted session, the fork, or the open one. */
  const pressTarget = (direction: UndoDirection): string | null => {
    if (direction === "redo") return get().selectedSessionId;
    return get().lastDeleted?.sessionId ?? forkToUndo()?.forkSessionId ?? get().selectedSessionId;
  };
  const presses = undoPresses({
    get,
    set: (partial) => set(partial),
    target: pressTarget,
    run: (direction) => (direction === "undo" ? get().undoEdit() : get().redoEdit()),
    // Restoring a deleted session does not wait for the open session's job; every other undo does.
    blockingJob: (direction) => (direction === "undo" && get().lastDeleted ? null : selectRunning(get())),
  });
  /** An edit ended (`ok`: it went through): the next waiting Ctrl+Z runs, or they are dropped. */
  function endEdit(ok: boolean) {
    set({ editBusy: false });
    presses.next(ok);
  }

  const undoRedo = (direction: "undo" | "redo") =>
    run(
      direction === "undo" ? "Undo" : "Redo",
      (sessionId) => call(direction === "undo" ? "edits:undo" : "edits:redo", { sessionId }),
      async (result, sessionId) => {
        const left = direction === "redo" ? result.operation === "delete" : result.operation === "restore";
        if (left) {
          // The session left the library again: Ctrl+Z brings it back.
          const session = nameOf(sessionId);
          set({ lastDeleted: session });
          await leaveDeleted(sessionId);
          return { text: `Deleted “${session.title}” from the library again; Undo brings it back.`, about: null };
        }
        await refresh(sessionId, null);
        void get().loadLibrary();
        if (result.operation === null) return direction === "undo" ? "Nothing to undo." : "Nothing to redo.";
        const done = `${direction === "undo" ? "Undid" : "Redid"} ${operationName(result.operation)}.`;
        return result.note === undefined ? done : `${done} ${result.note}.`;
      },
    );

  return {
    showArchived: false,
    archiveConfirm: null,
    editBusy: false,
    deleteConfirm: null,
    lastDeleted: null,
    lastFork: null,
    setShowArchived(show) {
      set({ showArchived: show });
    },
    editMessage(entryId, text) {
      return run(
        "Editing the message",
        (sessionId) => call("edits:edit-message", { sessionId, entryId, text }),
        async (result, sessionId) => {
          await refresh(sessionId, result.entryId ?? null);
          return `Edited as a new branch: ${result.entryId ?? result.viewLeafId ?? ""} (the original stays). Continue from here (below the tree) asks the model to answer it.`;
        },
      );
    },
    forkAt(entryId) {
      return run(
        "Forking",
        (sessionId) => call("edits:fork", { sessionId, entryId }),
        async (result, sessionId) => {
          await get().loadLibrary();
          if (result.forkSessionId) {
            set({ lastFork: { sourceSessionId: sessionId, forkSessionId: result.forkSessionId } });
            await get().selectSession(result.forkSessionId);
          }
          return { text: `Forked to a new session ending at ${entryId}.`, about: result.forkSessionId ?? sessionId };
        },
      );
    },
    undoSummary(entryId) {
      return run(
        "Undoing the summary",
        (sessionId) => call("edits:undo-summary", { sessionId, entryId }),
        async (result, sessionId) => {
          await refresh(sessionId, null);
          return `Moved the view leaf before ${entryId} (to ${result.viewLeafId ?? "the start"}); Undo moves it back.`;
        },
      );
    },
    async archiveBranch(entryId, confirm) {
      set({ archiveConfirm: null });
      const sessionId = get().selectedSessionId;
      if (!sessionId || get().editBusy) return null;
      if (!confirm) {
        // Ask first when the branch holds the view leaf (the main side refuses with "conflict").
        let ok = false;
        try {
          set({ editBusy: true });
          const result = await call("edits:archive", { sessionId, entryId });
          outcome(sessionId, { kind: "ok", text: `Archived the branch below ${entryId}.` });
          await refresh(sessionId, null);
          ok = true;
          return result;
        } catch (error) {
          if (error instanceof ApiCallError && error.code === "conflict") {
            // Asked only in the session it is about: confirmed elsewhere, it would archive there.
            if (get().selectedSessionId === sessionId) set({ archiveConfirm: { entryId, message: error.message } });
            else {
              const text = `Not archived: the branch below ${entryId} holds the view leaf; archive it again there to confirm.`;
              outcome(sessionId, { kind: "error", text });
            }
          } else {
            outcome(sessionId, { kind: "error", text: `Archiving failed: ${(error as Error).message}` });
          }
          return null;
        } finally {
          endEdit(ok);
        }
      }
      return run(
        "Archiving",
        (id) => call("edits:archive", { sessionId: id, entryId, confirm: true }),
        async (_result, id) => {
          await refresh(id, null);
          return `Archived the branch below ${entryId}.`;
        },
      );
    },
    cancelArchive() {
      set({ archiveConfirm: null });
    },
    restoreBranch(entryId) {
      return run(
        "Restoring",
        (sessionId) => call("edits:unarchive", { sessionId, entryId }),
        async (_result, sessionId) => {
          await refresh(sessionId, get().selectedEntryId);
          return `Restored the branch below ${entryId}.`;
        },
      );
    },
    setLabel(targetId, label) {
      // Asked for while another edit runs (Enter in the field): it waits its turn (undo-presses.ts).
      return presses.edit({
        notDone:
          label === null ? `The label of ${targetId} was not cleared` : `The label “${label}” was not set on ${targetId}`,
        run: () =>
          run(
            "Labelling",
            (sessionId) => call("edits:label", { sessionId, targetId, label }),
            async (result, sessionId) => {
              if (result.operation === null) {
                return label === null ? `${targetId} has no label.` : `${targetId} already has that label.`;
              }
              await refresh(sessionId, get().selectedEntryId);
              return label === null ? `Cleared the label of ${targetId}.` : `Labelled ${targetId} “${label}”.`;
            },
          ),
      });
    },
    renameSession(title) {
      const clean = title === null || title.trim() === "" ? null : title.trim();
      return presses.edit({
        notDone: clean === null ? "The session's title was not cleared" : `The session was not renamed “${clean}”`,
        run: () =>
          run(
            "Renaming",
            (sessionId) => call("edits:rename", { sessionId, title: clean }),
            async (result, sessionId) => {
              if (result.operation === null) return "The title is unchanged.";
              await Promise.all([get().loadLibrary(), get().loadTree(sessionId)]);
              return clean === null ? "Cleared the session's title." : `Renamed the session “${clean}”.`;
            },
          ),
      });
    },
    askDelete(session) {
      set({ deleteConfirm: session });
    },
    cancelDelete() {
      set({ deleteConfirm: null });
    },
    async deleteSession(session) {
      set({ deleteConfirm: null });
      if (get().editBusy) return null;
      set({ editBusy: true });
      let ok = false;
      try {
        // Its file gone, the library's copy was the only one: Undo is the way back, not the file.
        const fileState = get().sessions.find((s) => s.id === session.sessionId)?.fileState;
        const fileGone = fileState === "gone" || fileState === "kept";
        const result = await call("library:delete", { sessionId: session.sessionId });
        set({
          lastDeleted: session,
          lastFork: null,
          notice: {
            level: "info",
            message: fileGone
              ? `Deleted “${session.title}” from the library; its file was gone, so Undo is the way back.`
              : `Deleted “${session.title}” from the library; its file is untouched.`,
            undoDeleteOf: session.sessionId,
          },
        });
        await leaveDeleted(session.sessionId);
        ok = true;
        return result;
      } catch (error) {
        set({ notice: { level: "error", message: `Deleting failed: ${(error as Error).message}` } });
        return null;
      } finally {
        endEdit(ok);
      }
    },
    async leaveDeletedElsewhere(session) {
      const { sessionId } = session;
      if (get().selectedSessionId !== sessionId || get().editBusy) return;
      set({
        lastDeleted: session,
        lastFork: null,
        notice: {
          level: "info",
          message: `“${session.title}” was deleted from the library elsewhere (another window or the CLI); its file is untouched.`,
          undoDeleteOf: sessionId,
        },
      });
      await leaveDeleted(sessionId);
    },
    async undoDelete() {
      const deleted = get().lastDeleted;
      if (!deleted || get().editBusy) return null;
      set({ editBusy: true });
      let ok = false;
      try {
        const result = await call("edits:undo", { sessionId: deleted.sessionId });
        set({ lastDeleted: null, notice: { level: "info", message: `Restored “${deleted.title}”.` } });
        await get().loadLibrary();
        await get().selectSession(deleted.sessionId);
        ok = true;
        return result;
      } catch (error) {
        set({ notice: { level: "error", message: `Restoring failed: ${(error as Error).message}` } });
        return null;
      } finally {
        endEdit(ok);
      }
    },
    undoEdit() {
      if (get().lastDeleted) return get().undoDelete();
      if (forkToUndo()) return undoFork();
      return undoRedo("undo");
    },
    redoEdit() {
      return undoRedo("redo");
    },
    pressUndoRedo(direction) {
      return presses.press(direction);
    },
  };
};
