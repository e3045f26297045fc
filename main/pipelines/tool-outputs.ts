/**
 * A leaf's tool results as the pruning rule reads them (SPEC §7.1), without parsing a
 * 100k-entry session: the path is walked on the structural columns, the token estimate is the
 * one the library stores, and each result's tool name and `prunedAt` are read by SQLite's JSON
 * functions, so the outputs themselves never reach JS.
 */
import type { ToolOutput } from "../../core/compaction/pruning.ts";
import type { Database } from "../store/open.ts";
import { type EntryLink, entryJsonByPk, toolOutputFactsByPk } from "../store/repos/entries.ts";
import { loadPathLinks } from "./session-state.ts";

export interface PathToolOutputs {
  viewLeafId: string | null;
  leafId: string | null;
  /** The path's tool results, newest first. */
  outputs: ToolOutput[];
  /** The library row (pk) of each result, by entry id. */
  pkOf: Map<string, number>;
}

/**
 * The tool results of the path loadSessionState would give for this leaf (same leaf, same
 * errors); null for a session with tree problems (D3), whose path needs core's repairs.
 */
export function loadToolOutputs(
  db: Database,
  sessionId: string,
  leafId?: string | null,
): PathToolOutputs | null {
  const walked = loadPathLinks(db, sessionId, leafId);
  if (walked === null) return null;
  const results: EntryLink[] = [];
  for (const position of walked.up) {
    const link = walked.links[position] as EntryLink;
    if (link[3] === "message" && link[4] === "toolResult") results.push(link);
  }
  const facts = toolOutputFactsByPk(
    db,
    results.map((link) => link[0]),
  );
  const unreadable = facts.flatMap((fact, i) => (fact.toolNameAndPrunedAt === null ? [(results[i] as EntryLink)[0]] : []));
  const whole = unreadable.length === 0 ? [] : entryJsonByPk(db, unreadable);
  let next = 0;
  const pkOf = new Map<string, number>();
  const outputs = facts.map((fact, i): ToolOutput => {
    const [pk, id] = results[i] as EntryLink;
    if (id !== null) pkOf.set(id, pk);
    let toolName: unknown;
    let prunedAt: unknown;
    if (fact.toolNameAndPrunedAt !== null) [toolName, prunedAt] = JSON.parse(fact.toolNameAndPrunedAt) as [unknown, unknown];
    else {
      // Nested deeper than SQLite reads JSON: parsed here, as the full route reads it.
      const { message } = JSON.parse(whole[next++] as string) as { message: { toolName?: unknown; prunedAt?: unknown } };
      toolName = message.toolName ?? null;
      prunedAt = message.prunedAt ?? null;
    }
    return { entryId: id ?? undefined, tokens: fact.tokens, toolName, pruned: prunedAt !== null };
  });
  return { viewLeafId: walked.viewLeafId, leafId: walked.leafId, outputs, pkOf };
}
