/**
 * A hand-made v3 session for the tree tests, an entry at a time: any entry type, stamped a second
 * after the one before; user messages whose text is their id; the lines written as a JSONL file.
 */
import { writeFileSync } from "node:fs";

export function sessionLines(id: string) {
  const lines: object[] = [
    { type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" },
  ];
  let clock = 0;
  /** An entry of `type` with the `extra` fields. */
  const add = (entryId: string, parentId: string | null, type: string, extra: object) => {
    clock++;
    lines.push({
      type,
      id: entryId,
      parentId,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock)).toISOString(),
      ...extra,
    });
  };
  /** A user message whose text is its id. */
  const user = (entryId: string, parentId: string | null) =>
    add(entryId, parentId, "message", { message: { role: "user", content: entryId, timestamp: clock } });
  /** Writes the lines to `file` as JSONL; returns `file`. */
  const write = (file: string): string => {
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    return file;
  };
  return { lines, add, user, write };
}
