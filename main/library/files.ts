/**
 * File-system side of the library: the default agent session folders, the recursive `*.jsonl`
 * walk (symlinks followed once, loops cut by device and inode), and byte-level helpers that the
 * append-only re-import relies on (prefix hashes, line counts).
 */
import { createHash, type Hash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileErrorReason } from "../store/errors.ts";

/** pi and oh-my-pi session roots (SPEC §1.1); `library.folders` in settings overrides them. */
export function defaultAgentFolders(home = os.homedir()): string[] {
  return [path.join(home, ".pi", "agent", "sessions"), path.join(home, ".omp", "agent", "sessions")];
}

export interface SessionFileList {
  files: string[];
  /** Paths that could not be read while walking, with the reason. */
  errors: { path: string; reason: string }[];
}

/** Why a pipe or device is not imported: a session is re-read from its file as the agent appends. */
const NOT_A_FILE = "not a file but a pipe or device: save the session to a file and import that";

/**
 * Every `*.jsonl` file under `root` (or `root` itself when it is a file), sorted. Symlinked
 * folders are followed, but a folder already visited (same device and inode) is not entered again.
 */
export function listSessionFiles(root: string): SessionFileList {
  const files: string[] = [];
  const errors: { path: string; reason: string }[] = [];
  const seenDirs = new Set<string>();
  const seenFiles = new Set<string>();

  const addFile = (file: string): void => {
    const real = safeRealpath(file);
    if (real === null || seenFiles.has(real)) return;
    seenFiles.add(real);
    files.push(file);
  };

  const top = path.resolve(root);
  const stack = [top];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let stat: fs.BigIntStats;
    try {
      stat = fs.statSync(current, { bigint: true });
    } catch (error) {
      if (!danglingNonSessionLink(current, top, error)) errors.push({ path: current, reason: reasonOf(error) });
      continue;
    }
    if (stat.isFile()) {
      // A file named explicitly is imported whatever its name; inside folders only *.jsonl.
      if (current === top || current.endsWith(".jsonl")) addFile(current);
      continue;
    }
    if (!stat.isDirectory()) {
      // Named itself (`import /dev/stdin`), a pipe or device is refused; one inside a folder is skipped.
      if (current === top) errors.push({ path: current, reason: NOT_A_FILE });
      continue;
    }
    // Known by device and inode, not by real path: resolving each folder's path again costs a
    // lookup per level, minutes for a tree nested a thousand deep.
    const key = `${stat.dev}:${stat.ino}`;
    if (seenDirs.has(key)) continue;
    seenDirs.add(key);
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(current, { withFileTypes: true });
    } catch (error) {
      // Listed with the files of the report: said to be a folder, not read as a session file.
      errors.push({ path: current, reason: `a folder that cannot be read (${reasonOf(error)})` });
      continue;
    }
    for (const dirent of names) {
      const child = path.join(current, dirent.name);
      if (dirent.isDirectory() || dirent.isSymbolicLink()) stack.push(child);
      else if (dirent.isFile() && dirent.name.endsWith(".jsonl")) addFile(child);
    }
  }
  files.sort();
  return { files, errors };
}

/**
 * A link inside the folder that leads nowhere (a browser's `SingletonLock`, a link to a removed
 * folder, a link to itself) and is not named as a session file: nothing of it could be imported,
 * so it is no failure of the import. A dangling `*.jsonl` link, or the path asked for, is said.
 */
function danglingNonSessionLink(current: string, top: string, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const dangling = code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP";
  return dangling && current !== top && !current.endsWith(".jsonl");
}

function safeRealpath(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    // A dangling symlink or a file removed while walking: simply not part of the library.
    return null;
  }
}

export function reasonOf(error: unknown): string {
  // The library's own failures: SQLite's words ("attempt to write a readonly database") read as
  // if the session file were the problem.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("SQLITE_FULL")) return "the disk is full";
  if (typeof code === "string" && code.startsWith("SQLITE_READONLY")) {
    return "the library is read-only (its file or folder cannot be written)";
  }
  // A file-system error in words ("ELOOP: too many symbolic links encountered, stat '…'" is not).
  if (typeof (error as NodeJS.ErrnoException | null)?.code === "string") {
    const words = fileErrorReason(error);
    if (words !== (error as Error).message) return words;
  }
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** What the next import compares a file against: its hashes and its number of complete lines. */
export interface FileDigest {
  /** sha256 of the whole file. */
  hash: string;
  /** sha256 of the complete lines (up to the last "\n"); `hash` when the file ends with one. */
  importedHash: string;
  /** Number of complete lines. */
  lines: number;
}

/**
 * Builds a FileDigest a part at a time (the import worker hashes each chunk right after parsing
 * it). Bytes are hashed up to the last "\n" seen; the rest waits, as it may end up being the
 * unterminated last line whose prefix hash is wanted.
 */
export class FileDigester {
  private readonly hasher = createHash("sha256");
  /** How far the file is hashed (just after a "\n", or 0). */
  private hashed = 0;
  private lines = 0;

  /** Takes in `buffer[0, available)` (the part of the file read so far). */
  advance(buffer: Buffer, available: number): void {
    if (available <= this.hashed) return;
    const end = buffer.lastIndexOf(0x0a, available - 1) + 1;
    if (end <= this.hashed) return;
    const part = buffer.subarray(this.hashed, end);
    this.lines += countNewlines(part);
    this.hasher.update(part);
    this.hashed = end;
  }

  /** A copy of the hash state after the complete lines taken in so far (call before finish). */
  prefixHash(): Hash {
    return this.hasher.copy();
  }

  /** The digest of the whole file `buffer`. */
  finish(buffer: Buffer): FileDigest {
    this.advance(buffer, buffer.length);
    if (this.hashed === buffer.length) {
      const hash = this.hasher.digest("hex");
      return { hash, importedHash: hash, lines: this.lines };
    }
    const importedHash = this.hasher.copy().digest("hex");
    const hash = this.hasher.update(buffer.subarray(this.hashed)).digest("hex");
    return { hash, importedHash, lines: this.lines };
  }
}

/** The digest of `buffer`; `wholeHash` when its sha256 is already known. One pass otherwise. */
export function digestBytes(buffer: Buffer, wholeHash?: string): FileDigest {
  if (wholeHash === undefined) return new FileDigester().finish(buffer);
  const end = completeLinesEnd(buffer);
  const importedHash = end === buffer.length ? wholeHash : sha256Hex(buffer.subarray(0, end));
  return { hash: wholeHash, importedHash, lines: countNewlines(buffer, end) };
}

/** Bytes per read call: progress is reported this often. */
const READ_STEP = 4 * 1024 * 1024;

/**
 * Reads the file open at `fd` into `target` from its start, at most `target.length` bytes,
 * calling `onProgress` with the number of bytes read so far; returns that number.
 */
export function readInto(fd: number, target: Buffer, onProgress?: (bytes: number) => void): number {
  let got = 0;
  for (let n = 1; got < target.length && n > 0; got += n) {
    n = fs.readSync(fd, target, got, Math.min(READ_STEP, target.length - got), got);
    onProgress?.(got + n);
  }
  return got;
}

/** Bytes up to and including the last `\n` (0 when there is none). */
export function completeLinesEnd(buffer: Buffer): number {
  return buffer.lastIndexOf(0x0a) + 1;
}

/** Number of `\n` bytes in `buffer[0, end)`. */
export function countNewlines(buffer: Buffer, end = buffer.length): number {
  let count = 0;
  let at = buffer.indexOf(0x0a);
  while (at !== -1 && at < end) {
    count++;
    at = buffer.indexOf(0x0a, at + 1);
  }
  return count;
}

/** UTF-8 text of `buffer[start, end)`, without a leading byte-order mark. */
export function decodeUtf8(buffer: Buffer, start = 0, end = buffer.length): string {
  const text = buffer.toString("utf8", start, end);
  return start === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
