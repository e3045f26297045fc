/**
 * Another connection pruning or restoring a session's tool outputs, as a CLI next to the app does,
 * inside a transaction it keeps open for `holdMs`: it posts "holding" (with what it pruned or
 * restored) once its rows are written but not committed, and "committed" after the commit.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createAppContext } from "../../main/app-context.ts";
import { applyPrune, restorePruned } from "../../main/pipelines/pruning.ts";

const { dbPath, sessionId, action, protectTokens, holdMs } = workerData as {
  dbPath: string;
  sessionId: string;
  action: "prune" | "restore";
  protectTokens: number;
  holdMs: number;
};
const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false });
ctx.db.exec("BEGIN IMMEDIATE");
const result =
  action === "prune"
    ? applyPrune(ctx, sessionId, undefined, { protectTokens, minimumSavings: 0, protectedTools: [] })
    : restorePruned(ctx, sessionId);
parentPort?.postMessage({ kind: "holding", entryIds: result.prunedEntryIds });
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
ctx.db.exec("COMMIT");
ctx.db.close();
parentPort?.postMessage({ kind: "committed" });
