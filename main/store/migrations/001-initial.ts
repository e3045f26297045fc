/**
 * Version 1: sessions, entries (indexed columns) + entry_json (original JSON verbatim),
 * malformed lines, settings, and the FTS5 index over message text (filled behind a watermark).
 */
import type { Migration } from "./types.ts";

export const initial: Migration = {
  version: 1,
  name: "initial schema",
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        sid                  INTEGER PRIMARY KEY,
        id                   TEXT NOT NULL UNIQUE,
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

      -- Structural columns only: narrow rows make whole-session scans (tree shape, counts) cheap.
      -- pk is handed out by insertEntries from the 'entries.next_pk' counter in store_meta, so it
      -- stays monotonic even after the newest entry is deleted (the search-index watermark relies
      -- on that) without AUTOINCREMENT's extra sqlite_sequence write on every row.
      CREATE TABLE entries (
        pk        INTEGER PRIMARY KEY,
        sid       INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
        seq       INTEGER NOT NULL,
        id        TEXT,
        parent_id TEXT,
        type      TEXT NOT NULL,
        role      TEXT,
        model     TEXT,
        timestamp TEXT,
        tokens    INTEGER NOT NULL DEFAULT 0,
        origin    TEXT NOT NULL DEFAULT 'file' CHECK (origin IN ('file', 'canopy')),
        UNIQUE (sid, seq)
      ) STRICT;
      CREATE INDEX entries_by_id ON entries (sid, id, seq);

      -- The entry's JSON text, verbatim as read (v3) or as migrated (v1/v2); original_json holds
      -- the text before Canopy changed the entry (e.g. pruning, D9), for "export originals".
      CREATE TABLE entry_json (
        pk            INTEGER PRIMARY KEY REFERENCES entries (pk) ON DELETE CASCADE,
        json          TEXT NOT NULL,
        original_json TEXT
      ) STRICT;

      CREATE TABLE malformed_lines (
        sid   INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
        seq   INTEGER NOT NULL,
        raw   TEXT NOT NULL,
        error TEXT NOT NULL,
        PRIMARY KEY (sid, seq)
      ) STRICT;

      CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value_json TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      -- Internal bookkeeping (not user settings), e.g. the search-index watermark.
      CREATE TABLE store_meta (
        key   TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      ) STRICT;

      -- Contentless: the text is not stored twice (snippets are cut from entry_json). rowid is
      -- the entry's pk; session and entry ids come from a join on entries.
      CREATE VIRTUAL TABLE entry_text USING fts5 (
        text,
        content = '',
        contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER entries_delete_text AFTER DELETE ON entries BEGIN
        DELETE FROM entry_text WHERE rowid = old.pk;
      END;
    `);
  },
};
