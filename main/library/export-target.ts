/**
 * An export never replaces another session's file: when the path it is told to write already
 * holds a session file whose header id is not the exported session's (an agent session the
 * library has not imported, another library's), the export is refused. Other files, and an
 * earlier export of the same session, are replaced as before.
 */
import fs from "node:fs";

/** Enough bytes for any session header line. */
const HEADER_BYTES = 64 * 1024;

/** The header id of the session file at `file`, or null (no such file, not a session file). */
export function sessionFileHeaderId(file: string): string | null {
  let text: string;
  try {
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
    const fd = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(HEADER_BYTES);
      const read = fs.readSync(fd, buffer, 0, HEADER_BYTES, 0);
      text = buffer.subarray(0, read).toString("utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Unreadable: the write itself will say why.
    return null;
  }
  const first =
    text
      .replace(/^\uFEFF/, "")
      .trimStart()
      .split("\n", 1)[0] ?? "";
  try {
    const header = JSON.parse(first) as { type?: unknown; id?: unknown } | null;
    return header?.type === "session" && typeof header.id === "string" ? header.id : null;
  } catch {
    // Not JSON: not a session file.
    return null;
  }
}
