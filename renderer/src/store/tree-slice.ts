/**
 * Tree slice: the selected session's tree nodes (refreshed by delta: session:tree-update), the
 * entry selected on the canvas (a would-be leaf whose LLM view is previewed without moving the
 * view leaf), the canvas filter and chain collapsing, and drag-to-branch (the target under the
 * pointer, the preview of what a move there would summarize, and the dialog that confirms it;
 * SPEC §2.8, D13), which Enter and a double-click open too when the settings ask to summarize
 * when navigating.
 */
import type { StateCreator } from "zustand";
import type { NavigationPreviewDto, SessionTreeDto } from "../../../core/api/dto.ts";
import { applyTreeUpdate } from "../../../core/api/tree-delta.ts";
import { call } from "../api.ts";
import { benchBaseline } from "../features/tree/bench-mode.ts";
import { dropTarget } from "../features/tree/drop-target.ts";
import type { TreeFilter } from "../features/tree/filter.ts";
import { treeLookup } from "../features/tree/tree-lookup.ts";
import { nextTask, openSteps } from "../features/tree/open-steps.ts";
import { noteTreeGrowth } from "../features/tree/tree-growth.ts";
import type { CanopyState } from "./index.ts";
import { selectRunning } from "./jobs-slice.ts";

export type { TreeFilter } from "../features/tree/filter.ts";

export interface BranchDrag {
  /** The entry the drag started on (the view leaf when the leaf marker is dragged). */
  sourceId: string;
  /**
   * The drag started on the view leaf: it stands for the view leaf wherever that goes meanwhile
   * (following the agent's new lines), not for the entry it was on.
   */
  fromViewLeaf?: boolean;
  /** Where the view leaf would go on drop (null: nowhere useful under the pointer). */
  targetId: string | null;
  /** The pointer is over the view leaf itself: a drop there is refused ("Already at this point"). */
  atViewLeaf?: boolean;
  /** The pointer is over a collapsed run: a drop there is refused (OVER_CHAIN says why). */
  overChain?: boolean;
}

/** What a move of the view leaf onto itself says instead of doing nothing silently (SPEC §10.4). */
export const ALREADY_AT_LEAF = "Already at this point: that entry is the view leaf.";

/** What a drag over (or a drop onto) a collapsed run says: it is no one entry to move to. */
export const OVER_CHAIN = "A collapsed run: click it to show its entries, then drop on one of them.";

export interface BranchDialog {
  targetId: string;
  preview: NavigationPreviewDto | null;
  /** Why the preview could not be made (the move itself may still work, or say why not). */
  error?: string;
}

export interface TreeSlice {
  tree: SessionTreeDto | null;
  /**
   * The trees of the sessions shown last before another was selected (KEPT_TREES, newest first,
   * none of the open session once its tree is in): opening one of them again asks
   * session:tree-update for what changed since it (a big session's whole tree is 30 MB) and
   * finds its lookups and structure made (cached per node list).
   */
  keptTrees: readonly SessionTreeDto[];
  treeError: string | null;
  /**
   * What opening a session's tree is doing (null: nothing): fetching it, then laying it out — a
   * big session takes seconds for each, and the panel says which, with the time so far.
   */
  treeLoad: { sessionId: string; stage: "fetching" | "laying-out"; startedAt: number } | null;
  /** The entry selected on the canvas; null = the view leaf is shown. */
  selectedEntryId: string | null;
  filter: TreeFilter;
  /** Collapse long linear runs into chain nodes. */
  collapseChains: boolean;
  /** Entries in chains the user expanded. */
  expandedIds: ReadonlySet<string>;
  /** An entry shown as its own node although a chain or the filter would hide it (keyboard, links). */
  revealedEntryId: string | null;
  /** The entry the canvas keeps in place when the layout changes next (default: the selected leaf). */
  layoutAnchorId: string | null;
  drag: BranchDrag | null;
  /** A short line on the canvas about a move that did nothing (`at` tells a repeat apart); it fades. */
  treeHint: { text: string; at: number } | null;
  clearTreeHint(): void;
  /** navigation:preview of the drag target (or of the dialog's target). */
  branchPreview: NavigationPreviewDto | null;
  branchDialog: BranchDialog | null;
  loadTree(sessionId: string): Promise<void>;
  /**
   * Selects an entry and previews the LLM view at it (null: back to the view leaf). With `reveal`,
   * the entry is also shown as its own node, in the same store update: the keyboard, landing on
   * a chain, lays the tree out once instead of twice.
   */
  selectEntry(entryId: string | null, options?: { reveal?: boolean }): Promise<void>;
  setFilter(filter: TreeFilter): void;
  setCollapseChains(collapse: boolean): void;
  /** Expands the chain that starts at this entry. */
  expandChain(firstEntryId: string): void;
  collapseAll(): void;
  clearLayoutAnchor(): void;
  revealEntry(entryId: string | null): void;
  /** Starts a drag of the view leaf; false (and a line saying why) while a job runs. */
  beginBranchDrag(sourceId: string): boolean;
  /** The pointer is over this entry (null: over nothing; `overChain`: over a collapsed run). */
  dragOver(entryId: string | null, overChain?: boolean): void;
  /** Ends the drag; with `drop`, a valid target opens the branch dialog. */
  endBranchDrag(drop: boolean): void;
  /**
   * Enter or a double-click on an entry: moves the view leaf there at once, or, with "Ask to
   * summarize when navigating" (branchSummary.enabled), opens the branch dialog first. With `ask`
   * (Shift+Enter, the keyboard's drop of the leaf marker) the dialog opens whatever the setting.
   */
  moveViewLeaf(targetId: string, options?: { ask?: boolean }): Promise<void>;
  closeBranchDialog(): void;
  /** Moves the view leaf to the dialog's target, with or without a branch summary. */
  confirmBranch(summarize: boolean, customInstructions?: string, replacePrompt?: boolean): Promise<void>;
}

/** How many trees of sessions shown before are kept (switching back and forth between two needs 2). */
export const KEPT_TREES = 2;

/** `kept` with `left` (the tree of the session being left, if any) first, at most KEPT_TREES. */
export function keepTree(kept: readonly SessionTreeDto[], left: SessionTreeDto | null): readonly SessionTreeDto[] {
  if (left === null) return kept;
  return [left, ...kept.filter((tree) => tree.sessionId !== left.sessionId)].slice(0, KEPT_TREES);
}

/** Resolves once the page has painted what is on screen now (at once where nothing paints). */
function nextPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== "function") return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

export const createTreeSlice: StateCreator<CanopyState, [], [], TreeSlice> = (set, get) => {
  const previews = new Map<string, NavigationPreviewDto>();
  // A canvas line, not an app notice: it must not replace an export's or a delete's notice.
  const alreadyAtLeaf = () => set({ treeHint: { text: ALREADY_AT_LEAF, at: Date.now() } });
  /** A move refused while a compaction or branch summary runs says why instead of nothing. */
  const refusedWhileRunning = (): boolean => {
    const running = selectRunning(get());
    if (!running) return false;
    const what = running.kind === "compaction" ? "A compaction" : "A branch summary";
    const text = `${what} is running: the view leaf stays until it ends (Escape cancels it).`;
    set({ treeHint: { text, at: Date.now() } });
    return true;
  };
  const previewKey = (targetId: string) =>
    `${get().selectedSessionId}\u0000${get().tree?.viewLeafId}\u0000${targetId}`;
  /** navigation:preview of `targetId`, or why there is none (`error`: the request failed). */
  const fetchPreview = async (
    targetId: string,
  ): Promise<{ preview: NavigationPreviewDto | null; error?: string }> => {
    const sessionId = get().selectedSessionId;
    if (!sessionId) return { preview: null };
    const key = previewKey(targetId);
    const cached = previews.get(key);
    if (cached) return { preview: cached };
    try {
      const preview = await call("navigation:preview", { sessionId, targetId });
      previews.set(key, preview);
      return { preview };
    } catch (error) {
      // A hint while dragging; the dialog says it, and the move itself reports real failures.
      return { preview: null, error: (error as Error).message };
    }
  };

  /**
   * The session's tree: for the open one (a refresh after an append, an edit, a leaf move…) only
   * what changed since the version on screen, applied to it; whole when opening one, or when
   * another refresh answered first and the delta no longer fits what is on screen.
   */
  const fetchTree = async (sessionId: string): Promise<SessionTreeDto> => {
    const shown = get().tree;
    const kept = get().keptTrees.find((tree) => tree.sessionId === sessionId) ?? null;
    const base = shown?.sessionId === sessionId ? shown : kept;
    const since = base?.version;
    if (since === undefined) return call("session:tree", { sessionId });
    const update = await call("session:tree-update", { sessionId, since });
    if (base !== shown) {
      // Opened again: the update is for the tree kept from when it was last shown.
      try {
        return applyTreeUpdate(base, update);
      } catch {
        // Not for the kept version (never expected): the whole tree instead.
        return call("session:tree", { sessionId });
      }
    }
    const now = get().tree;
    if (update.kind === "delta" && (now?.sessionId !== sessionId || now.version !== update.since)) {
      // Two refreshes at once (a chat turn's and the live refresh): the other one's answer
      // already brought these very nodes; only the tree-wide facts are taken.
      if (now?.sessionId === sessionId && now.version === update.version) {
        const { viewLeafId, fileLeafId, problems, history } = update;
        return { ...now, viewLeafId, fileLeafId, problems, history };
      }
      return call("session:tree", { sessionId });
    }
    try {
      if (update.kind === "full" || !now) return applyTreeUpdate(now, update);
      const byId = treeLookup(now.nodes).byId;
      const tree = applyTreeUpdate(now, update, (id) => byId.has(id));
      // Only added nodes (an agent's append) to the tree on screen: the canvas extends what it
      // had for the old list (noteTreeGrowth checks the session, the versions and the delta).
      noteTreeGrowth(now, tree, update);
      return tree;
    } catch {
      // A delta that does not fit the nodes on screen (never expected): the whole tree instead.
      return call("session:tree", { sessionId });
    }
  };

  /**
   * One tree request per session at a time: two at once (a prune's refresh and the live refresh
   * of its event) had the main side make a long session's tree (or its delta) twice side by side.
   */
  let treeRequest: { sessionId: string; run: Promise<void>; again: Promise<void> | null } | null = null;

  const loadTreeNow = async (sessionId: string): Promise<void> => {
    // A refresh of a session no longer open: nothing to show, and its "fetching" would stay.
    if (get().selectedSessionId !== sessionId) return;
    const opening = get().tree?.sessionId !== sessionId;
    if (opening) set({ treeLoad: { sessionId, stage: "fetching", startedAt: Date.now() } });
    try {
      const tree = await fetchTree(sessionId);
      if (get().selectedSessionId !== sessionId) return;
      const sameSession = get().tree?.sessionId === sessionId;
      const opened = {
        tree,
        // Shown now: no longer kept aside (its memory goes with the version replaced).
        keptTrees: get().keptTrees.filter((kept) => kept.sessionId !== sessionId),
        treeError: null,
        treeLoad: null,
        expandedIds: new Set<string>(),
        revealedEntryId: null,
        branchDialog: null,
        drag: null,
        treeHint: null,
      };
      if (!sameSession) {
        // Laying out and drawing a big tree takes a while: say so first, then lay it out in
        // steps (a task each, the page answering in between) before the render that shows it.
        const load = get().treeLoad;
        set({ treeLoad: { sessionId, stage: "laying-out", startedAt: load?.startedAt ?? Date.now() } });
        await nextPaint();
        for (const step of openSteps(tree, () => ({ ...get(), ...opened }))) {
          if (get().selectedSessionId !== sessionId) return;
          step();
          await nextTask();
        }
        if (get().selectedSessionId !== sessionId) return;
      }
      previews.clear();
      const leafBefore = get().tree?.viewLeafId;
      set(sameSession ? { tree, treeError: null, treeLoad: null } : opened);
      if (sameSession && tree.viewLeafId !== leafBefore) previewAgain();
    } catch (error) {
      set({ tree: null, treeError: (error as Error).message, treeLoad: null });
    }
  };

  /**
   * Asks what a move to `targetId` would summarize, for the dialog or the drag still about that
   * target when the answer comes (with why there is none, for the dialog).
   */
  const fillPreview = (targetId: string) => {
    void fetchPreview(targetId).then(({ preview, error }) => {
      if (get().branchDialog?.targetId === targetId)
        set({ branchDialog: { targetId, preview, error }, branchPreview: preview });
      else if (get().drag?.targetId === targetId) set({ branchPreview: preview });
    });
  };

  const openBranchDialog = (targetId: string, preview: NavigationPreviewDto | null) => {
    set({ branchDialog: { targetId, preview } });
    if (!preview) fillPreview(targetId);
  };

  /**
   * The view leaf moved under an open dialog or a drag (it follows the agent's new lines): what
   * a move would summarize is asked again, so the count and highlight are of the branch left now.
   */
  const previewAgain = () => {
    const dialog = get().branchDialog;
    const targetId = dialog?.targetId ?? get().drag?.targetId ?? null;
    if (targetId === null) return;
    if (dialog) set({ branchDialog: { targetId, preview: null }, branchPreview: null });
    else set({ branchPreview: null });
    fillPreview(targetId);
  };

  return {
    tree: null,
    keptTrees: [],
    treeError: null,
    treeLoad: null,
    selectedEntryId: null,
    filter: "default",
    collapseChains: !benchBaseline,
    expandedIds: new Set(),
    revealedEntryId: null,
    layoutAnchorId: null,
    drag: null,
    treeHint: null,
    branchPreview: null,
    branchDialog: null,
    clearTreeHint() {
      if (get().treeHint !== null) set({ treeHint: null });
    },
    loadTree(sessionId) {
      const current = treeRequest;
      if (current === null || current.sessionId !== sessionId) {
        const run = loadTreeNow(sessionId).finally(() => {
          if (treeRequest?.run === run) treeRequest = null;
        });
        treeRequest = { sessionId, run, again: null };
        return run;
      }
      // Asked while a request for this session is on its way (an action's own refresh and its
      // session:changed event's): one more after it, shared by every caller meanwhile, since the
      // change asked about may be newer than that request.
      current.again ??= current.run.then(() => get().loadTree(sessionId));
      return current.again;
    },
    async selectEntry(entryId, options) {
      const sessionId = get().selectedSessionId;
      set(options?.reveal ? { selectedEntryId: entryId, revealedEntryId: entryId } : { selectedEntryId: entryId });
      if (sessionId) await get().loadContext(sessionId, entryId ?? undefined);
    },
    setFilter(filter) {
      set({ filter });
    },
    setCollapseChains(collapse) {
      set({ collapseChains: collapse });
    },
    expandChain(firstEntryId) {
      const expandedIds = new Set(get().expandedIds);
      expandedIds.add(firstEntryId);
      set({ expandedIds, layoutAnchorId: firstEntryId });
    },
    collapseAll() {
      set({ expandedIds: new Set(), revealedEntryId: null });
    },
    clearLayoutAnchor() {
      set({ layoutAnchorId: null });
    },
    revealEntry(entryId) {
      if (get().revealedEntryId !== entryId) set({ revealedEntryId: entryId });
    },
    beginBranchDrag(sourceId) {
      if (refusedWhileRunning()) return false;
      const fromViewLeaf = sourceId === get().tree?.viewLeafId;
      set({ drag: { sourceId, fromViewLeaf, targetId: null }, branchPreview: null, branchDialog: null, treeHint: null });
      return true;
    },
    dragOver(entryId, overChain = false) {
      const drag = get().drag;
      if (!drag) return;
      const viewLeafId = get().tree?.viewLeafId ?? null;
      const sourceId = drag.fromViewLeaf && viewLeafId !== null ? viewLeafId : drag.sourceId;
      const targetId = dropTarget(sourceId, entryId, viewLeafId);
      const atViewLeaf = targetId === null && entryId !== null;
      if (
        targetId === drag.targetId &&
        atViewLeaf === (drag.atViewLeaf ?? false) &&
        overChain === (drag.overChain ?? false)
      )
        return;
      set({ drag: { ...drag, targetId, atViewLeaf, overChain }, branchPreview: null });
      if (targetId !== null) fillPreview(targetId);
    },
    endBranchDrag(drop) {
      const drag = get().drag;
      const targetId = drop ? (drag?.targetId ?? null) : null;
      if (targetId === null) {
        set({ drag: null, branchPreview: null });
        if (drop && drag?.atViewLeaf) alreadyAtLeaf();
        else if (drop && drag?.overChain) set({ treeHint: { text: OVER_CHAIN, at: Date.now() } });
        return;
      }
      const preview = get().branchPreview?.targetId === targetId ? get().branchPreview : null;
      set({ drag: null });
      openBranchDialog(targetId, preview);
    },
    async moveViewLeaf(targetId, options) {
      if (refusedWhileRunning()) return;
      if (targetId === get().tree?.viewLeafId) {
        alreadyAtLeaf();
        return;
      }
      if (options?.ask) {
        openBranchDialog(targetId, null);
        return;
      }
      let ask = false;
      try {
        ask = (await call("settings:get", {})).branchSummary.enabled;
      } catch {
        // Settings that cannot be read: move as with the default (no question).
      }
      if (ask) openBranchDialog(targetId, null);
      else await get().navigateTo(targetId, false);
    },
    closeBranchDialog() {
      set({ branchDialog: null, branchPreview: null });
    },
    async confirmBranch(summarize, customInstructions, replacePrompt) {
      const dialog = get().branchDialog;
      if (!dialog) return;
      set({ branchDialog: null });
      try {
        await get().navigateTo(dialog.targetId, summarize, customInstructions, replacePrompt);
      } finally {
        set({ branchPreview: null });
      }
    },
  };
};
