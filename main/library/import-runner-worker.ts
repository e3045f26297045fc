/**
 * The thread a window's imports run on (see import-runner.ts): it opens the library with a
 * connection of its own, runs each import it is sent with importPath, and posts the progress
 * after every file and then the report. Started by ThreadImports; bundled as import-runner-worker.js.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type Database, openDatabase } from "../store/open.ts";
import { importPath } from "./import.ts";
import type { RunnerInit, RunnerJob, RunnerMessage } from "./import-runner.ts";

const port = parentPort;
const init = workerData as RunnerInit;
const stopJob = new Int32Array(init.stopJob);
let db: Database | null = null;

function post(message: RunnerMessage): void {
  port?.postMessage(message);
}

port?.on("message", (job: RunnerJob | "stop") => {
  if (job === "stop") {
    db?.close();
    port.close();
    return;
  }
  try {
    db ??= openDatabase(init.dbPath);
    const report = importPath(db, job.target, {
      onProgress: (done, total, file) => post({ kind: "progress", jobId: job.jobId, done, total, file }),
      shouldStop: () => Atomics.load(stopJob, 0) === job.jobId,
    });
    post({ kind: "done", jobId: job.jobId, report });
  } catch (error) {
    post({
      kind: "failed",
      jobId: job.jobId,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});

post({ kind: "ready" });
