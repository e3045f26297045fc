/**
 * Loads what `buildSessionContext` needs for one leaf straight from the database, without
 * parsing a 100k-entry session: the path is walked on the structural columns, and only the
 * entries that can change the view are kept (settings entries, compactions, the assistant reply
 * that last set the model, everything from the last compaction's first kept entry on), as a
 * chain with its own tree index. Sessions with tree problems take the plain route (every
 * entry), so repair rules stay core's alone.
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import type { TreeIndex } from "../../core/session/tree.ts";
import type { Database } from "../store/open.ts";
import { type EntryShape, entryJson, entryJsonByPk, listEntryShapes } from "../store/repos/entries.ts";
import { effectiveViewLeaf, loadSessionEntries, requireSession } from "./load.ts";

/** Entry types whose content feeds the settings scan of SPEC §3.2 (always loaded in full). */
const SETTINGS_TYPES = new Set([
  "thinking_level_change",
  "model_change",
  "ttsr_injection",
  "mode_change",
  "compaction",
]);

export interface ContextEntries {
  /** Pass to buildSessionContext(entries, leafId, index). */
  entries: SessionEntry[];
  /** The leaf to build for (null: the empty context). */
  leafId: string | null;
  /**
   * With `pathOnly`, a tree index that chains `entries` root → leaf (the entries themselves are
   * untouched); buildSessionContext then walks exactly them. Undefined: core builds its own.
   */
  index?: TreeIndex;
  /** True when `entries` is the reduced path of the leaf, false when it is every entry. */
  pathOnly: boolean;
  /** Entries parsed from JSON for this load. */
  parsed: number;
}

/** A tree index over entries that form one chain, in order (the reduced path). */
export function chainIndex(entries: readonly SessionEntry[]): TreeIndex {
  const byId = new Map<string, SessionEntry>();
  const at = new Map<string, number>();
  entries.forEach((e, i) => {
    byId.set(e.id, e);
    at.set(e.id, i);
  });
  const none: readonly SessionEntry[] = [];
  const next = (id: string): readonly SessionEntry[] => {
    const i = at.get(id);
    const child = i === undefined ? undefined : entries[i + 1];
    return child ? [child] : none;
  };
  return {
    entries,
    byId,
    roots: entries.slice(0, 1),
    labels: new Map(),
    problems: [],
    parentOf: (id) => {
      const i = at.get(id);
      return i === undefined || i === 0 ? null : ((entries[i - 1] as SessionEntry).id ?? null);
    },
    children: next,
    childrenSorted: next,
    pathTo: (id) => {
      const i = at.get(id);
      return i === undefined ? [] : entries.slice(0, i + 1);
    },
    tips: () => entries.slice(-1),
  };
}

/**
 * @param leafId undefined → the session's view leaf; null → empty context; an unknown id → the
 * session's last entry (as buildSessionContext does).
 */
export function loadContextEntries(db: Database, sessionId: string, leafId?: string | null): ContextEntries {
  const row = requireSession(db, sessionId);
  const wanted = leafId === undefined ? effectiveViewLeaf(row) : leafId;
  if (wanted === null) return { entries: [], leafId: null, pathOnly: true, parsed: 0 };
  if (row.problem_count > 0) {
    const entries = loadSessionEntries(db, sessionId);
    return { entries, leafId: wanted, pathOnly: false, parsed: entries.length };
  }

  const shapes = listEntryShapes(db, row.sid);
  const byId = new Map<string, number>();
  for (let i = 0; i < shapes.length; i++) byId.set((shapes[i] as EntryShape)[2] as string, i);
  const leafIndex = byId.get(wanted) ?? shapes.length - 1;
  if (leafIndex < 0) return { entries: [], leafId: wanted, pathOnly: true, parsed: 0 };

  // Walk leaf → root; a healthy session has no cycles, the bound is a second line of defence.
  const path: number[] = [];
  for (let i: number | undefined = leafIndex; i !== undefined && path.length <= shapes.length; ) {
    path.push(i);
    const parent: string | null = (shapes[i] as EntryShape)[3];
    i = parent === null ? undefined : byId.get(parent);
  }
  path.reverse();
  const shapeAt = (p: number): EntryShape => shapes[path[p] as number] as EntryShape;

  // From which path position on is everything needed verbatim?
  let keepFrom = 0;
  let compactionAt = -1;
  for (let p = path.length - 1; p >= 0 && compactionAt < 0; p--)
    if (shapeAt(p)[4] === "compaction") compactionAt = p;
  if (compactionAt >= 0) {
    const json = entryJson(db, shapeAt(compactionAt)[0]);
    const firstKept =
      json === null ? undefined : (JSON.parse(json) as { firstKeptEntryId?: unknown }).firstKeptEntryId;
    const keptIndex = typeof firstKept === "string" ? byId.get(firstKept) : undefined;
    const keptAt = keptIndex === undefined ? -1 : path.lastIndexOf(keptIndex, compactionAt);
    keepFrom = keptAt >= 0 ? keptAt : compactionAt;
  }

  // Before keepFrom only settings entries matter, plus the last assistant reply before each
  // one that could be overridden (SPEC §3.2: replies and model changes both set the model).
  const keep: number[] = [];
  let pendingAssistant = -1;
  for (let p = 0; p < keepFrom; p++) {
    const [, , , , type, role] = shapeAt(p);
    if (type === "message" && role === "assistant") pendingAssistant = p;
    else if (SETTINGS_TYPES.has(type)) {
      if (pendingAssistant >= 0) keep.push(pendingAssistant);
      pendingAssistant = -1;
      keep.push(p);
    }
  }
  if (pendingAssistant >= 0) keep.push(pendingAssistant);
  for (let p = keepFrom; p < path.length; p++) keep.push(p);

  const jsons = entryJsonByPk(
    db,
    keep.map((p) => shapeAt(p)[0]),
  );
  const entries = jsons.map((json) => JSON.parse(json) as SessionEntry);
  return {
    entries,
    leafId: (shapes[leafIndex] as EntryShape)[2],
    index: chainIndex(entries),
    pathOnly: true,
    parsed: entries.length,
  };
}
