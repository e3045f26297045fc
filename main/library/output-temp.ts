/**
 * The temp file an export writes before renaming it over the target, and the removal of the ones
 * a killed export (kill -9, a crash, a power cut) left behind. The name says it is Canopy's, for
 * which target, from which host and which process, so only the temp files of a writer that is
 * gone are ever removed: a concurrent export by a live process, or one from another host sharing
 * the folder, is never touched, and neither is a file Canopy did not name.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A short tag of this host's name: pids mean something only on the host that gave them out. */
const HOST_TAG = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 8);
const SUFFIX = ".tmp";
/** After `.<target name>.canopy-`: host tag, writer pid, a random nonce (two exports in one process). */
const MIDDLE = /^([0-9a-f]{8})-([1-9][0-9]*)-[0-9a-f]{8}$/;

const prefixFor = (target: string) => `.${path.basename(target)}.canopy-`;

/** Where this process writes the text for `target`: hidden, in the target's folder. */
export function tempPathFor(target: string): string {
  const name = `${prefixFor(target)}${HOST_TAG}-${process.pid}-${randomBytes(4).toString("hex")}${SUFFIX}`;
  return path.join(path.dirname(target), name);
}

/** Whether process `pid` of this host still runs (one of another user's answers EPERM: it does). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the temp files for `target` whose writer, a process of this host, is no longer
 * running; returns their names. A failure to list or remove is not the export's failure: the
 * export goes on, and the next one tries again.
 */
export function removeStaleTemps(target: string): string[] {
  const prefix = prefixFor(target);
  return removeStale(path.dirname(target), (name) => {
    if (!name.startsWith(prefix) || !name.endsWith(SUFFIX)) return null;
    return MIDDLE.exec(name.slice(prefix.length, -SUFFIX.length));
  });
}

/** The writer's tag at the end of a temp file's name (of a temp file's temp file too). */
const TAG_AT_END = /\.canopy-([0-9a-f]{8})-([1-9][0-9]*)-[0-9a-f]{8}\.tmp$/;

/**
 * As removeStaleTemps for every temp file in `folder`, whatever its target: only for a folder of
 * Canopy's own that holds nothing else (the spool of browser-mode downloads).
 */
export function removeStaleTempsIn(folder: string): string[] {
  return removeStale(folder, (name) => TAG_AT_END.exec(name));
}

function removeStale(folder: string, tagOf: (name: string) => RegExpExecArray | null): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch (error) {
    void error;
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = tagOf(name);
    if (!match || match[1] !== HOST_TAG) continue;
    const pid = Number(match[2]);
    if (!Number.isSafeInteger(pid) || isRunning(pid)) continue;
    try {
      // A regular file only: never follow or remove anything else that happens to bear the name.
      if (!fs.lstatSync(path.join(folder, name)).isFile()) continue;
      fs.rmSync(path.join(folder, name));
      removed.push(name);
    } catch (error) {
      // Gone already (another export removed it) or not ours to remove: left as it is.
      void error;
    }
  }
  return removed;
}
