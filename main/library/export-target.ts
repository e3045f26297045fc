/**
 * An export never replaces another session's file: when the path it is told to write already
 * holds a session file whose header id is not the exported session's (an agent session the
 * library has not imported, another library's), the export is refused. Other files, and an
 * earlier export of the same session, are replaced as before.
 */
import fs from "node:fs";
import { openSource } from "./import-source.ts";

/** Enough bytes for any session header line. */
const HEADER_BYTES = 64 * 1024;

/**
 * The header id of the session file at `file`, or null (no such file, not a session file), read
 * from its first bytes the way an import reads it (`openSource`).
 */
export function sessionFileHeaderId(file: string): string | null {
  let head: Buffer;
  try {
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
    const fd = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(HEADER_BYTES);
      head = buffer.subarray(0, fs.readSync(fd, buffer, 0, HEADER_BYTES, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Unreadable: the write itself will say why.
    return null;
  }
  const opened = openSource(head);
  return opened.ok ? opened.source.header.id : null;
}
