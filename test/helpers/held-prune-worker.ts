/**
 * Another connection pruning or restoring a session's tool outputs, as a CLI next to the app does,
 * inside a transaction it keeps open for `holdMs`: it posts "holding" (with the ids of what it
 * pruned or restored, read from the library) once its rows are written but not committed, and
 * "committed" after the commit.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createAppContext } from "../../main/app-context.ts";
import { applyPrune, restorePruned } from "../../main/pipelines/pruning.ts";
import { prunedEntryIds } from "./pruned-ids.ts";

const { dbPath, sessionId, action, protectTokens, holdMs } = workerData as {
  dbPath: string;
  sessionId: string;
  action: "prune" | "restore";
  protectTokens: number;
  holdMs: number;
};
const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false });
ctx.db.exec("BEGIN IMMEDIATE");
const before = prunedEntryIds(ctx.db, sessionId);
if (action === "prune") applyPrune(ctx, sessionId, undefined, { protectTokens, minimumSavings: 0, protectedTools: [] });
else restorePruned(ctx, sessionId);
const after = new Set(prunedEntryIds(ctx.db, sessionId));
const changed = action === "prune" ? [...after].filter((id) => !before.includes(id)) : before;
parentPort?.postMessage({ kind: "holding", entryIds: changed });
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
ctx.db.exec("COMMIT");
ctx.db.close();
parentPort?.postMessage({ kind: "committed" });
