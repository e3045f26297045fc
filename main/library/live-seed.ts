/**
 * The memo of a live file (import-live.ts) made in the background: the imported prefix read
 * asynchronously and hashed a slice at a time, so the first append since start (or since another
 * import) reads only the new bytes without the serving thread reading and hashing the whole file.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import type { Database } from "../store/open.ts";
import { sha256Hex } from "./files.ts";
import { appendableRow, CHECK_WINDOW_BYTES, feedBlocks, holds, memosOf } from "./import-live.ts";

/** Bytes the background seed hashes per slice: about 2 ms of the serving thread each. */
export const SEED_SLICE_BYTES = 2 * 1024 * 1024;

export interface SeedOptions {
  /** Bytes read and hashed per slice (default SEED_SLICE_BYTES). */
  sliceBytes?: number;
  /** Asked before each slice: true gives up (e.g. the watcher was closed). */
  shouldStop?: () => boolean;
}

/**
 * True when `file` grew since its import but this process has no memo of it that holds (none
 * since start, or another import since, e.g. a folder scan on the import thread): its live
 * re-import would read and hash the whole file on this thread. seedLiveMemo makes the memo first.
 */
export function needsLiveSeed(db: Database, file: string): boolean {
  try {
    const sourcePath = fs.realpathSync(file);
    const row = appendableRow(db, sourcePath);
    if (row === null || holds(memosOf(db).get(sourcePath), row)) return false;
    return fs.statSync(sourcePath).size > row.file_size;
  } catch (error) {
    // Gone or unreadable: the import says why.
    void error;
    return false;
  }
}

/**
 * Makes the memo of a stored file the way the full import would (remember), without holding this
 * thread up: the imported prefix is read asynchronously and hashed a slice at a time, and kept
 * only if it still hashes to the stored imported_hash (else, as before, the next live re-import
 * takes the full import, which finds the change). True when a memo is there afterwards. Never
 * rejects.
 */
export async function seedLiveMemo(db: Database, file: string, options: SeedOptions = {}): Promise<boolean> {
  const sliceBytes = options.sliceBytes ?? SEED_SLICE_BYTES;
  const stop = () => options.shouldStop?.() === true || !db.open;
  let handle: fs.promises.FileHandle | null = null;
  try {
    const sourcePath = fs.realpathSync(file);
    const memos = memosOf(db);
    const row = appendableRow(db, sourcePath);
    if (row === null) return false;
    handle = await fs.promises.open(sourcePath, "r");
    const stat = await handle.stat();
    const base = row.imported_bytes;
    if (stat.size < base) return false;
    const prefix = createHash("sha256");
    let blocks: { blocks: number[]; block: number } = { blocks: [], block: 0 };
    // The head and end windows are copied out of the slices that hold them.
    const head = Buffer.alloc(Math.min(CHECK_WINDOW_BYTES, base));
    const endStart = Math.max(0, base - CHECK_WINDOW_BYTES);
    const end = Buffer.alloc(base - endStart);
    const slice = Buffer.allocUnsafe(Math.max(1, Math.min(sliceBytes, base)));
    for (let at = 0; at < base; ) {
      if (stop()) return false;
      const want = Math.min(slice.length, base - at);
      const { bytesRead } = await handle.read(slice, 0, want, at);
      if (bytesRead === 0) return false;
      const data = slice.subarray(0, bytesRead);
      prefix.update(data);
      blocks = feedBlocks(blocks.blocks, blocks.block, at, data);
      if (at < head.length) data.copy(head, at, 0, Math.min(bytesRead, head.length - at));
      if (at + bytesRead > endStart) data.copy(end, Math.max(0, at - endStart), Math.max(0, endStart - at));
      at += bytesRead;
    }
    if (stop() || prefix.copy().digest("hex") !== row.imported_hash) return false;
    const now = appendableRow(db, sourcePath);
    // Imported again meanwhile by the export guard: the memo it left holds; the one made here may not.
    if (now !== null && holds(memos.get(sourcePath), now)) return true;
    // By the import thread (or another process): what was hashed here is no longer the stored prefix.
    if (
      now === null ||
      now.sid !== row.sid ||
      now.imported_bytes !== base ||
      now.imported_hash !== row.imported_hash
    ) {
      return false;
    }
    memos.set(sourcePath, {
      sid: row.sid,
      importedBytes: base,
      importedHash: row.imported_hash,
      prefix,
      dev: stat.dev,
      ino: stat.ino,
      headHash: sha256Hex(head),
      endHash: sha256Hex(end),
      ...blocks,
      nextBlock: 0,
    });
    return true;
  } catch (error) {
    // Unreadable now, or the library closed: no memo; the live re-import does what it did before.
    void error;
    return false;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
