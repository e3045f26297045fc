/**
 * Version 4: entries' JSON stored in blocks. An import writes the JSON texts of consecutive
 * entries as one BLOB (`entry_blocks`, bytes as read) and each entry points at its slice
 * (`entries.json_block/json_at/json_len`): one row per ~16 KB instead of one per entry.
 * `entry_json` keeps the entries written before this version and every edited entry's JSON.
 */
import type { Migration } from "./types.ts";

export const entryBlocks: Migration = {
  version: 4,
  name: "entry JSON in blocks",
  up(db) {
    db.exec(`
      CREATE TABLE entry_blocks (
        block INTEGER PRIMARY KEY,
        sid   INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
        data  BLOB NOT NULL
      ) STRICT;
      CREATE INDEX entry_blocks_by_session ON entry_blocks (sid);

      -- Where the entry's JSON is when it has no entry_json row: bytes [json_at, json_at + json_len) of the block.
      ALTER TABLE entries ADD COLUMN json_block INTEGER;
      ALTER TABLE entries ADD COLUMN json_at INTEGER;
      ALTER TABLE entries ADD COLUMN json_len INTEGER;
    `);
  },
};
