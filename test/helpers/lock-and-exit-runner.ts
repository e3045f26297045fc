/**
 * An import runner thread that dies in the middle of a write transaction: for its first job it
 * asks the serving thread (as the real runner does), begins the transaction on its own connection,
 * and exits without committing or saying so. Used to show the write gate opens when it ends.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { RunnerInit } from "../../main/library/import-runner.ts";
import { askingWatch } from "../../main/library/runner-write-lock.ts";
import { openDatabase } from "../../main/store/open.ts";
import { beginWrite, watchWriteLocks } from "../../main/store/transactions.ts";

const init = workerData as RunnerInit;
const db = openDatabase(init.dbPath);
watchWriteLocks(
  db,
  askingWatch(new Int32Array(init.lockAck), (message) => parentPort?.postMessage(message)),
);
parentPort?.on("message", () => {
  beginWrite(db);
  // Long enough for the serving thread to see its gate closed.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  process.exit(3);
});
parentPort?.postMessage({ kind: "ready" });
