/**
 * A session file as its agent leaves it, for the live-file tests (export guard, concurrent
 * writes, live append and rewrite): a big deterministic one, aged long past the live window, or
 * grown by one appended user line.
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

/**
 * Writes a v3 session "big-1" of `entries` messages e0, e1, … on one path, ~2 kB each (user and
 * assistant in turn), deterministic; returns the last one's id.
 */
export function writeBigSession(target: string, entries: number): string {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "big-1",
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/w",
    }),
  ];
  let parent: string | null = null;
  for (let i = 0; i < entries; i++) {
    const id = `e${i}`;
    const role = i % 2 === 0 ? "user" : "assistant";
    const text = `${role} ${i} `.padEnd(2000, "abcdefghij ");
    lines.push(
      JSON.stringify({
        type: "message",
        id,
        parentId: parent,
        timestamp: "2026-03-01T10:00:01.000Z",
        message: { role, content: [{ type: "text", text }], timestamp: 1 },
      }),
    );
    parent = id;
  }
  fs.writeFileSync(target, `${lines.join("\n")}\n`);
  return parent as string;
}
