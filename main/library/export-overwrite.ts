/**
 * Whether an earlier export of a session has been written to since: an agent that resumed it
 * appends its work at the end of that file, below the export's last line, entries the library
 * does not have. Read from the file's end backwards, a line at a time, until its last entry
 * decides, so a file of any size costs a few lines and is never read whole.
 */
import fs from "node:fs";
import { RESUME_CUSTOM_TYPE } from "./export-lines.ts";

const CHUNK_BYTES = 64 * 1024;

/** An entry of the file the library does not have. */
export interface UnknownEntry {
  id: string;
  type: string;
}

/**
 * What one line says: an entry an agent appended, "stop" (the file ends as Canopy wrote it: an
 * entry the library knows, the header, Canopy's resume marker, which an export writes last, or
 * the session_info of a rename, below a known entry), or undefined to read on (a blank or
 * malformed line, a session_info the agent wrote).
 */
function judge(line: Buffer, known: (id: string) => boolean): UnknownEntry | "stop" | undefined {
  const text = line.toString("utf8").trim();
  if (text === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { type, id, parentId, customType } = value as Record<string, unknown>;
  if (type === "session") return "stop";
  if (typeof id !== "string") return undefined;
  if (type === "custom" && customType === RESUME_CUSTOM_TYPE) return "stop";
  if (type === "session_info")
    return parentId === null || (typeof parentId === "string" && known(parentId)) ? "stop" : undefined;
  if (known(id)) return "stop";
  return { id, type: typeof type === "string" ? type : "unknown" };
}

/**
 * The entry an agent appended at the end of `file` (one `known` does not know, after Canopy's
 * own last line); null when the file ends as an export ends (or has nothing to judge).
 */
export function appendedUnknownEntry(file: string, known: (id: string) => boolean): UnknownEntry | null {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    // Not there, or unreadable: the write itself will say why.
    return null;
  }
  try {
    let position = fs.fstatSync(fd).size;
    // The bytes after the newline last met, up to the line already judged, in file order.
    let carry: Buffer[] = [];
    while (position > 0) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      fs.readSync(fd, chunk, 0, length, position);
      let end = length;
      for (let index = length - 1; index >= 0; index--) {
        if (chunk[index] !== 0x0a) continue;
        const verdict = judge(Buffer.concat([chunk.subarray(index + 1, end), ...carry]), known);
        carry = [];
        end = index;
        if (verdict === "stop") return null;
        if (verdict !== undefined) return verdict;
      }
      carry = [chunk.subarray(0, end), ...carry];
    }
    const verdict = judge(Buffer.concat(carry), known);
    return verdict === "stop" || verdict === undefined ? null : verdict;
  } finally {
    fs.closeSync(fd);
  }
}
