/**
 * Writing a file the user named (exports). A regular file is replaced atomically (a temp file in
 * its folder, then a rename), so a failed write leaves the old one whole; through a symlink the
 * file it points to is replaced and the link kept; a device or pipe (/dev/stdout, a FIFO) is
 * written to as it is, never replaced; a folder is refused. Failures name the path. The temp
 * files an export killed before its rename left for the same target are removed (output-temp.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { fileErrorReason, StoreError } from "../store/errors.ts";
import { removeStaleTemps, tempPathFor } from "./output-temp.ts";

/** Where a rename must land for `given`: the file a symlink points to, else `given` itself. */
function renameTarget(given: string): string {
  if (!fs.lstatSync(given, { throwIfNoEntry: false })?.isSymbolicLink()) return given;
  try {
    return fs.realpathSync(given);
  } catch (error) {
    // A link to a file not there yet: create that file.
    void error;
    return path.resolve(path.dirname(given), fs.readlinkSync(given));
  }
}

function replaceAtomically(target: string, text: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  removeStaleTemps(target);
  const temp = tempPathFor(target);
  // A file replaced keeps its permissions (an export kept private stays private).
  const mode = fs.statSync(target, { throwIfNoEntry: false })?.mode;
  try {
    fs.writeFileSync(temp, text, { flush: true });
    if (mode !== undefined) fs.chmodSync(temp, mode & 0o7777);
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Writes `text` to `outPath` (see the module comment); returns the absolute path as given.
 * `suggestedName` is offered when `outPath` is a folder.
 */
export function writeOutputFile(outPath: string, text: string, suggestedName: string): string {
  const given = path.resolve(outPath);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(given, { throwIfNoEntry: false });
  } catch (error) {
    // E.g. a part of the path is a file: the write below says so.
    void error;
  }
  if (stat?.isDirectory()) {
    throw new StoreError(
      "invalid_input",
      `${given} is a folder; give the file to write (for example ${path.join(given, suggestedName)})`,
    );
  }
  try {
    if (stat !== undefined && !stat.isFile()) fs.writeFileSync(given, text);
    else replaceAtomically(renameTarget(given), text);
  } catch (cause) {
    throw new StoreError("invalid_input", `Could not write ${given}: ${fileErrorReason(cause)}`, { cause });
  }
  return given;
}
