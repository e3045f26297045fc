/**
 * The test oracle for the prune check (SPEC §7.1) since tool_facts (migration 008): the check as
 * it was before (main at c955775), each tool result's tool name and prunedAt read from its JSON
 * on every check, for tests to compare today's route with.
 */
import type { Database } from "better-sqlite3";
import type { ToolOutput } from "../../core/compaction/pruning.ts";
import { loadPathLinks } from "../../main/pipelines/session-state.ts";
import { type EntryLink, entryJsonByPk } from "../../main/store/repos/entries.ts";

const TEXT = "coalesce(j.json, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT))";

/** The path's tool results, newest first, as the check before tool_facts read them. */
export function previousToolOutputs(db: Database, sessionId: string, leafId?: string | null): ToolOutput[] | null {
  const walked = loadPathLinks(db, sessionId, leafId);
  if (walked === null) return null;
  const results = walked.up
    .map((position) => walked.links[position] as EntryLink)
    .filter((link) => link[3] === "message" && link[4] === "toolResult");
  const facts = db
    .prepare(
      `SELECT tokens, CASE WHEN json_valid(text) THEN json_extract(text, '$.message.toolName', '$.message.prunedAt') END AS pair
         FROM (SELECT k.key AS key, e.tokens AS tokens, ${TEXT} AS text
                 FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
                 LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block)
        ORDER BY key`,
    )
    .all(JSON.stringify(results.map((link) => link[0]))) as { tokens: number; pair: string | null }[];
  return facts.map((fact, i): ToolOutput => {
    const [pk, id] = results[i] as EntryLink;
    let toolName: unknown;
    let prunedAt: unknown;
    if (fact.pair !== null) [toolName, prunedAt] = JSON.parse(fact.pair) as [unknown, unknown];
    else {
      const { message } = JSON.parse(entryJsonByPk(db, [pk])[0] as string) as {
        message: { toolName?: unknown; prunedAt?: unknown };
      };
      toolName = message.toolName ?? null;
      prunedAt = message.prunedAt ?? null;
    }
    return { entryId: id ?? undefined, tokens: fact.tokens, toolName, pruned: prunedAt !== null };
  });
}
