/**
 * Another connection importing a file, as the import runner's thread (or a CLI next to the app)
 * does. With `holdMs` it imports inside a transaction it keeps open that long, as a folder
 * import's shared batch does: it posts "holding" once the file's rows are written but not
 * committed. Without, it posts "starting" right before the import and "committed" after it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { importPath } from "../../main/library/import.ts";
import { openDatabase } from "../../main/store/open.ts";

const { dbPath, file, holdMs } = workerData as { dbPath: string; file: string; holdMs: number };
const db = openDatabase(dbPath);
if (holdMs > 0) {
  db.exec("BEGIN IMMEDIATE");
  importPath(db, file);
  parentPort?.postMessage({ kind: "holding" });
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
  db.exec("COMMIT");
} else {
  parentPort?.postMessage({ kind: "starting" });
  importPath(db, file);
}
db.close();
parentPort?.postMessage({ kind: "committed" });
