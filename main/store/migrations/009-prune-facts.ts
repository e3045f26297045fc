/**
 * Version 9, for pruning (SPEC §7.1, D9). `tool_facts`: what a prune check reads of a tool
 * result's JSON, kept beside the entry so later checks read no JSON. Filled by the prune check
 * itself (tool-facts.ts), never by an import; triggers on entry_json keep a filled row true when
 * Canopy rewrites the entry. `entry_json.original_in_block`: the original is the entry's block text.
 */
import type { Migration } from "./types.ts";

/**
 * A row's facts from a JSON text, as the prune check read them before this table: SQLite's JSON
 * functions, NULLs for a text they cannot read (nested past their depth limit), which the reader
 * parses itself. Literal on purpose: a shipped migration never changes, whatever the repos do later.
 */
const prunedOf = (text: string) =>
  `CASE WHEN json_valid(${text}) THEN json_extract(${text}, '$.message.prunedAt') IS NOT NULL END`;
const toolNameOf = (text: string) => `CASE WHEN json_valid(${text}) THEN ${text} -> '$.message.toolName' END`;

export const pruneFacts: Migration = {
  version: 9,
  name: "pruning: tool result facts beside the entries, originals left in their blocks",
  up(db) {
    db.exec(`
      -- One row per tool result a prune check has read (none for an entry no check reached).
      -- pruned: 1 when message.prunedAt is set (not null), 0 when not, NULL when SQLite cannot read
      -- the text. tool_name: message.toolName as JSON text ('"bash"'), NULL when missing/unreadable.
      CREATE TABLE tool_facts (
        pk        INTEGER PRIMARY KEY REFERENCES entries (pk) ON DELETE CASCADE,
        pruned    INTEGER CHECK (pruned IN (0, 1)),
        tool_name TEXT
      ) STRICT;

      -- 1: the text before Canopy changed the entry is its block's (entries.json_block/at/len,
      -- which never change for a pk) and original_json is NULL: pruning a stored entry keeps its
      -- original without copying it. 0: original_json is the original (or NULL: unchanged).
      ALTER TABLE entry_json ADD COLUMN original_in_block INTEGER NOT NULL DEFAULT 0
        CHECK (original_in_block IN (0, 1));

      -- A rewritten text (pruning, restore, an agent's id migration) updates a row already filled;
      -- an entry without one is read by the next check. Imports never write entry_json.
      CREATE TRIGGER entry_json_tool_facts_insert AFTER INSERT ON entry_json BEGIN
        UPDATE tool_facts SET pruned = ${prunedOf("new.json")}, tool_name = ${toolNameOf("new.json")}
         WHERE pk = new.pk;
      END;
      CREATE TRIGGER entry_json_tool_facts_update AFTER UPDATE OF json ON entry_json BEGIN
        UPDATE tool_facts SET pruned = ${prunedOf("new.json")}, tool_name = ${toolNameOf("new.json")}
         WHERE pk = new.pk;
      END;
      -- Back to the block's text (nothing does this but a deleted entry): read again when needed.
      CREATE TRIGGER entry_json_tool_facts_delete AFTER DELETE ON entry_json BEGIN
        DELETE FROM tool_facts WHERE pk = old.pk;
      END;
    `);
  },
};
