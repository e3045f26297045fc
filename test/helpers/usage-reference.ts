/**
 * session:usage as it was read before entry_usage (migration 11): every assistant reply and
 * tool result of the session read from its JSON, in seq order, a tool result parsed only when it
 * is a `task` one, each without its long texts. The reference the tests compare the route with
 * (to the last bit of the cost), and the baseline of bench/session-usage.bench.ts.
 */
import {
  addUsage,
  emptyUsageTotals,
  messageUsage,
  type UsageTotals,
} from "../../core/session/usage-totals.ts";
import { parseLean } from "../../core/text/lean-json.ts";
import { requireSession } from "../../main/library/load.ts";
import type { Database } from "../../main/store/open.ts";
import {
  EntryJsonReader,
  STORED_JSON_COLUMNS,
  type StoredJson,
} from "../../main/store/repos/entry-blocks.ts";

const TASK_RESULT = /"toolName"\s*:\s*"task"/;

export function sessionUsageReference(db: Database, sessionId: string): UsageTotals {
  const { sid } = requireSession(db, sessionId);
  const rows = db
    .prepare(
      `SELECT e.role AS role, ${STORED_JSON_COLUMNS}
         FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk
        WHERE e.sid = ? AND e.type = 'message' AND e.role IN ('assistant', 'toolResult')
        ORDER BY e.seq`,
    )
    .all(sid) as (StoredJson & { role: string })[];
  const reader = new EntryJsonReader(db, rows);
  const totals = emptyUsageTotals();
  for (const row of rows) {
    const json = reader.text(row);
    if (row.role === "toolResult" && !TASK_RESULT.test(json)) continue;
    const entry = parseLean(json, 64) as { message?: unknown } | null;
    addUsage(totals, messageUsage(entry?.message));
  }
  return totals;
}
