/**
 * Ctrl+Z / Ctrl+Shift+Z pressed while an edit (or an undo) runs: each press waits its turn and runs
 * after it, in order, against the state the one before left. Waiting presses are dropped, and the
 * outcome line says so, when the edit before them did not go through, a job started on the session,
 * or the session undo/redo would act on is no longer the one they were pressed for. A press made
 * while a compaction or branch summary runs (no edit busy) does nothing, and the line says why.
 */
import type { EditResultDto } from "../../../core/api/dto.ts";
import type { CanopyState } from "./index.ts";
import type { JobMessage } from "./job-messages.ts";
import { type RunningJob, selectRunning, sessionBusyText } from "./jobs-slice.ts";

export type UndoDirection = "undo" | "redo";

interface Press {
  direction: UndoDirection;
  /** The session the press was for (what undo/redo would have acted on when it was pressed). */
  sessionId: string | null;
  resolve(result: EditResultDto | null): void;
}

export interface UndoPresses {
  /** A key press: runs now when nothing runs, else waits its turn (settles once run or dropped). */
  press(direction: UndoDirection): Promise<EditResultDto | null>;
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
  const directions = new Set(dropped.map((press) => press.direction));
  const key = directions.size > 1 ? "undo/redo key" : directions.has("redo") ? "Ctrl+Shift+Z" : "Ctrl+Z";
  const presses =
    dropped.length === 1 ? `1 more ${key} press was` : `${dropped.length} more ${key} presses were`;
  const text = `${presses} dropped: ${why}.`;
  if (before === null) return { kind: "error", text };
  return { ...before, text: `${before.text}${/[.!?…]$/.test(before.text) ? "" : "."} ${text}` };
}

/** Why a press did nothing: a job runs (the same line for every repeat of a held key). */
function refusedLine(direction: UndoDirection, job: RunningJob): JobMessage {
  const why = sessionBusyText(job.kind);
  const key = direction === "redo" ? "Ctrl+Shift+Z" : "Ctrl+Z";
  return { kind: "error", text: `${key} did nothing: ${why.charAt(0).toLowerCase()}${why.slice(1)}` };
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
    run(press.direction).then(press.resolve, () => press.resolve(null));
    // Refused without running (nothing open any more): the ones after it would be too.
    if (!get().editBusy && queue.length > 0) dropAll("there was nothing to apply them to");
  };

  return {
    press(direction) {
      if (!get().editBusy && queue.length === 0) {
        const job = blockingJob(direction);
        if (job === null) return run(direction);
        const line = refusedLine(direction, job);
        // A held key's repeats keep the line shown (not said again, not stacked).
        if (get().jobMessage?.text !== line.text) set({ jobMessage: line });
        return Promise.resolve(null);
      }
      return new Promise((resolve) => {
        queue.push({ direction, sessionId: target(direction), resolve });
      });
    },
    next(ok) {
      const first = queue[0];
      if (first === undefined) return;
      const job = selectRunning(get());
      let why: string | null = null;
      if (!ok) why = "the edit before them did not go through";
      else if (job !== null) why = JOB_NAMES[job.kind] ?? "a job started";
      else if (target(first.direction) !== first.sessionId) why = "the open session changed meanwhile";
      if (why !== null) {
        dropAll(why);
        return;
      }
      queue.shift();
      start(first);
    },
  };
}
