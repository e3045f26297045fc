/**
 * A generated session (bench/generate-session.ts: branches, compactions, branch summaries, labels)
 * made hostile, deterministically: orphans (a parent that never comes, or only later), duplicate
 * ids, entries without an id, self-parents, cycles, parent ids that are not strings, unknown
 * types, and more labels (set, moved, cleared, on unknown ids). For comparing tree builders.
 */
import { generateSession } from "../../bench/generate-session.ts";

type Line = Record<string, unknown> & { id?: unknown; parentId?: unknown; type?: unknown };

export function hostileSessionText(count: number, seed: number): string {
  const lines = generateSession(count, { seed })
    .text.split("\n")
    .filter((line) => line !== "");
  const entries = lines.map((line) => JSON.parse(line) as Line);
  const out: Line[] = [];
  const idAt = (at: number): string => String(entries[at]?.id ?? "nowhere");
  for (let at = 0; at < entries.length; at++) {
    const entry = { ...(entries[at] as Line) };
    if (at === 0 || entry.type === "session") {
      out.push(entry);
      continue;
    }
    if (at % 97 === 0) entry.parentId = `gone-${at}`;
    else if (at % 101 === 0) entry.parentId = idAt(at + 7);
    else if (at % 211 === 0) entry.parentId = entry.id;
    else if (at % 241 === 0) entry.parentId = 42;
    else if (at % 251 === 0) delete entry.parentId;
    if (at % 173 === 0) delete entry.id;
    if (at % 307 === 0) entry.id = 7;
    out.push(entry);
    // The same id again a little later: the later entry wins (an edit of a message, a copy).
    if (at % 131 === 0 && typeof entry.id === "string") {
      out.push({ ...entry, timestamp: "2026-06-02T00:00:00.000Z", parentId: idAt(at - 2) });
    }
    if (at % 149 === 0) {
      const label = at % 3 === 0 ? "" : `mark ${at}`;
      out.push({
        type: "label",
        id: `label-${at}`,
        parentId: entry.id ?? null,
        timestamp: "2026-06-02T00:00:01.000Z",
        targetId: idAt(at - (at % 5)),
        label,
      });
    }
    if (at % 157 === 0)
      out.push({
        type: "label",
        id: `label-x${at}`,
        parentId: null,
        timestamp: "2026-06-02T00:00:02.000Z",
        targetId: `gone-${at}`,
        label: "nothing there",
      });
    if (at % 263 === 0)
      out.push({
        type: "future_thing",
        id: `future-${at}`,
        parentId: idAt(at),
        timestamp: "2026-06-02T00:00:03.000Z",
        data: { x: at },
      });
  }
  return `${out.map((entry) => JSON.stringify(entry)).join("\n")}\n`;
}
