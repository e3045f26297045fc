/**
 * File-operation tracking for summaries (SPEC §6.7, behaviour 46): read/write/edit tool calls of
 * assistant messages, seeding from a previous summary's stored details, and the sorted
 * `readFiles` / `modifiedFiles` lists stored on compaction and branch-summary entries.
 */
import type { AgentMessage } from "../session/entries.ts";
import type { FileLists, FileOperations } from "./types.ts";

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function createFileOps(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/**
 * Adds the file operations of one message: only assistant `toolCall` blocks named read, write or
 * edit whose `arguments.path` is a non-empty string (other tools and argument names are ignored).
 */
export function addFileOpsFromMessage(ops: FileOperations, message: AgentMessage): void {
  if (message.role !== "assistant") return;
  const content: unknown = message.content;
  if (!Array.isArray(content)) return;
  // Indexed loop, tool name before arguments: this runs over every summarized message.
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (!isObject(block) || block.type !== "toolCall") continue;
    const name = block.name;
    const into =
      name === "read" ? ops.read : name === "write" ? ops.written : name === "edit" ? ops.edited : undefined;
    if (into === undefined || !isObject(block.arguments)) continue;
    const path = block.arguments.path;
    if (typeof path === "string" && path !== "") into.add(path);
  }
}

/** Stored `{readFiles, modifiedFiles}` details → read / edited (non-string items are skipped). */
export function seedFileOpsFromDetails(ops: FileOperations, details: unknown): void {
  if (!isObject(details)) return;
  const add = (list: unknown, into: Set<string>): void => {
    if (!Array.isArray(list)) return;
    for (const item of list) if (typeof item === "string" && item !== "") into.add(item);
  };
  add(details.readFiles, ops.read);
  add(details.modifiedFiles, ops.edited);
}

/** modifiedFiles = edited ∪ written; readFiles = read minus modified; both in default JS sort order. */
export function computeFileLists(ops: FileOperations): FileLists {
  const modified = new Set<string>([...ops.edited, ...ops.written]);
  const readFiles = [...ops.read].filter((path) => !modified.has(path)).sort();
  return { readFiles, modifiedFiles: [...modified].sort() };
}
