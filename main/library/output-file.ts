/**
 * Writing a file the user named (exports). A regular file is replaced atomically (a temp file in
 * its folder, then a rename), so a failed write leaves the old one whole; through a symlink the
 * file it points to is replaced and the link kept; a device or pipe (/dev/stdout, a FIFO) is
 * written to as it is, never replaced; a folder is refused. Failures name the path. The temp
 * files an export killed before its rename left for the same target are removed (output-temp.ts).
 * The content is a string or a writer that hands it over in chunks (an export as it reads rows).
 * The temp file is flushed to disk before the rename and the folder after it, so a power cut
 * leaves the old file or the new one, never an empty or partial one (Canopy's own files too).
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

/** What to write: the text, or a function that writes it by calling `write` chunk by chunk. */
export type OutputContent = string | ((write: (chunk: string) => void) => void);

/** Writes all of `chunk` to `fd` (a write may take only part of it, e.g. on a pipe). */
function writeAll(fd: number, chunk: string): void {
  const bytes = Buffer.from(chunk, "utf8");
  for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
}

/** Writes `content` to the file open as `fd`. */
function writeContent(fd: number, content: OutputContent): void {
  if (typeof content === "string") writeAll(fd, content);
  else content((chunk) => writeAll(fd, chunk));
}

/** Writes `content` to a device or pipe as it is (opened for writing, never replaced). */
function writeInPlace(file: string, content: OutputContent): void {
  const fd = fs.openSync(file, "w");
  try {
    writeContent(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/** Flushes the folder's entry for a file just renamed into it (not possible on Windows: skipped). */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(folder, "r");
    fs.fsyncSync(fd);
  } catch (error) {
    // Windows cannot open a folder; some file systems refuse fsync on one: the rename stands.
    void error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** `fileMode`: the new file's permissions whatever the old one had (else the old file's are kept). */
function replaceAtomically(target: string, content: OutputContent, fileMode?: number): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  removeStaleTemps(target);
  const temp = tempPathFor(target);
  // A file replaced keeps its permissions (an export kept private stays private).
  const mode = fileMode ?? fs.statSync(target, { throwIfNoEntry: false })?.mode;
  try {
    const fd = fs.openSync(temp, "w", fileMode ?? 0o666);
    try {
      writeContent(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (mode !== undefined) fs.chmodSync(temp, mode & 0o7777);
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(path.dirname(target));
}

/**
 * Replaces Canopy's own small file (the stored keys, the window's state) atomically as an export
 * is: a process killed or a power cut part-way leaves the old text whole, and the temp file it
 * left is removed by the next write. `fileMode`: the file's permissions. Throws the file system's error.
 */
export function replaceOwnFile(file: string, text: string, fileMode?: number): void {
  replaceAtomically(renameTarget(path.resolve(file)), text, fileMode);
}

/**
 * Writes `content` to `outPath` (see the module comment); returns the absolute path as given.
 * `suggestedName` is offered when `outPath` is a folder. A failure of the writer itself (not of
 * the file: the session is gone, the library is damaged) is thrown as it is, after the temp file
 * is removed; the target is then as it was.
 */
export function writeOutputFile(outPath: string, content: OutputContent, suggestedName: string): string {
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
    if (stat !== undefined && !stat.isFile()) writeInPlace(given, content);
    else replaceAtomically(renameTarget(given), content);
  } catch (cause) {
    // Only the file system's errors (they name a syscall) are about the file.
    if (typeof (cause as NodeJS.ErrnoException).syscall !== "string") throw cause;
    throw new StoreError("invalid_input", `Could not write ${given}: ${fileErrorReason(cause)}`, { cause });
  }
  return given;
}
