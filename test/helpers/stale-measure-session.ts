/**
 * A small session whose last measured usage comes from before its compaction (SPEC §4.4), for the
 * tests of "stale until the next reply": u1 → a1 (measured 5000) → compaction c1 keeping a1 → u2
 * [→ a2 (measured 900), a reply after the compaction], written as a JSONL file.
 */
import { writeFileSync } from "node:fs";

const at = "2026-03-01T09:00:00.000Z";
const reply = (text: string, totalTokens: number) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage: { input: totalTokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens },
  stopReason: "stop",
  timestamp: 2,
});
const line = (id: string, parentId: string | null, message: object) => ({
  type: "message",
  id,
  parentId,
  timestamp: at,
  message,
});

/** Writes the session `sessionId` to `file` (with a2 when `replyAfter`); returns `file`. */
export function writeStaleMeasureSession(file: string, sessionId: string, replyAfter: boolean): string {
  const lines: object[] = [
    { type: "session", version: 3, id: sessionId, timestamp: at, cwd: "/w" },
    line("u1", null, { role: "user", content: "Start", timestamp: 1 }),
    line("a1", "u1", reply("Done a lot", 5000)),
    {
      type: "compaction",
      id: "c1",
      parentId: "a1",
      timestamp: at,
      summary: "Did a lot.",
      firstKeptEntryId: "a1",
      tokensBefore: 5000,
    },
    line("u2", "c1", { role: "user", content: "Go on", timestamp: 3 }),
  ];
  if (replyAfter) lines.push(line("a2", "u2", reply("Going on", 900)));
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return file;
}
