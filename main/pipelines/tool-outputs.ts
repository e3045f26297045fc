/**
 * A leaf's tool results as the pruning rule reads them (SPEC §7.1), without parsing a
 * 100k-entry session: the path is walked on the structural columns, the token estimate is the
 * one the library stores, and each result's tool name and `prunedAt` come from tool_facts
 * (migration 009), which this check fills for the results that have no row yet (the first check
 * of a session, entries appended since): imports never pay for it, later checks read no JSON.
 */
import type { ToolOutput } from "../../core/compaction/pruning.ts";
import type { Database } from "../store/open.ts";
import { type EntryLink, entryJsonByPk } from "../store/repos/entries.ts";
import { readToolFacts, storeToolFacts, type ToolFactRow } from "../store/repos/tool-facts.ts";
import { loadPathLinks } from "./session-state.ts";

export interface PathToolOutputs {
  viewLeafId: string | null;
  leafId: string | null;
  /** The path's tool results, newest first. */
  outputs: ToolOutput[];
  /** The library row (pk) of a result, by entry id (the map is built at the first call). */
  pkOf(entryId: string): number | undefined;
}

/** The facts of `pks`, those no check has read yet read from their JSON and stored first. */
function factsOf(db: Database, pks: readonly number[]): ToolFactRow[] {
  const facts = readToolFacts(db, pks);
  const missing = facts.flatMap((fact, i) => (fact[1] === 0 ? [i] : []));
  if (missing.length === 0) return facts;
  const filled = storeToolFacts(
    db,
    missing.map((i) => pks[i] as number),
  );
  missing.forEach((at, i) => {
    facts[at] = filled[i] as ToolFactRow;
  });
  return facts;
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
  const facts = factsOf(
    db,
    results.map((link) => link[0]),
  );
  const unreadable = facts.flatMap((fact, i) => (fact[2] === null ? [(results[i] as EntryLink)[0]] : []));
  const whole = unreadable.length === 0 ? [] : entryJsonByPk(db, unreadable);
  let next = 0;
  // Most tool names repeat ('"bash"'): each distinct text is parsed once.
  const names = new Map<string | null, unknown>([[null, null]]);
  const outputs = facts.map(([tokens, , pruned, name], i): ToolOutput => {
    const id = (results[i] as EntryLink)[1];
    if (pruned === null) {
      // Nested deeper than SQLite reads JSON: parsed here, as the full route reads it.
      const { message } = JSON.parse(whole[next++] as string) as { message: { toolName?: unknown; prunedAt?: unknown } };
      const prunedAt = message.prunedAt ?? null;
      return { entryId: id ?? undefined, tokens, toolName: message.toolName ?? null, pruned: prunedAt !== null };
    }
    let toolName = names.get(name);
    if (toolName === undefined && !names.has(name)) {
      toolName = JSON.parse(name as string);
      names.set(name, toolName);
    }
    return { entryId: id ?? undefined, tokens, toolName, pruned: pruned === 1 };
  });
  // Only a prune that writes needs the rows: a check of a long session does not build this map.
  let pks: Map<string, number> | undefined;
  const pkOf = (entryId: string) => {
    pks ??= new Map(results.flatMap(([pk, id]) => (id === null ? [] : [[id, pk] as const])));
    return pks.get(entryId);
  };
  return { viewLeafId: walked.viewLeafId, leafId: walked.leafId, outputs, pkOf };
}
