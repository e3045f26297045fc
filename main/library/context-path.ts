/**
 * Loads what `buildSessionContext` needs for one leaf straight from the database, without
 * parsing a 100k-entry session: the path is walked on the structural columns, and only the
 * entries that can change the view are kept (settings entries, compactions, the assistant reply
 * that last set the model, everything from the last compaction's first kept entry on), as a
 * chain with its own tree index. Sessions with tree problems take the plain route (every
 * entry), so repair rules stay core's alone. With `reuse`, what the previous such load of the
 * session read and parsed is taken again while the session is unchanged (context-reuse.ts).
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import type { TreeIndex } from "../../core/session/tree.ts";
import type { Database } from "../store/open.ts";
import { type EntryLink, entryJson, entryJsonByPk, listEntryLinks } from "../store/repos/entries.ts";
import { pathReuse } from "./context-reuse.ts";
import { effectiveViewLeaf, loadSessionEntries, requireSession } from "./load.ts";
import { lastIndexOfId, pathPositions } from "./path-walk.ts";

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
 * @param options.reuse the entries may be objects the previous load returned too (the caller only
 * reads them): for context:get, whose successive calls ask for neighbouring leaves.
 */
export function loadContextEntries(
  db: Database,
  sessionId: string,
  leafId?: string | null,
  options: { reuse?: boolean } = {},
): ContextEntries {
  const row = requireSession(db, sessionId);
  const wanted = leafId === undefined ? effectiveViewLeaf(row) : leafId;
  if (wanted === null) return { entries: [], leafId: null, pathOnly: true, parsed: 0 };
  if (row.problem_count > 0) {
    const entries = loadSessionEntries(db, sessionId);
    return { entries, leafId: wanted, pathOnly: false, parsed: entries.length };
  }

  const reuse = options.reuse ? pathReuse(db, row.sid) : null;
  const links = reuse ? reuse.links(() => listEntryLinks(db, row.sid)) : listEntryLinks(db, row.sid);
  const found = lastIndexOfId(links, wanted);
  const leafIndex = found >= 0 ? found : links.length - 1;
  if (leafIndex < 0) return { entries: [], leafId: wanted, pathOnly: true, parsed: 0 };
  // Leaf first, root last.
  const up = pathPositions(links, leafIndex);
  const linkAt = (u: number): EntryLink => links[up[u] as number] as EntryLink;

  // The last compaction on the path, and where its kept part starts (SPEC §3.1 step 5).
  let keepTo = up.length - 1;
  const compactionAt = up.findIndex((index) => (links[index] as EntryLink)[3] === "compaction");
  // Parsed once: it is also one of the entries returned, and its summary may be megabytes long.
  let compaction: SessionEntry | undefined;
  let parsed = 0;
  if (compactionAt >= 0) {
    keepTo = compactionAt;
    const pk = linkAt(compactionAt)[0];
    compaction = reuse?.entry(pk);
    if (!compaction) {
      const json = entryJson(db, pk);
      compaction = json === null ? undefined : (JSON.parse(json) as SessionEntry);
      if (compaction) parsed++;
    }
    const firstKept = (compaction as { firstKeptEntryId?: unknown } | undefined)?.firstKeptEntryId;
    for (let u = compactionAt + 1; u < up.length && typeof firstKept === "string"; u++) {
      if (linkAt(u)[1] === firstKept) {
        keepTo = u;
        break;
      }
    }
  }

  // Above the kept part only settings entries matter, plus the assistant reply closest above
  // each of them and above the kept part (SPEC §3.2: replies and model changes both set the model).
  const keep: number[] = [];
  for (let u = 0; u <= keepTo; u++) keep.push(u);
  let wantAssistant = true;
  for (let u = keepTo + 1; u < up.length; u++) {
    const [, , , type, role] = linkAt(u);
    if (SETTINGS_TYPES.has(type)) {
      keep.push(u);
      wantAssistant = true;
    } else if (wantAssistant && type === "message" && role === "assistant") {
      keep.push(u);
      wantAssistant = false;
    }
  }
  keep.reverse();

  const kept = (u: number) => (u === compactionAt ? compaction : reuse?.entry(linkAt(u)[0]));
  const toRead = keep.filter((u) => kept(u) === undefined);
  const jsons = entryJsonByPk(
    db,
    toRead.map((u) => linkAt(u)[0]),
  );
  const read = new Map(toRead.map((u, i) => [u, JSON.parse(jsons[i] as string) as SessionEntry]));
  const entries = keep.map((u) => kept(u) ?? (read.get(u) as SessionEntry));
  reuse?.keep(new Map(keep.map((u, i) => [linkAt(u)[0], entries[i] as SessionEntry])));
  return {
    entries,
    leafId: (links[leafIndex] as EntryLink)[1],
    index: chainIndex(entries),
    pathOnly: true,
    parsed: parsed + toRead.length,
  };
}
