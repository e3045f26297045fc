/**
 * Version 2: Canopy's own edits. `edit_ops` is each session's undo/redo stack (what every edit
 * changed, as JSON), `archived_entries` the roots of archived subtrees, and
 * `sessions.canopy_title` a rename kept in the library (written only on export).
 */
import type { Migration } from "./types.ts";

export const edits: Migration = {
  version: 2,
  name: "edits: undo stack, archived subtrees, rename",
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN canopy_title TEXT;

      CREATE TABLE edit_ops (
        op_id      INTEGER PRIMARY KEY,
        sid        INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
        kind       TEXT NOT NULL,
        state      TEXT NOT NULL CHECK (state IN ('done', 'undone')),
        data_json  TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX edit_ops_by_session ON edit_ops (sid, op_id);

      CREATE TABLE archived_entries (
        sid      INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
        entry_id TEXT NOT NULL,
        PRIMARY KEY (sid, entry_id)
      ) STRICT;
    `);
  },
};
