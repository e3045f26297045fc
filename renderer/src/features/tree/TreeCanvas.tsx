/**
 * The session tree canvas (React Flow): one node per shown entry, long chains collapsed, the
 * active path highlighted, compaction boundaries and what the model does not see at the
 * selected leaf dimmed, drag-to-branch from the leaf marker, and keyboard navigation
 * (arrows, Home and End move, Enter moves the view leaf, asking first when the settings say so
 * or with Shift; Escape clears the selection).
 *
 * Only the layout memo depends on the whole tree; nodes read their own state by id.
 */
import { ControlButton, Controls, MiniMap, type MiniMapNodeProps, ReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { type KeyboardEvent, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useCanopy } from "../../store/index.ts";
import { selectRunning } from "../../store/jobs-slice.ts";
import { benchBaseline } from "./bench-mode.ts";
import { BranchDialog } from "./BranchDialog.tsx";
import { BranchProgress, DragGhost, TreeHint } from "./CanvasOverlays.tsx";
import { ChainNode } from "./ChainNode.tsx";
import { CompactionBracket } from "./CompactionBracket.tsx";
import { EntryNode } from "./EntryNode.tsx";
import { createFlowCache, type FlowCache, type TreeFlowNode, toFlowEdges, toFlowNodes } from "./flow.ts";
import { isTreeMoveKey, stepFrom } from "./keyboard.ts";
import type { TreeLayout } from "./layout.ts";
import { selectLayout, selectLeafId } from "./selectors.ts";
import { TreeToolbar } from "./TreeToolbar.tsx";
import "./tree.css";
import { focusTreeNode, useCanvasViewport } from "./use-canvas-viewport.ts";
import { useCompactCanvas } from "./use-compact-canvas.ts";

const nodeTypes = { entry: EntryNode, chain: ChainNode };
/** Past this many nodes the minimap (which draws every node) is left out to keep panning smooth. */
const MINIMAP_MAX_NODES = 4000;
const MINIMAP_STYLE = { width: 150, height: 110 };
// React Flow's "React Flow" link in the corner was a Tab stop of no use inside the tree, and its
// grey text was below AA contrast (the library is MIT: hiding it is allowed).
const HIDE_ATTRIBUTION = { hideAttribution: true };

/** Fit View's icon: four corners of a frame (drawn filled, as React Flow styles control icons). */
function FitViewIcon() {
  return (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" aria-hidden="true">
      <path d="M0 0h6v2H2v4H0zM10 0h6v6h-2V2h-4zM16 10v6h-6v-2h4v-4zM6 16H0v-6h2v4h4z" />
    </svg>
  );
}

function minimapClass(node: TreeFlowNode): string {
  return node.type === "chain" ? "mini-chain" : `mini-${node.data.category}`;
}

function MiniNode({ x, y, width, height, className }: MiniMapNodeProps) {
  return <rect x={x} y={y} width={width} height={height} rx={6} className={className} />;
}

/**
 * React Flow gives its wrapper role="application" (no prop changes it). Between our role=tree and
 * the treeitems it broke the tree: Chromium then exposed the entries as plain groups, with no
 * selected state for a screen reader to announce. React sets the attribute once, on mount, and
 * never again (its value does not change), so removing it here holds. The edges' container (one
 * unnamed <svg> picture per edge) is hidden from screen readers the same way.
 */
function dropApplicationRole(wrapper: HTMLDivElement | null): void {
  wrapper?.removeAttribute("role");
  wrapper?.querySelector(".react-flow__edges")?.setAttribute("aria-hidden", "true");
}

function isTextInput(target: EventTarget): boolean {
  return (
    target instanceof HTMLElement &&
    target.closest("input, textarea, select, [contenteditable=true]") !== null
  );
}

export function TreeCanvas() {
  const layout = useCanopy(selectLayout);
  const sessionId = useCanopy((state) => state.tree?.sessionId ?? null);
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const treeLoaded = useCanopy((state) => state.tree !== null);
  const viewport = useCanvasViewport();
  const container = useRef<HTMLDivElement>(null);
  const centeredFor = useRef<string | null>(null);
  const previousLayout = useRef<TreeLayout | null>(null);
  // The view leaf when the previous layout was drawn (where a leaf that followed the file came from).
  const previousViewLeaf = useRef<string | null>(null);
  const pendingFocus = useRef<string | null>(null);
  // The last keyboard move: the node the focus was on (undefined: none) and the entry selected.
  const lastMove = useRef<{ from: string | undefined; to: string } | null>(null);
  // Whether the last keyboard move is not drawn yet.
  const drawingMove = useRef(false);
  // A small canvas leaves the minimap out and puts the zoom controls in one row.
  const [flowElement, setFlowElement] = useState<HTMLDivElement | null>(null);
  const compact = useCompactCanvas(flowElement);

  // One cache per canvas: a new layout keeps the node, data and edge objects that did not change.
  const flowCache = useRef<FlowCache>(createFlowCache());
  const nodes = useMemo(() => (layout ? toFlowNodes(layout, flowCache.current) : []), [layout]);
  const edges = useMemo(() => (layout ? toFlowEdges(layout, flowCache.current) : []), [layout]);

  // An entry selected elsewhere (LLM view, deep link, keyboard) but hidden in a chain or by the
  // filter becomes its own node.
  useEffect(() => {
    if (!layout || !selectedEntryId || !layout.entry(selectedEntryId)) return;
    if (layout.byId.get(selectedEntryId)?.kind !== "entry") useCanopy.getState().revealEntry(selectedEntryId);
  }, [layout, selectedEntryId]);

  // When the layout changes within a session (filter, chains, a reload after navigation), the
  // anchor entry (an expanded chain's first entry, else the selected leaf) stays where it was.
  useLayoutEffect(() => {
    const previous = previousLayout.current;
    previousLayout.current = layout;
    const state = useCanopy.getState();
    const leafBefore = previousViewLeaf.current;
    previousViewLeaf.current = state.tree?.viewLeafId ?? null;
    if (!previous || !layout || previous === layout || centeredFor.current !== sessionId) return;
    const anchor = state.layoutAnchorId ?? selectLeafId(state);
    if (state.layoutAnchorId) state.clearLayoutAnchor();
    if (!anchor) return;
    const before = previous.byId.get(previous.nodeOfEntry(anchor) ?? "");
    const afterId = layout.nodeOfEntry(anchor);
    const after = layout.byId.get(afterId ?? "");
    if (before && after) {
      viewport.shiftBy(after.x - before.x, after.y - before.y);
      return;
    }
    // A drag under way keeps the view still: panning would move the entries away from the
    // pointer aiming at one of them (the drop would land elsewhere, or on nothing).
    if (!afterId || state.drag) return;
    // A view leaf that follows the file moved to the agent's new line. The view follows it only
    // when the leaf it came from was on screen: a user who panned away to read older entries
    // keeps them where they are.
    const following = state.tree !== null && state.tree.viewLeafId === state.tree.fileLeafId;
    const from =
      following && leafBefore !== null
        ? previous.byId.get(previous.nodeOfEntry(leafBefore) ?? "")
        : undefined;
    const fromNow = from ? layout.byId.get(layout.nodeOfEntry(leafBefore ?? "") ?? "") : undefined;
    if (from && fromNow && !viewport.onScreen(from)) viewport.shiftBy(fromNow.x - from.x, fromNow.y - from.y);
    else viewport.ensureVisible(afterId);
  }, [layout, sessionId, viewport]);

  // The first view of a session; later selections pan only when the node is off screen.
  useEffect(() => {
    if (!layout || !sessionId || centeredFor.current === sessionId) return;
    centeredFor.current = sessionId;
    // The focus is read when the frame runs: a deep link selects its entry right after the tree
    // loads, and the first view must show that entry, not the view leaf.
    requestAnimationFrame(() => {
      const state = useCanopy.getState();
      const focus = selectLayout(state)?.nodeOfEntry(selectLeafId(state) ?? "") ?? null;
      viewport.initialView(focus);
    });
  }, [layout, sessionId, viewport]);

  useEffect(() => {
    if (!layout || !selectedEntryId || layout.byId.get(selectedEntryId)?.kind !== "entry") return;
    viewport.ensureVisible(selectedEntryId);
    if (pendingFocus.current === selectedEntryId) {
      pendingFocus.current = null;
      focusTreeNode(container.current, selectedEntryId);
    }
  }, [layout, selectedEntryId, viewport]);

  // A new compaction plan: show where its cut would land.
  const plannedCut = useCanopy((state) =>
    state.plan?.sessionId === sessionId ? state.plan.firstKeptEntryId : null,
  );
  useEffect(() => {
    const layoutId = plannedCut ? layout?.nodeOfEntry(plannedCut) : undefined;
    if (!layoutId) return;
    // The plan panel above the canvas has just grown: centre once the canvas has its new size.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => viewport.centerOn(layoutId));
    });
    return () => cancelAnimationFrame(frame);
  }, [plannedCut, layout, viewport]);

  const goToLeaf = () => {
    const state = useCanopy.getState();
    const leaf = state.tree?.viewLeafId;
    const layoutId = leaf ? selectLayout(state)?.nodeOfEntry(leaf) : undefined;
    if (!layoutId) return;
    viewport.centerOn(layoutId, { zoom: 0.9 });
    focusTreeNode(container.current, layoutId);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (isTextInput(event.target)) return;
    // A held key's repeats that come before the last move was drawn are let go: the selection
    // moves an entry a frame, the page keeps drawing, and letting go of the key stops it where
    // the screen shows (handled all, they starved the frames and ran on after the key was up).
    if (event.repeat && isTreeMoveKey(event.key) && drawingMove.current) {
      event.preventDefault();
      return;
    }
    const state = useCanopy.getState();
    const current = selectLayout(state);
    if (!current) return;
    const nodeElement = (event.target as HTMLElement).closest(".tree-node");
    const focusedId =
      nodeElement?.getAttribute("data-chain-id") ?? nodeElement?.getAttribute("data-entry-id") ?? undefined;
    // A key repeated before the focus reached the entry the last move selected (a held arrow on
    // a big tree: the focus follows a render later) goes on from that entry, not again from
    // where the focus still is.
    const move = lastMove.current;
    const catchingUp =
      move !== null &&
      (focusedId === undefined || focusedId === move.from) &&
      state.selectedEntryId === move.to;
    const fromLayoutId =
      (catchingUp ? current.nodeOfEntry(move.to) : undefined) ??
      focusedId ??
      current.nodeOfEntry(selectLeafId(state) ?? "") ??
      current.nodes[0]?.id;
    if (!fromLayoutId) return;
    const from = current.byId.get(fromLayoutId);
    if (isTreeMoveKey(event.key)) {
      event.preventDefault();
      const next = stepFrom(current, fromLayoutId, event.key);
      if (next) {
        lastMove.current = { from: focusedId, to: next };
        pendingFocus.current = next;
        drawingMove.current = true;
        // After the next frame is drawn (a timer queued from the frame's callback runs after it).
        requestAnimationFrame(() =>
          setTimeout(() => {
            drawingMove.current = false;
          }, 0),
        );
        // An entry inside a chain (or hidden by the filter) becomes its own node with the selection.
        void state.selectEntry(next, { reveal: current.byId.get(next)?.kind !== "entry" });
      }
    } else if (event.key === "Enter" && from) {
      event.preventDefault();
      if (from.kind === "chain") {
        state.expandChain(from.firstId);
        pendingFocus.current = from.firstId;
        void state.selectEntry(from.firstId);
      } else {
        // On the view leaf itself, or while a job runs, this says why nothing moves. Shift+Enter
        // asks first, as a drop of the leaf marker does (the way to a branch summary by keyboard).
        void state.moveViewLeaf(from.id, { ask: event.shiftKey });
      }
    } else if (event.key === "Escape" && !selectRunning(state) && state.selectedEntryId !== null) {
      // Running work is cancelled by the app-wide Escape handler.
      void state.selectEntry(null);
    }
  };

  if (!treeLoaded) return null;
  const empty = layout !== null && layout.nodes.length === 0;
  return (
    <div
      className="tree-canvas"
      ref={container}
      data-testid="tree-canvas"
      data-tree-session={sessionId ?? ""}
      data-total-count={layout?.totalCount ?? 0}
      data-shown-count={layout?.shownCount ?? 0}
      data-node-count={nodes.length}
    >
      <TreeToolbar onGoToLeaf={goToLeaf} />
      {/* The frame holds the tree and, beside it, React Flow's zoom controls and minimap: buttons
          and a picture are no part of a tree (ARIA), so they are outside the role=tree element. */}
      <div className="tree-frame" data-compact={compact ? "true" : "false"}>
        <div
          className="tree-flow"
          ref={setFlowElement}
          data-compact={compact ? "true" : "false"}
          role="tree"
          aria-label="Session tree"
          tabIndex={0}
          onKeyDown={onKeyDown}
        >
          {empty ? (
            <p className="empty tree-empty">
              {/* A file with only its header (an agent's before the first message) has none to filter. */}
              {layout.totalCount === 0
                ? "This session has no entries yet."
                : "This filter shows no entries of this session."}
            </p>
          ) : (
            <ReactFlow
              ref={dropApplicationRole}
              nodes={nodes}
              edges={edges}
              nodeTypes={nodeTypes}
              onlyRenderVisibleElements={!benchBaseline}
              nodesDraggable={false}
              nodesConnectable={false}
              nodesFocusable={false}
              edgesFocusable={false}
              elementsSelectable={false}
              disableKeyboardA11y
              zoomOnDoubleClick={false}
              panOnScroll
              minZoom={0.02}
              maxZoom={2}
              colorMode="system"
              proOptions={HIDE_ATTRIBUTION}
            >
              <CompactionBracket />
            </ReactFlow>
          )}
        </div>
        {!empty && (
          <>
            <Controls
              showInteractive={false}
              showFitView={false}
              orientation={compact ? "horizontal" : "vertical"}
            >
              {/* React Flow's own Fit View used the whole canvas: the tree's nodes (often the view
                  leaf, bottom-centre) were drawn under the minimap and the zoom controls. */}
              <ControlButton
                className="react-flow__controls-fitview"
                onClick={() => void viewport.fitAll()}
                title="Fit View"
                aria-label="Fit View"
              >
                <FitViewIcon />
              </ControlButton>
            </Controls>
            {!compact && nodes.length <= MINIMAP_MAX_NODES && (
              <MiniMap<TreeFlowNode>
                style={MINIMAP_STYLE}
                pannable
                zoomable
                nodeComponent={MiniNode}
                nodeClassName={minimapClass}
                ariaLabel="Minimap of the session tree"
              />
            )}
          </>
        )}
      </div>
      <DragGhost />
      <TreeHint />
      <BranchDialog />
      <BranchProgress />
    </div>
  );
}
