/**
 * Applies a pipeline's result: in one transaction, re-check the precondition the pipeline
 * planned on (the leaf still exists; the view leaf has not moved when the plan used it), append
 * the new entry as a child of that leaf and move the view leaf to it — for a plan on an explicit
 * leaf, only when the user has not moved the view leaf meanwhile; then tell every client. What
 * another Canopy (the CLI, a second window's server) did meanwhile without knowing of the job —
 * deleting the session, undoing the edited message the result hangs below — does not lose it: it
 * is saved (in the deleted session; below the edit, brought back hidden) and the caller is told where.
 */
import { SAVED_ELSEWHERE } from "../../core/api/dto-app.ts";
import type { CompactionResult } from "../../core/compaction/types.ts";
import type { AgentMessage, CompactionEntry, MessageEntry, SessionEntry } from "../../core/session/entries.ts";
import { randomEntryId } from "../../core/session/ids.ts";
import { ApiFailure } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { keepUndoneEditFor } from "../library/edit-history.ts";
import { effectiveViewLeaf, placeViewLeaf, requireAnySession } from "../library/load.ts";
import { untilWriteLockFree } from "../library/lock-wait.ts";
import { tellLockWait } from "../library/lock-wait-told.ts";
import { appendSessionEntries } from "../library/write.ts";
import { isBelow } from "../store/repos/edits.ts";
import { entryIdExists, StoredEntryIds } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import { keepLostLeaf } from "./lost-leaf.ts";
import type { RunTarget } from "./session-state.ts";

/** How long a result waits for another process's write lock before its save waits busy_timeout as any write. */
const LOCK_WAIT_MS = 5 * 60_000;

/**
 * Waits, asynchronously, until the library's write lock is free: this process's import runner
 * (the write gate) and any other process (a CLI import or prune, a second app) are not writing.
 * A save that waited busy_timeout instead held the serving thread up 5 s, then failed and lost
 * what the model wrote. Right before the save, which takes the lock again (a write landing in
 * between waits busy_timeout, as any write does). Ends at once when `signal` aborts (Cancel,
 * Escape, the abort channels): the caller checks it and saves nothing. A long wait is told to
 * the pages (library:write-waiting), so the job's window can say what its save waits for.
 */
export async function untilWritable(ctx: AppContext, signal?: AbortSignal): Promise<void> {
  await untilWriteLockFree(ctx.db, ctx.writes, LOCK_WAIT_MS, signal, tellLockWait(ctx.events));
}

/**
 * Whether the user left the view leaf where the run found it: it is still there, or it follows
 * the file (nobody moved it) and only the agent's appended lines took it on meanwhile.
 */
function leafLeftAlone(row: SessionRow, state: RunTarget): boolean {
  return row.view_leaf_set === 0 || effectiveViewLeaf(row) === state.viewLeafId;
}

/** The session as the save finds it: deleted meanwhile, or the planned leaf brought back hidden. */
interface SaveTarget {
  row: SessionRow;
  deleted: boolean;
  /** The planned leaf was brought back hidden: with its undone edit (redo shows it), or alone. */
  hidden: false | "redo" | "restore";
}

/**
 * Re-checks the planned leaf under the write lock. One removed by an undo elsewhere comes back
 * hidden (keepUndoneEditFor); one whose undo cannot be redone any more, from the path the plan
 * loaded (keepLostLeaf); else the save is refused.
 */
function saveTarget(ctx: AppContext, state: RunTarget): SaveTarget {
  const { db } = ctx;
  let row = requireAnySession(db, state.sessionId);
  let hidden: SaveTarget["hidden"] = false;
  if (state.leafId !== null && !entryIdExists(db, row.sid, state.leafId)) {
    if (keepUndoneEditFor(db, row, state.leafId)) hidden = "redo";
    else if (keepLostLeaf(db, row, state.leafId, state.path)) hidden = "restore";
    else throw new ApiFailure("conflict", `Entry ${state.leafId} no longer exists; nothing was saved`);
    row = requireAnySession(db, state.sessionId);
  }
  return { row, deleted: row.deleted_at !== null, hidden };
}

/**
 * Tells every client, then the caller when the result was saved somewhere it will not see it:
 * an error that says where it is (the session deleted meanwhile, the edit undone meanwhile).
 */
function announceSaved(ctx: AppContext, sessionId: string, target: SaveTarget, what: string): void {
  const row = requireAnySession(ctx.db, sessionId);
  ctx.events.emit("session:changed", { sessionId, viewLeafId: effectiveViewLeaf(row) });
  ctx.events.emit("library:changed", { sessionIds: [sessionId] });
  if (target.deleted) {
    throw new ApiFailure(
      "conflict",
      `Session ${sessionId} was deleted from the library (in another window or the CLI) while ${what} was being written${SAVED_ELSEWHERE}with the session: undo the delete, or \`canopy undelete\`, brings both back`,
    );
  }
  if (target.hidden === "redo") {
    throw new ApiFailure(
      "conflict",
      `The edited message below which ${what} was being written was undone meanwhile (in another window or the CLI)${SAVED_ELSEWHERE}below that edit, whose branch is archived as an undone answered edit is: Redo, or Restore branch under Show archived, shows it`,
    );
  }
  if (target.hidden === "restore") {
    throw new ApiFailure(
      "conflict",
      `The entry below which ${what} was being written was removed meanwhile (in another window or the CLI)${SAVED_ELSEWHERE}below a copy of that entry, on an archived branch: Restore branch under Show archived shows it`,
    );
  }
}

export function appendAndMoveLeaf<E extends SessionEntry>(
  ctx: AppContext,
  state: RunTarget,
  build: (id: string, timestamp: string) => E,
  plannedOnViewLeaf: boolean,
): E {
  const { db } = ctx;
  const { entry, target } = writeTransaction(db, () => {
    const target = saveTarget(ctx, state);
    const { row } = target;
    const { sid } = row;
    const now = effectiveViewLeaf(row);
    if (plannedOnViewLeaf && now !== state.viewLeafId) {
      // A view leaf that follows the file moved on below the planned one: its agent wrote to it.
      // One that follows the file elsewhere was put back there (an undo, in another Canopy too).
      const agentWrote =
        row.view_leaf_set === 0 &&
        now !== null &&
        state.viewLeafId !== null &&
        isBelow(db, sid, now, [state.viewLeafId]);
      throw new ApiFailure(
        "conflict",
        agentWrote
          ? "The session's agent added entries while the summary was being written; nothing was saved. Run it again on the session as it is now."
          : "The view leaf was moved while the summary was being written; nothing was saved. Run it again.",
      );
    }
    const built = build(randomEntryId(new StoredEntryIds(db, sid)), new Date().toISOString());
    appendSessionEntries(db, state.sessionId, [built]);
    if (!target.hidden && leafLeftAlone(row, state)) placeViewLeaf(db, row, built.id);
    return { entry: built, target };
  })();
  announceSaved(ctx, state.sessionId, target, "the summary");
  return entry;
}

/**
 * Appends a compaction entry written as the session's dialect expects (`fromHook` for pi,
 * `fromExtension` for omp when a hook produced it), as a child of the planned leaf.
 */
export function appendCompaction(
  ctx: AppContext,
  state: RunTarget,
  result: CompactionResult,
  fromExtension: boolean,
  plannedOnViewLeaf: boolean,
): CompactionEntry {
  // Deleted or not: the session may have been deleted elsewhere while the summary was written.
  const { dialect } = requireAnySession(ctx.db, state.sessionId);
  return appendAndMoveLeaf(
    ctx,
    state,
    (id, timestamp): CompactionEntry => {
      const built: CompactionEntry = {
        type: "compaction",
        id,
        parentId: state.leafId,
        timestamp,
        summary: result.summary,
        firstKeptEntryId: result.firstKeptEntryId,
        tokensBefore: result.tokensBefore,
      };
      if (result.shortSummary) built.shortSummary = result.shortSummary;
      if (result.details !== undefined) built.details = result.details;
      if (result.preserveData) built.preserveData = result.preserveData;
      if (fromExtension) built[dialect === "pi" ? "fromHook" : "fromExtension"] = true;
      return built;
    },
    plannedOnViewLeaf,
  );
}

/**
 * Appends messages as a chain of `message` entries below the planned leaf, in one transaction
 * that first checks the leaf still exists. The view leaf follows to the last one only when the
 * user has not moved it meanwhile (`followed` says which happened; lines the agent appended to
 * the file meanwhile do not count); a reply is never dropped.
 */
export function appendMessageChain(
  ctx: AppContext,
  state: RunTarget,
  messages: readonly AgentMessage[],
): { entries: MessageEntry[]; followed: boolean } {
  const { db } = ctx;
  const { result, target } = writeTransaction(db, () => {
    const target = saveTarget(ctx, state);
    const { row } = target;
    const used = new StoredEntryIds(db, row.sid);
    const timestamp = new Date().toISOString();
    let parentId = state.leafId;
    const entries = messages.map((message): MessageEntry => {
      const id = randomEntryId(used);
      used.add(id);
      const entry: MessageEntry = { type: "message", id, parentId, timestamp, message };
      parentId = id;
      return entry;
    });
    appendSessionEntries(db, state.sessionId, entries);
    const followed = !target.hidden && leafLeftAlone(row, state);
    if (followed && parentId !== null) placeViewLeaf(db, row, parentId);
    return { result: { entries, followed }, target };
  })();
  announceSaved(ctx, state.sessionId, target, "the reply");
  return result;
}
