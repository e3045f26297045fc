/**
 * A session file as its agent leaves it, for the live-file tests (export guard, concurrent
 * writes): aged long past the live window, or grown by one appended user line.
 */
import fs from "node:fs";

/** Sets the file's modification time to ten minutes ago (long before the live window). */
export function makeOld(file: string): void {
  const old = new Date(Date.now() - 10 * 60_000);
  fs.utimesSync(file, old, old);
}

/** Appends a user message `id` (text "appended <id>"), child of `parentId`, as one complete line. */
export function appendUserLine(file: string, id: string, parentId: string): void {
  const entry = {
    type: "message",
    id,
    parentId,
    timestamp: "2026-02-01T11:00:00.000Z",
    message: { role: "user", content: [{ type: "text", text: `appended ${id}` }], timestamp: 1 },
  };
  fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
}
