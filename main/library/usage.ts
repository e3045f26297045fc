/**
 * A session's usage statistics (SPEC §2.1, core/session/usage-totals.ts) read from the library:
 * only assistant replies and tool results are read, each parsed without its long texts, and a
 * tool result only when it is a `task` one (the text says so before it is parsed). The totals are
 * kept per connection and session: while rows were only added since (an agent's append, a
 * reply), only those are read; any other change (an undo, a rewritten file) reads all again.
 */
import { addUsage, emptyUsageTotals, messageUsage, type UsageTotals } from "../../core/session/usage-totals.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import type { Database } from "../store/open.ts";
import { countEntriesAbovePk, entryRowsUpTo, forEachMessageJson } from "../store/repos/entries.ts";
import { requireSession } from "./load.ts";

/** A task tool result's JSON names its tool so (any spacing JSON allows). */
const TASK_RESULT = /"toolName"\s*:\s*"task"/;

/** Long strings (texts, thinking, tool outputs) matter not: only their usage is wanted. */
const KEEP_CHARS = 64;

interface Counted {
  /** The session's rows when the totals were taken: how many, and the highest pk. */
  count: number;
  maxPk: number;
  totals: UsageTotals;
}

const kept = new WeakMap<Database, Map<number, Counted>>();

function addRows(db: Database, sid: number, afterPk: number, totals: UsageTotals): void {
  forEachMessageJson(db, sid, ["assistant", "toolResult"], afterPk, (json, role) => {
    if (role === "toolResult" && !TASK_RESULT.test(json)) return;
    const entry = parseLean(json, KEEP_CHARS) as { message?: unknown } | null;
    addUsage(totals, messageUsage(entry?.message));
  });
}

export function sessionUsage(db: Database, sessionId: string): UsageTotals {
  const { sid } = requireSession(db, sessionId);
  let bySession = kept.get(db);
  if (!bySession) {
    bySession = new Map();
    kept.set(db, bySession);
  }
  const now = entryRowsUpTo(db, sid, Number.MAX_SAFE_INTEGER);
  const before = bySession.get(sid);
  if (before && before.count === now.count && before.maxPk === now.maxPk) return { ...before.totals };
  // pks only grow: rows added since are those above the kept maximum, and when they account for
  // the whole growth nothing else changed.
  let totals: UsageTotals | null = null;
  if (before && now.maxPk > before.maxPk) {
    const added = countEntriesAbovePk(db, sid, before.maxPk);
    if (before.count + added === now.count) {
      totals = { ...before.totals };
      addRows(db, sid, before.maxPk, totals);
    }
  }
  if (!totals) {
    totals = emptyUsageTotals();
    addRows(db, sid, 0, totals);
  }
  bySession.set(sid, { ...now, totals });
  return { ...totals };
}
