/**
 * What the canvas marks on top of the layout (pure): which entries the model sees at the
 * selected leaf (the rest is dimmed, SPEC §3.1), the compaction in effect and the region its
 * summary replaced, first-kept markers, and the entries a planned compaction or a branch move
 * would summarize. Nodes read their marks by id as a bit set, so only changed nodes re-render.
 */
import type { CompactionPlanDto, NavigationPreviewDto, TreeNodeDto } from "../../../../core/api/dto.ts";
import type { ChainLayoutNode, TreeLayout } from "./layout.ts";

export const MARK = {
  /** The model does not see this entry at the selected leaf. */
  dimmed: 1,
  /** On the path from the root to the view leaf. */
  active: 2,
  /** A planned compaction or the branch move being dragged would summarize it. */
  willSummarize: 4,
  /** The planned compaction summarizes it as the prefix of a split turn. */
  turnPrefix: 8,
  /** The planned compaction's first kept entry. */
  plannedCut: 16,
  /** The node under the pointer while dragging the leaf. */
  dropTarget: 32,
  /** In the region the compaction in effect replaced by its summary. */
  replaced: 64,
} as const;

export interface CompactionInEffect {
  id: string;
  firstKeptEntryId: string | null;
  /** Path entries (in order) this compaction's summary replaced directly. */
  regionIds: string[];
}

export interface ModelView {
  /** null: no leaf (the view leaf moved before the first entry), where the model sees nothing. */
  leafId: string | null;
  /** Entries whose messages the model receives at the leaf (a compaction stands for its summary). */
  seen: Set<string>;
  compaction: CompactionInEffect | null;
}

/** SPEC §3.1 reduced to entry ids: what the model sees when `leafId` is the leaf. */
export function modelViewAt(
  entry: (id: string) => TreeNodeDto | undefined,
  leafId: string,
): ModelView | null {
  // Walked up from the leaf only as far as the answer needs: past the last two compactions and
  // their first kept entries. Everything above is neither seen nor in the replaced region, and a
  // click on a 30,000-entry path with regular compactions would otherwise walk all of it.
  const reversed: TreeNodeDto[] = [];
  const visited = new Set<string>();
  let compactions = 0;
  let keptWanted = new Set<string>();
  for (let id: string | null = leafId; id !== null && !visited.has(id); ) {
    const node = entry(id);
    if (!node) break;
    visited.add(id);
    reversed.push(node);
    keptWanted.delete(node.id);
    if (node.type === "compaction" && compactions < 2) {
      compactions++;
      if (node.firstKeptEntryId) keptWanted = new Set([...keptWanted, node.firstKeptEntryId]);
    }
    if (compactions === 2 && keptWanted.size === 0) break;
    id = node.parentId;
  }
  if (reversed.length === 0) return null;
  const path = reversed.reverse();
  let last = -1;
  let previous = -1;
  for (let i = 0; i < path.length; i++) {
    if (path[i]?.type === "compaction") {
      previous = last;
      last = i;
    }
  }
  // Only entries that reach the model as a message, and only the compaction in effect (§3.1).
  const sends = (node: TreeNodeDto, at: number) =>
    node.type === "compaction" ? at === last : node.noMessage !== true;
  const seenFrom = (from: number) => {
    const seen = new Set<string>();
    for (let i = from; i < path.length; i++) {
      const node = path[i] as TreeNodeDto;
      if (sends(node, i)) seen.add(node.id);
    }
    return seen;
  };
  if (last < 0) return { leafId, seen: seenFrom(0), compaction: null };

  const indexOnPath = (id: string | undefined, before: number): number => {
    if (!id) return -1;
    for (let i = 0; i < before; i++) if (path[i]?.id === id) return i;
    return -1;
  };
  const compaction = path[last] as TreeNodeDto;
  const keptAt = indexOnPath(compaction.firstKeptEntryId, last);
  const cut = keptAt >= 0 ? keptAt : last;
  let start = 0;
  if (previous >= 0) {
    const previousKept = indexOnPath(path[previous]?.firstKeptEntryId, previous);
    start = previousKept >= 0 ? previousKept : previous + 1;
  }
  return {
    leafId,
    seen: seenFrom(cut),
    compaction: {
      id: compaction.id,
      firstKeptEntryId: compaction.firstKeptEntryId ?? null,
      regionIds: path.slice(start, cut).map((node) => node.id),
    },
  };
}

/** What the model sees at a leaf; with no leaf, nothing (every entry dimmed). */
export function modelViewOfLeaf(
  entry: (id: string) => TreeNodeDto | undefined,
  leafId: string | null,
): ModelView | null {
  return leafId ? modelViewAt(entry, leafId) : { leafId: null, seen: new Set<string>(), compaction: null };
}

export interface MarkInputs {
  layout: TreeLayout;
  /** The leaf whose LLM view is shown: the selected entry, else the view leaf (null: none, all dimmed). */
  leafId: string | null;
  plan: CompactionPlanDto | null;
  /** The branch move being dragged or confirmed, and its drop target. */
  branchPreview: NavigationPreviewDto | null;
  dropTargetId: string | null;
  /** modelViewOfLeaf(layout.entry, leafId), when the caller has it already. */
  view?: ModelView | null;
}

export interface CanvasMarks {
  view: ModelView | null;
  willSummarize: Set<string>;
  turnPrefix: Set<string>;
  replaced: Set<string>;
  plannedCut: string | null;
  dropTargetId: string | null;
  /**
   * A chain node's combined marks and how many of its entries would be summarized, computed when
   * a chain node asks (only mounted ones do): a selection no longer walks every collapsed entry.
   */
  chain(chainId: string): ChainMarks;
}

export interface ChainMarks {
  flags: number;
  summarized: number;
}

const NO_CHAIN: ChainMarks = { flags: 0, summarized: 0 };

export function computeMarks(input: MarkInputs): CanvasMarks {
  const { layout } = input;
  const view = input.view !== undefined ? input.view : modelViewOfLeaf(layout.entry, input.leafId);
  const willSummarize = new Set<string>(input.branchPreview?.entriesToSummarize ?? []);
  for (const id of input.plan?.summarizeEntryIds ?? []) willSummarize.add(id);
  const turnPrefix = new Set<string>(input.plan?.turnPrefixEntryIds ?? []);
  for (const id of turnPrefix) willSummarize.add(id);
  const chains = new Map<string, ChainMarks>();
  const marks: CanvasMarks = {
    view,
    willSummarize,
    turnPrefix,
    replaced: new Set(view?.compaction?.regionIds ?? []),
    plannedCut: input.plan?.firstKeptEntryId ?? null,
    dropTargetId: input.dropTargetId,
    chain(chainId) {
      let known = chains.get(chainId);
      if (!known) {
        const node = layout.byId.get(chainId);
        known = node?.kind === "chain" ? chainMarks(marks, layout, node) : NO_CHAIN;
        chains.set(chainId, known);
      }
      return known;
    },
  };
  return marks;
}

function chainMarks(marks: CanvasMarks, layout: TreeLayout, node: ChainLayoutNode): ChainMarks {
  let all = MARK.dimmed;
  let any = 0;
  let summarized = 0;
  for (const id of node.entryIds) {
    const flags = entryMarks(marks, layout, id);
    all &= flags;
    any |= flags;
    if (flags & MARK.willSummarize) summarized++;
  }
  const active = node.active ? MARK.active : 0;
  return { flags: all | active | (any & (MARK.willSummarize | MARK.turnPrefix | MARK.replaced)), summarized };
}

/** The marks of one entry as a bit set of MARK values. */
export function entryMarks(marks: CanvasMarks, layout: TreeLayout, id: string): number {
  let flags = 0;
  if (marks.view && !marks.view.seen.has(id)) flags |= MARK.dimmed;
  if (layout.activePath.has(id)) flags |= MARK.active;
  if (marks.willSummarize.has(id)) flags |= MARK.willSummarize;
  if (marks.turnPrefix.has(id)) flags |= MARK.turnPrefix;
  if (marks.plannedCut === id) flags |= MARK.plannedCut;
  if (marks.dropTargetId === id) flags |= MARK.dropTarget;
  if (marks.replaced.has(id)) flags |= MARK.replaced;
  return flags;
}

/** Marks of a layout node (entry or chain). */
export function layoutNodeMarks(marks: CanvasMarks, layout: TreeLayout, layoutId: string): number {
  const node = layout.byId.get(layoutId);
  if (!node) return 0;
  return node.kind === "chain" ? marks.chain(layoutId).flags : entryMarks(marks, layout, layoutId);
}
