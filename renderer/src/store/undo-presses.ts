/**
 * Ctrl+Z / Ctrl+Shift+Z pressed while an edit (or an undo) runs: each press waits its turn and runs
 * after it, in order, against the state the one before left. Waiting presses are dropped, and the
 * outcome line says so, when the edit before them did not go through, a job started on the session,
 * or the session undo/redo would act on is no longer the one they were pressed for. A press made
 * while a compaction or branch summary runs (no edit busy) does nothing, and the line says why.
 * A label or title saved with Enter while an edit runs waits its turn in the same line; saved
 * while a compaction or branch summary runs, it is not saved, and the line says why.
 */
import type { EditResultDto } from "../../../core/api/dto.ts";
import type { CanopyState } from "./index.ts";
import type { JobMessage } from "./job-messages.ts";
import { type RunningJob, selectRunning, sessionBusyText } from "./jobs-slice.ts";
import { sayRefused } from "./refused-line.ts";

export type UndoDirection = "undo" | "redo";

/** An edit asked for while another ran (Enter in the label or title field). */
export interface WaitingEdit {
  /** What the outcome line says when it is dropped, before the reason ("The label “x” was not set"). */
  notDone: string;
  run(): Promise<EditResultDto | null>;
}

interface Press {
  /** Null: not a key press but `edit`. */
  direction: UndoDirection | null;
  edit?: WaitingEdit;
  /** The session the press was for (what undo/redo would have acted on when it was pressed). */
  sessionId: string | null;
  resolve(result: EditResultDto | null): void;
}

export interface UndoPresses {
  /** A key press: runs now when nothing runs, else waits its turn (settles once run or dropped). */
  press(direction: UndoDirection): Promise<EditResultDto | null>;
  /** An edit of the open session: runs now when nothing runs, else waits its turn after the presses made before it. */
  edit(edit: WaitingEdit): Promise<EditResultDto | null>;
  /** An edit ended (`ok`: it did what it was asked): the next waiting press runs, or all are dropped. */
  next(ok: boolean): void;
}

export interface UndoPressesDeps {
  get(): CanopyState;
  set(partial: Partial<CanopyState>): void;
  /** The session undo (or redo) would act on now (a deleted session's for Ctrl+Z after a delete). */
  target(direction: UndoDirection): string | null;
  /** Runs the undo or redo (it marks the edits busy before its first await, or refuses). */
  run(direction: UndoDirection): Promise<EditResultDto | null>;
  /** The compaction or branch summary `run` would refuse for now (null: none stands in its way). */
  blockingJob(direction: UndoDirection): RunningJob | null;
}

const JOB_NAMES: Readonly<Record<string, string>> = {
  compaction: "a compaction started",
  "branch-summary": "a branch summary started",
};

/** The outcome line with the drop said after what the edit before said. */
function withDrop(before: JobMessage | null, dropped: readonly Press[], why: string): JobMessage {
  const keys = dropped.filter((press) => press.direction !== null);
  const directions = new Set(keys.map((press) => press.direction));
  const key = directions.size > 1 ? "undo/redo key" : directions.has("redo") ? "Ctrl+Shift+Z" : "Ctrl+Z";
  const presses = keys.length === 1 ? `1 more ${key} press was` : `${keys.length} more ${key} presses were`;
  const said = dropped.map((press) =>
    press.edit ? `${press.edit.notDone}: ${why}.` : press === keys[0] ? `${presses} dropped: ${why}.` : "",
  );
  const text = said.filter((sentence) => sentence !== "").join(" ");
  if (before === null) return { kind: "error", text };
  return { ...before, text: `${before.text}${/[.!?…]$/.test(before.text) ? "" : "."} ${text}` };
}

export function undoPresses({ get, set, target, run, blockingJob }: UndoPressesDeps): UndoPresses {
  let queue: Press[] = [];

  const dropAll = (why: string) => {
    const dropped = queue;
    queue = [];
    set({ jobMessage: withDrop(get().jobMessage, dropped, why) });
    for (const press of dropped) press.resolve(null);
  };

  const start = (press: Press) => {
    const running = press.edit ? press.edit.run() : run(press.direction ?? "undo");
    running.then(press.resolve, () => press.resolve(null));
    // Refused without running (nothing open any more): the ones after it would be too.
    if (!get().editBusy && queue.length > 0) dropAll("there was nothing to apply them to");
  };

  /** Refused while a job runs: a held key's repeats (or Enter again) keep the line shown, not stacked. */
  const refuse = (what: string, job: RunningJob) => {
    sayRefused(get, set, what, sessionBusyText(job.kind));
    return Promise.resolve(null);
  };

  const waiting = (press: Omit<Press, "resolve">) =>
    new Promise<EditResultDto | null>((resolve) => {
      queue.push({ ...press, resolve });
    });

  return {
    press(direction) {
      if (!get().editBusy && queue.length === 0) {
        const job = blockingJob(direction);
        if (job === null) return run(direction);
        return refuse(`${direction === "redo" ? "Ctrl+Shift+Z" : "Ctrl+Z"} did nothing`, job);
      }
      return waiting({ direction, sessionId: target(direction) });
    },
    edit(edit) {
      if (!get().editBusy && queue.length === 0) {
        // The edit would refuse without a word (edits-slice run): the line says why instead.
        const job = selectRunning(get());
        return job === null ? edit.run() : refuse(edit.notDone, job);
      }
      return waiting({ direction: null, edit, sessionId: get().selectedSessionId });
    },
    next(ok) {
      const first = queue[0];
      if (first === undefined) return;
      const job = selectRunning(get());
      const now = first.direction === null ? get().selectedSessionId : target(first.direction);
      let why: string | null = null;
      // An edit waiting sets what it says whatever the one before did; a key press undoes what is there.
      if (!ok && first.direction !== null) why = "the edit before them did not go through";
      else if (job !== null) why = JOB_NAMES[job.kind] ?? "a job started";
      else if (now !== first.sessionId) why = "the open session changed meanwhile";
      if (why !== null) {
        dropAll(why);
        return;
      }
      queue.shift();
      start(first);
    },
  };
}
