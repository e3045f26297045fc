/**
 * Version 7, for pruning (SPEC §7.1, D9). `entries.tool_facts` = `[toolName, prunedAt]` of a tool
 * result's message as SQLite's json_extract reads them, so a prune check reads ~50k short texts
 * instead of every tool output's JSON; insertEntries fills it for new rows, triggers on entry_json
 * keep it for rewritten ones, existing rows are filled here.
 * `entry_json.original_in_block`: the original is the entry's block text, not copied.
 */
import type { Migration } from "./types.ts";

/**
 * The facts of one JSON text; NULL for a text SQLite's JSON functions cannot read (nested past
 * their depth limit), which the reader parses itself. Literal on purpose: a shipped migration
 * never changes, whatever the repos call things later.
 */
const factsOf = (text: string) =>
  `CASE WHEN json_valid(${text}) THEN json_extract(${text}, '$.message.toolName', '$.message.prunedAt') END`;

/** An entry's text as stored in its block (entry_blocks, schema v4). */
const blockText = (entry: string) =>
  `(SELECT CAST(substr(b.data, ${entry}.json_at + 1, ${entry}.json_len) AS TEXT)
      FROM entry_blocks AS b WHERE b.block = ${entry}.json_block)`;

const IS_TOOL_RESULT = "type = 'message' AND role = 'toolResult'";

export const pruningColumns: Migration = {
  version: 7,
  name: "pruning: tool result facts, originals left in their blocks",
  up(db) {
    db.exec(`
      -- [toolName, prunedAt] of a tool result's message (JSON array text); NULL for every other
      -- entry and for a tool result whose text SQLite cannot read.
      ALTER TABLE entries ADD COLUMN tool_facts TEXT;

      -- 1: the text before Canopy changed the entry is its block's (entries.json_block/at/len,
      -- which never change for a pk) and original_json is NULL: pruning a stored entry keeps its
      -- original without copying it. 0: original_json is the original (or NULL: unchanged).
      ALTER TABLE entry_json ADD COLUMN original_in_block INTEGER NOT NULL DEFAULT 0
        CHECK (original_in_block IN (0, 1));

      -- A rewritten text (pruning, restore, an agent's id migration) is in entry_json.
      CREATE TRIGGER entry_json_tool_facts_insert AFTER INSERT ON entry_json BEGIN
        UPDATE entries SET tool_facts = ${factsOf("new.json")} WHERE pk = new.pk AND ${IS_TOOL_RESULT};
      END;
      CREATE TRIGGER entry_json_tool_facts_update AFTER UPDATE OF json ON entry_json BEGIN
        UPDATE entries SET tool_facts = ${factsOf("new.json")} WHERE pk = new.pk AND ${IS_TOOL_RESULT};
      END;
      -- Back to the block's text (nothing does this today; kept true should something start to).
      CREATE TRIGGER entry_json_tool_facts_delete AFTER DELETE ON entry_json BEGIN
        UPDATE entries SET tool_facts = (SELECT ${factsOf("t")} FROM (SELECT ${blockText("entries")} AS t))
         WHERE pk = old.pk AND ${IS_TOOL_RESULT};
      END;

      UPDATE entries SET tool_facts = (
        SELECT ${factsOf("t")}
          FROM (SELECT coalesce((SELECT j.json FROM entry_json AS j WHERE j.pk = entries.pk), ${blockText("entries")}) AS t))
       WHERE ${IS_TOOL_RESULT};
    `);
  },
};
