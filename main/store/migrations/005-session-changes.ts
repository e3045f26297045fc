/**
 * Version 5: which sessions changed, for the windows of a Canopy that did not make the change
 * (the CLI, a second app). Triggers give every written session a new `session_changes.seq`, the
 * library-wide order of writes; a serving process reads the rows past the last seq it saw.
 */
import type { Migration } from "./types.ts";

/**
 * Gives the session's row the next seq — one more than the newest (rows are never deleted, so
 * seqs never repeat) — and no writer (a Canopy connection signs it). An UPDATE, else an INSERT
 * of a new row, neither of which can meet a conflict: a conflict clause in a trigger gives way
 * to the outer statement's (`INSERT OR IGNORE INTO archived_entries` would turn an INSERT OR
 * REPLACE into an ignore), and ALTER TABLE … RENAME rewrites an upsert's `excluded.seq` in a
 * trigger into the table's own column.
 */
const touch = (sid: string) => `
  UPDATE session_changes SET seq = (SELECT max(seq) + 1 FROM session_changes), writer = NULL
  WHERE sid = ${sid};
  INSERT INTO session_changes (sid, seq, writer)
  SELECT ${sid}, (SELECT coalesce(max(seq), 0) + 1 FROM session_changes), NULL
  WHERE NOT EXISTS (SELECT 1 FROM session_changes WHERE sid = ${sid});`;

export const sessionChanges: Migration = {
  version: 5,
  name: "session change log",
  up(db) {
    db.exec(`
      -- One row per session written since this version: seq orders the writes library-wide;
      -- writer is the process id of the Canopy that wrote it (set by its connection's TEMP
      -- triggers, store/change-writer.ts), NULL for any other program. No foreign key: the
      -- row of a session removed for good stays, so the highest seq is never handed out again.
      CREATE TABLE session_changes (
        sid    INTEGER PRIMARY KEY,
        seq    INTEGER NOT NULL,
        writer INTEGER
      ) STRICT;
      CREATE INDEX session_changes_by_seq ON session_changes (seq);

      -- Every write that changes what a window shows updates the session row or its undo
      -- stack: imports, view leaf, rename, delete/restore, and every change of its entries
      -- (Canopy's own end in refreshSessionStats, undoing them in edit_ops). No trigger on
      -- entries: one makes each INSERT keep a statement journal, which with 64 KB pages made
      -- inserting 100,000 entries 3-4x slower.
      CREATE TRIGGER sessions_changed_insert AFTER INSERT ON sessions BEGIN ${touch("new.sid")} END;
      CREATE TRIGGER sessions_changed_update AFTER UPDATE ON sessions BEGIN ${touch("new.sid")} END;
      CREATE TRIGGER sessions_changed_delete AFTER DELETE ON sessions BEGIN ${touch("old.sid")} END;
      CREATE TRIGGER edit_ops_changed_insert AFTER INSERT ON edit_ops BEGIN ${touch("new.sid")} END;
      CREATE TRIGGER edit_ops_changed_update AFTER UPDATE ON edit_ops BEGIN ${touch("new.sid")} END;
      CREATE TRIGGER archived_changed_insert AFTER INSERT ON archived_entries BEGIN ${touch("new.sid")} END;
      CREATE TRIGGER archived_changed_delete AFTER DELETE ON archived_entries BEGIN ${touch("old.sid")} END;
    `);
  },
};
