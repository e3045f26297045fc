/**
 * Version 11: what each reply adds to its session's usage statistics (SPEC §2.1), kept beside its
 * entry (`entry_usage`), so the totals read no JSON; and which rows are to be read from their JSON
 * instead: sessions stored before this version (`usage_legacy`), entries Canopy rewrote since (`usage_unread`).
 */
import type { Migration } from "./types.ts";

/** The rows whose JSON can carry usage (assistant replies, task results), as the totals read them. */
const CARRIES_USAGE = "type = 'message' AND role IN ('assistant', 'toolResult')";

export const entryUsage: Migration = {
  version: 11,
  name: "usage statistics: each reply's usage beside its entry",
  up(db) {
    // Literal on purpose: a shipped migration never changes, whatever the repos do later.
    db.exec(`
      -- One row per entry that adds a reply to the totals: its usage's amounts, an odd value 0
      -- (core/session/usage-totals.ts usageAmounts). No row: the entry adds nothing.
      CREATE TABLE entry_usage (
        pk          INTEGER PRIMARY KEY REFERENCES entries (pk) ON DELETE CASCADE,
        input       REAL NOT NULL,
        output      REAL NOT NULL,
        cache_read  REAL NOT NULL,
        cache_write REAL NOT NULL,
        cost        REAL NOT NULL
      ) STRICT;

      -- Sessions whose entries were stored before this version: none has its row yet.
      CREATE TABLE usage_legacy (
        sid INTEGER PRIMARY KEY REFERENCES sessions (sid) ON DELETE CASCADE
      ) STRICT;
      INSERT INTO usage_legacy (sid) SELECT sid FROM sessions;

      -- Entries whose JSON Canopy rewrote (pruning, its restore, an agent's id migration) since
      -- their row was taken: read from the JSON they have now. An entry_json row is only ever
      -- deleted with its entry (whose usage rows go with it). No INSERT OR IGNORE: the statement that
      -- fires a trigger (an upsert into entry_json) overrides a conflict clause inside it.
      CREATE TABLE usage_unread (
        pk  INTEGER PRIMARY KEY REFERENCES entries (pk) ON DELETE CASCADE,
        sid INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX usage_unread_by_session ON usage_unread (sid);
      CREATE TRIGGER entry_json_usage_insert AFTER INSERT ON entry_json BEGIN
        INSERT INTO usage_unread (pk, sid) SELECT pk, sid FROM entries
         WHERE pk = new.pk AND ${CARRIES_USAGE} AND NOT EXISTS (SELECT 1 FROM usage_unread WHERE pk = new.pk);
      END;
      CREATE TRIGGER entry_json_usage_update AFTER UPDATE OF json ON entry_json BEGIN
        INSERT INTO usage_unread (pk, sid) SELECT pk, sid FROM entries
         WHERE pk = new.pk AND ${CARRIES_USAGE} AND NOT EXISTS (SELECT 1 FROM usage_unread WHERE pk = new.pk);
      END;
    `);
  },
};
