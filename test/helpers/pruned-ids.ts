/**
 * Which entries of a session are pruned now (their originals kept in the library), sorted: what
 * tests check, since pruning:apply and pruning:restore answer counts, not ids.
 */
import type { Database } from "better-sqlite3";
import { requireSession } from "../../main/library/load.ts";
import { listPrunedEntryRows } from "../../main/store/repos/entry-json.ts";

export function prunedEntryIds(db: Database, sessionId: string): string[] {
  const { sid } = requireSession(db, sessionId);
  return listPrunedEntryRows(db, sid)
    .map((row) => row.id)
    .sort();
}
