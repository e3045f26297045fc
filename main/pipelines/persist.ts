/**
 * Applies a pipeline's result: in one transaction, re-check the precondition the pipeline
 * planned on (the leaf still exists; the view leaf has not moved when the plan used it), append
 * the new entry as a child of that leaf and move the view leaf to it — for a plan on an explicit
 * leaf, only when the user has not moved the view leaf meanwhile; then tell every client.
 */
import type { CompactionResult } from "../../core/compaction/types.ts";
import type { AgentMessage, CompactionEntry, MessageEntry, SessionEntry } from "../../core/session/entries.ts";
import { randomEntryId } from "../../core/session/ids.ts";
import { ApiFailure } from "../api/errors.ts";
import type { AppContext } from "../api/types.ts";
import { effectiveViewLeaf, getSessionSummary, getViewLeaf, requireSession, setViewLeaf } from "../library/load.ts";
import { appendSessionEntries } from "../library/write.ts";
import { entryIdExists, StoredEntryIds } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import type { RunTarget } from "./session-state.ts";

/**
 * Whether the user left the view leaf where the run found it: it is still there, or it follows
 * the file (nobody moved it) and only the agent's appended lines took it on meanwhile.
 */
function leafLeftAlone(row: SessionRow, state: RunTarget): boolean {
  return row.view_leaf_set === 0 || effectiveViewLeaf(row) === state.viewLeafId;
}

export function appendAndMoveLeaf<E extends SessionEntry>(
  ctx: AppContext,
  state: RunTarget,
  build: (id: string, timestamp: string) => E,
  plannedOnViewLeaf: boolean,
): E {
  const { db } = ctx;
  const entry = writeTransaction(db, () => {
    const row = requireSession(db, state.sessionId);
    const { sid } = row;
    if (state.leafId !== null && !entryIdExists(db, sid, state.leafId)) {
      throw new ApiFailure("conflict", `Entry ${state.leafId} no longer exists; nothing was saved`);
    }
    if (plannedOnViewLeaf && effectiveViewLeaf(row) !== state.viewLeafId) {
      // A view leaf that follows the file moves only when the file grows: its agent wrote to it.
      throw new ApiFailure(
        "conflict",
        row.view_leaf_set === 1
          ? "The view leaf was moved while the summary was being written; nothing was saved. Run it again."
          : "The session's agent added entries while the summary was being written; nothing was saved. Run it again on the session as it is now.",
      );
    }
    const built = build(randomEntryId(new StoredEntryIds(db, sid)), new Date().toISOString());
    appendSessionEntries(db, state.sessionId, [built]);
    if (leafLeftAlone(row, state)) setViewLeaf(db, state.sessionId, built.id);
    return built;
  })();
  ctx.events.emit("session:changed", { sessionId: state.sessionId, viewLeafId: getViewLeaf(db, state.sessionId) });
  ctx.events.emit("library:changed", { sessionIds: [state.sessionId] });
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
  const dialect = getSessionSummary(ctx.db, state.sessionId).dialect;
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
  const result = writeTransaction(db, () => {
    const row = requireSession(db, state.sessionId);
    const { sid } = row;
    if (state.leafId !== null && !entryIdExists(db, sid, state.leafId)) {
      throw new ApiFailure("conflict", `Entry ${state.leafId} no longer exists; nothing was saved`);
    }
    const used = new StoredEntryIds(db, sid);
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
    const followed = leafLeftAlone(row, state);
    if (followed && parentId !== null) setViewLeaf(db, state.sessionId, parentId);
    return { entries, followed };
  })();
  ctx.events.emit("session:changed", { sessionId: state.sessionId, viewLeafId: getViewLeaf(db, state.sessionId) });
  ctx.events.emit("library:changed", { sessionIds: [state.sessionId] });
  return result;
}
