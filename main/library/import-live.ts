/**
 * Re-import of a session file its agent keeps appending to (watch.ts, live-source.ts), at a cost
 * that follows the appended bytes: the new bytes are read with a positioned read, and the imported
 * prefix is checked without reading it all against what this process remembers of it (TailMemo).
 * No memo (the first re-import since start), another file at the path, a file that did not grow,
 * a check that fails, or a tail the append-only import declines: the full import (import-file.ts).
 * The watcher first makes the memo in the background (live-seed.ts), so that a first append does
 * not hold the serving thread up.
 */
import { createHash, type Hash } from "node:crypto";
import fs from "node:fs";
import { crc32 } from "node:zlib";
import type { Database } from "../store/open.ts";
import { findSessionsByPath, type SessionRow } from "../store/repos/sessions.ts";
import { completeLinesEnd, countNewlines, sha256Hex } from "./files.ts";
import { type FileOutcome, importRead, readForImport, unchanged } from "./import-file.ts";
import type { FileBytes } from "./import-state.ts";
import { appendTail } from "./import-tail.ts";
import { PARALLEL_PARSE_MIN_BYTES } from "./parallel-rows.ts";

/**
 * Bytes at the start of the file and right before the end of its imported prefix that a live
 * append compares with what the last import saw there: an edit that changes the length of
 * anything before the end shifts the end window and is caught at once; so is another file put in
 * its place (other inode).
 */
export const CHECK_WINDOW_BYTES = 64 * 1024;

/**
 * The prefix is remembered as checksums of blocks of this size, and each live append compares one
 * of them with the file, in turn: an edit that keeps every length (a byte changed in place) is
 * caught within one round, as many appends as the prefix has blocks (200 for a 200 MB file).
 * CRC-32 (four times sha256's speed here) suffices: it looks for edits, not for an adversary.
 */
export const CHECK_BLOCK_BYTES = 1024 * 1024;

/** What the last import of a file left for the next live append (one per file, per library). */
export interface TailMemo {
  sid: number;
  /** The session row's imported_bytes and imported_hash when this memo was made. */
  importedBytes: number;
  importedHash: string;
  /** sha256 fed the imported prefix: extended with the tail, never fed the prefix again. */
  prefix: Hash;
  dev: number;
  ino: number;
  /** sha256 of the file's first bytes, and of those right before `importedBytes`. */
  headHash: string;
  endHash: string;
  /** CRC-32 of each whole block of the prefix; `block`: that of the bytes after the last one. */
  blocks: number[];
  block: number;
  /** The block the next live append compares. */
  nextBlock: number;
}

/** Reads `length` bytes at `position` of the open file into `target`; returns the bytes read. */
export type PositionedRead = (fd: number, target: Buffer, position: number) => number;

export interface LiveImportOptions {
  /** How bytes are read (tests count them); default fs.readSync until `target` is full or EOF. */
  read?: PositionedRead;
}

const memosByLibrary = new WeakMap<Database, Map<string, TailMemo>>();

/** This process's memos of `db`'s files, by real path. */
export function memosOf(db: Database): Map<string, TailMemo> {
  let memos = memosByLibrary.get(db);
  if (memos === undefined) {
    memos = new Map();
    memosByLibrary.set(db, memos);
  }
  return memos;
}

const readFully: PositionedRead = (fd, target, position) => {
  let got = 0;
  for (let n = 1; got < target.length && n > 0; got += n) {
    n = fs.readSync(fd, target, got, target.length - got, position + got);
  }
  return got;
};

/** The head and end windows of a prefix of `importedBytes`, from `at(from, to)` (file offsets). */
function windowHashes(importedBytes: number, at: (from: number, to: number) => Buffer) {
  return {
    headHash: sha256Hex(at(0, Math.min(CHECK_WINDOW_BYTES, importedBytes))),
    endHash: sha256Hex(at(Math.max(0, importedBytes - CHECK_WINDOW_BYTES), importedBytes)),
  };
}

/**
 * Imports `file` as the watcher and the export guard did before live-reimport.ts: only its new
 * bytes when this process imported it before and it grew by appended lines, else the full import,
 * here. Never throws for bad files (a "failed" report).
 */
export function importLiveFile(db: Database, file: string, options: LiveImportOptions = {}): FileOutcome {
  return liveAppend(db, file, options) ?? fullLiveImport(db, file);
}

/**
 * The short path of importLiveFile: the outcome when `file` is remembered and grew by appended
 * lines (or did not change since the memo), else null (the full import is needed).
 */
export function liveAppend(db: Database, file: string, options: LiveImportOptions = {}): FileOutcome | null {
  try {
    return appendOnly(db, file, fs.realpathSync(file), memosOf(db), options.read ?? readFully);
  } catch (error) {
    // Unreadable now, or the short path failed (e.g. SQLite): the full import retries it and its
    // report says what went wrong, as for any import.
    void error;
    return null;
  }
}

/** The full import of importLiveFile, which leaves a memo of the file for the next append. */
export function fullLiveImport(db: Database, file: string): FileOutcome {
  const memos = memosOf(db);
  try {
    memos.delete(fs.realpathSync(file));
  } catch (error) {
    // Unreadable: there is no memo to forget, and the import's report says why.
    void error;
  }
  const read = readForImport(db, file, { minBytes: PARALLEL_PARSE_MIN_BYTES });
  let kept: { hash: Hash; bytes: number } | null = null;
  const outcome = importRead(db, read, { keepPrefixHash: (hash, bytes) => (kept = { hash, bytes }) });
  if (read.kind === "read") remember(db, memos, read.bytes, kept);
  return outcome;
}

/**
 * After a full import: what the next live append of this file needs. `kept`: the prefix hash state
 * the import computed (else the prefix is hashed here).
 */
function remember(
  db: Database,
  memos: Map<string, TailMemo>,
  bytes: FileBytes,
  kept: { hash: Hash; bytes: number } | null,
): void {
  const { sourcePath, buffer, mtimeMs } = bytes;
  const rows = findSessionsByPath(db, sourcePath);
  const row = rows[0];
  let stat: fs.Stats;
  try {
    stat = fs.statSync(sourcePath);
  } catch (error) {
    // Gone since: nothing to remember.
    void error;
    return;
  }
  // The row must describe exactly these bytes, and the file must still be them.
  if (
    rows.length !== 1 ||
    row === undefined ||
    row.original_version < 3 ||
    row.imported_hash === null ||
    row.file_size !== buffer.length ||
    stat.size !== buffer.length ||
    stat.mtimeMs !== mtimeMs
  ) {
    return;
  }
  const imported = buffer.subarray(0, row.imported_bytes);
  const prefix =
    kept !== null && kept.bytes === row.imported_bytes ? kept.hash : createHash("sha256").update(imported);
  if (prefix.copy().digest("hex") !== row.imported_hash) return;
  const blocks = feedBlocks([], 0, 0, imported);
  memos.set(sourcePath, {
    sid: row.sid,
    importedBytes: row.imported_bytes,
    importedHash: row.imported_hash,
    prefix,
    dev: stat.dev,
    ino: stat.ino,
    ...windowHashes(row.imported_bytes, (from, to) => buffer.subarray(from, to)),
    ...blocks,
    nextBlock: 0,
  });
}

/**
 * Feeds `data` (the file's bytes from `offset`, the end of what `blocks` and `block` cover) into
 * the block checksums; returns them (`blocks` is not changed).
 */
export function feedBlocks(
  blocks: readonly number[],
  block: number,
  offset: number,
  data: Buffer,
): { blocks: number[]; block: number } {
  const whole = [...blocks];
  let current = block;
  for (let at = 0; at < data.length; ) {
    const room = CHECK_BLOCK_BYTES - ((offset + at) % CHECK_BLOCK_BYTES);
    const part = data.subarray(at, at + room);
    current = crc32(part, current);
    at += part.length;
    if ((offset + at) % CHECK_BLOCK_BYTES === 0) {
      whole.push(current);
      current = 0;
    }
  }
  return { blocks: whole, block: current };
}

/** Whether block `memo.nextBlock` of the file open at `fd` is as remembered; its bytes read. */
function blockHolds(fd: number, memo: TailMemo, read: PositionedRead): { holds: boolean; bytesRead: number } {
  if (memo.blocks.length === 0) return { holds: true, bytesRead: 0 };
  const k = memo.nextBlock % memo.blocks.length;
  const bytes = Buffer.allocUnsafe(CHECK_BLOCK_BYTES);
  const bytesRead = read(fd, bytes, k * CHECK_BLOCK_BYTES);
  return { holds: bytesRead === bytes.length && crc32(bytes) === memo.blocks[k], bytesRead };
}

/** The one stored session a live append could extend: a v3 file imported with its prefix hash. */
export function appendableRow(db: Database, sourcePath: string): SessionRow | null {
  const rows = findSessionsByPath(db, sourcePath);
  const row = rows[0];
  if (rows.length !== 1 || row === undefined || row.original_version < 3 || row.imported_hash === null) {
    return null;
  }
  return row;
}

/** Whether `memo` still describes the stored row (no other import since it was made). */
export function holds(memo: TailMemo | undefined, row: SessionRow): boolean {
  return (
    memo !== undefined &&
    memo.sid === row.sid &&
    memo.importedBytes === row.imported_bytes &&
    memo.importedHash === row.imported_hash
  );
}

/** The live append of a remembered file, or null for the full import. */
function appendOnly(
  db: Database,
  file: string,
  sourcePath: string,
  memos: Map<string, TailMemo>,
  read: PositionedRead,
): FileOutcome | null {
  const memo = memos.get(sourcePath);
  if (memo === undefined) return null;
  const row = appendableRow(db, sourcePath);
  // Another import (another process, the import thread) since the memo: it no longer holds.
  if (row === null || !holds(memo, row)) return null;
  const fd = fs.openSync(sourcePath, "r");
  try {
    const stat = fs.fstatSync(fd);
    if (stat.size === row.file_size && stat.mtimeMs === row.file_mtime_ms) {
      return { report: unchanged(file, row), bytesRead: 0 };
    }
    // Not grown (touched, rewritten, cut short) or another file put in its place: the full import.
    if (stat.size <= row.file_size || stat.dev !== memo.dev || stat.ino !== memo.ino) return null;
    const base = row.imported_bytes;
    const start = Math.max(0, base - CHECK_WINDOW_BYTES);
    const bytes = Buffer.allocUnsafe(stat.size - start);
    let bytesRead = read(fd, bytes, start);
    if (bytesRead !== bytes.length) return null;
    const head = start === 0 ? bytes : Buffer.allocUnsafe(Math.min(CHECK_WINDOW_BYTES, base));
    if (start > 0) {
      bytesRead += read(fd, head, 0);
      if (bytesRead !== bytes.length + head.length) return null;
    }
    const at = (from: number, to: number): Buffer =>
      from < start ? head.subarray(from, to) : bytes.subarray(from - start, to - start);
    const seen = windowHashes(base, at);
    if (seen.headHash !== memo.headHash || seen.endHash !== memo.endHash) return null;
    const checked = blockHolds(fd, memo, read);
    bytesRead += checked.bytesRead;
    if (!checked.holds) return null;

    const tail = bytes.subarray(base - start);
    const tailEnd = completeLinesEnd(tail);
    const prefix = memo.prefix.copy().update(tail.subarray(0, tailEnd));
    const blocks = feedBlocks(memo.blocks, memo.block, base, tail.subarray(0, tailEnd));
    const importedHash = prefix.copy().digest("hex");
    const hash =
      tailEnd === tail.length ? importedHash : prefix.copy().update(tail.subarray(tailEnd)).digest("hex");
    const report = appendTail(db, row, {
      path: file,
      sourcePath,
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      tail,
      digest: { hash, importedHash, lines: row.imported_lines + countNewlines(tail, tailEnd) },
      // Entries brought back after the file was cut short: the full import merges them by id.
      prefixText: null,
    });
    if (report === null) return null;
    const imported = base + tailEnd;
    memos.set(sourcePath, {
      ...memo,
      importedBytes: imported,
      importedHash,
      prefix,
      headHash: start === 0 ? windowHashes(imported, at).headHash : memo.headHash,
      endHash: windowHashes(imported, at).endHash,
      ...blocks,
      nextBlock: memo.nextBlock + 1,
    });
    return { report, bytesRead };
  } finally {
    fs.closeSync(fd);
  }
}
