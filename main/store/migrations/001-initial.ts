/**
 * Version 1: sessions, entries (original JSON verbatim + indexed columns), malformed lines,
 * settings and the FTS5 index over message text. See DESIGN §4 for the why of each column.
 */
import type { Migration } from "./types.ts";

export const initial: Migration = {
  version: 1,
  name: "initial schema",
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        id                   TEXT PRIMARY KEY,
        header_id            TEXT NOT NULL,
        source_path          TEXT,
        dialect              TEXT NOT NULL CHECK (dialect IN ('pi', 'omp')),
        original_version     INTEGER NOT NULL,
        header_json          TEXT NOT NULL,
        header_line          INTEGER NOT NULL DEFAULT 1,
        cwd                  TEXT NOT NULL DEFAULT '',
        title                TEXT,
        created              TEXT NOT NULL,
        modified             TEXT NOT NULL,
        file_size            INTEGER NOT NULL DEFAULT 0,
        file_mtime_ms        REAL,
        file_hash            TEXT,
        imported_bytes       INTEGER NOT NULL DEFAULT 0,
        imported_hash        TEXT,
        imported_lines       INTEGER NOT NULL DEFAULT 0,
        provisional_seq      INTEGER,
        line_shift           INTEGER NOT NULL DEFAULT 0,
        view_leaf_id         TEXT,
        view_leaf_set        INTEGER NOT NULL DEFAULT 0 CHECK (view_leaf_set IN (0, 1)),
        is_demo              INTEGER NOT NULL DEFAULT 0 CHECK (is_demo IN (0, 1)),
        entry_count          INTEGER NOT NULL DEFAULT 0,
        message_count        INTEGER NOT NULL DEFAULT 0,
        compaction_count     INTEGER NOT NULL DEFAULT 0,
        branch_summary_count INTEGER NOT NULL DEFAULT 0,
        malformed_count      INTEGER NOT NULL DEFAULT 0,
        problem_count        INTEGER NOT NULL DEFAULT 0,
        problems_json        TEXT NOT NULL DEFAULT '[]',
        first_message        TEXT,
        display_name         TEXT,
        compaction_title     TEXT,
        file_leaf_id         TEXT,
        last_leaf_id         TEXT,
        imported_at          TEXT NOT NULL,
        updated_at           TEXT NOT NULL
      ) STRICT;
      CREATE INDEX sessions_by_source_path ON sessions (source_path);
      CREATE INDEX sessions_by_header_id ON sessions (header_id);
      CREATE INDEX sessions_by_modified ON sessions (modified DESC);

      CREATE TABLE entries (
        pk            INTEGER PRIMARY KEY,
        session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq           INTEGER NOT NULL,
        id            TEXT,
        parent_id     TEXT,
        type          TEXT NOT NULL,
        role          TEXT,
        model         TEXT,
        timestamp     TEXT,
        tokens        INTEGER NOT NULL DEFAULT 0,
        json          TEXT NOT NULL,
        original_json TEXT,
        origin        TEXT NOT NULL DEFAULT 'file' CHECK (origin IN ('file', 'canopy')),
        UNIQUE (session_id, seq)
      ) STRICT;
      CREATE INDEX entries_by_id ON entries (session_id, id, seq);
      CREATE INDEX entries_by_parent ON entries (session_id, parent_id, seq);
      CREATE INDEX entries_by_type ON entries (session_id, type, role);

      CREATE TABLE malformed_lines (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        raw        TEXT NOT NULL,
        error      TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) STRICT;

      CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value_json TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE VIRTUAL TABLE entry_text USING fts5 (
        text,
        session_id UNINDEXED,
        entry_id UNINDEXED,
        role UNINDEXED,
        tokenize = 'unicode61 remove_diacritics 2'
      );
      -- The FTS row shares the entry's pk as rowid, so a deleted entry (directly or through the
      -- session's ON DELETE CASCADE) takes its search text with it.
      CREATE TRIGGER entries_delete_text AFTER DELETE ON entries BEGIN
        DELETE FROM entry_text WHERE rowid = old.pk;
      END;
    `);
  },
};
