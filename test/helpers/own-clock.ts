/**
 * A clock for "how long was this thread held up": the wall clock less the time the thread waited
 * for a CPU while other processes ran (Linux's /proc schedstat; elsewhere the wall clock alone).
 * A loaded machine delays every step of a test; a thread busy with its own work, or asleep in a
 * lock wait, is what a bound on a stall is about.
 */
import { readFileSync } from "node:fs";

/** The calling thread's total wait for a CPU in ms, or 0 where the system does not say. */
function cpuWaitMs(): number {
  try {
    // "time on a CPU (ns) time waiting for one (ns) timeslices"
    const waited = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[1];
    return waited === undefined ? 0 : Number(waited) / 1e6;
  } catch {
    return 0;
  }
}

/** Milliseconds, like performance.now(), that do not run while this thread waits for a CPU. */
export function ownClockMs(): number {
  return performance.now() - cpuWaitMs();
}
